package dev.ballast.cli;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import org.jspecify.annotations.Nullable;

/**
 * Standard output that remembers why a write to it failed. A {@link PrintStream} swallows write
 * errors (it only sets {@link PrintStream#checkError}), so {@code ballast ls NAME > /dev/full} exited
 * 0 having printed nothing (a tester's finding); {@link #exitCode} turns such a failure into exit 1
 * and one sentence on standard error. A reader that stopped reading ({@code | head -1}: "Broken
 * pipe") is no failure: the command's own exit code stands, as for {@code ls | head}. Thread-safe as
 * the stream it wraps.
 */
final class OutputFailure extends FilterOutputStream {
    private volatile @Nullable IOException failure;

    OutputFailure(OutputStream out) {
        super(out);
    }

    @Override
    public void write(int b) throws IOException {
        try {
            out.write(b);
        } catch (IOException e) {
            failure = e;
            throw e;
        }
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        try {
            out.write(b, off, len);
        } catch (IOException e) {
            failure = e;
            throw e;
        }
    }

    @Override
    public void flush() throws IOException {
        try {
            out.flush();
        } catch (IOException e) {
            failure = e;
            throw e;
        }
    }

    /**
     * The exit code for a command that returned {@code code} and printed to {@code printed}: exit 1,
     * with one sentence on {@code err}, when what it printed could not be written for another reason
     * than a reader that went away; {@code code} otherwise.
     *
     * @param why what {@code printed} failed with, when known (null: an unknown failure)
     */
    static int exitCode(int code, PrintStream printed, @Nullable IOException why, PrintStream err) {
        printed.flush();
        if (!printed.checkError()) {
            return code;
        }
        String message = why == null || why.getMessage() == null ? "" : why.getMessage();
        if (message.contains("Broken pipe")) {
            return code;
        }
        err.println("Error: the command's output could not be written"
                + (message.isEmpty() ? "" : " (" + message + ")")
                + "; what it printed is incomplete.");
        return code == ExitCodes.OK ? ExitCodes.INCOMPLETE : code;
    }

    /** Why a write failed, or null if none has. */
    @Nullable
    IOException failure() {
        return failure;
    }
}
