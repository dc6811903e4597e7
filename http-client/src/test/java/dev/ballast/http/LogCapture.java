package dev.ballast.http;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Captures what slf4j-simple (the test binding, INFO and above, on {@code System.err}) prints while
 * a block runs, so a test can assert which events were logged and at which level.
 */
public final class LogCapture {

    /** A block that may throw. */
    @FunctionalInterface
    public interface Block {
        void run() throws Exception;
    }

    private LogCapture() {}

    /**
     * Runs {@code block} and returns the lines printed to {@code System.err} meanwhile that mention
     * {@code marker} (a dependency key or path unique to the test, so other tests' threads cannot
     * interfere).
     */
    public static List<String> linesMentioning(String marker, Block block) throws Exception {
        PrintStream originalErr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            block.run();
        } finally {
            System.setErr(originalErr);
        }
        return captured.toString(StandardCharsets.UTF_8)
                .lines()
                .filter(line -> line.contains(marker))
                .toList();
    }
}
