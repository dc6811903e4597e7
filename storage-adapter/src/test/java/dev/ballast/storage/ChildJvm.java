package dev.ballast.storage;

import static java.nio.charset.StandardCharsets.US_ASCII;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Starts a class of the test class path in a second JVM, the way lock tests need another process. */
public final class ChildJvm {
    private ChildJvm() {}

    /** Starts {@code main} with {@code args}; its standard error goes to this JVM's. */
    public static Process start(Class<?> main, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                main.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
    }

    /** The first line {@code process} prints, waiting at most {@code seconds}. */
    public static String firstLine(Process process, long seconds) throws Exception {
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), US_ASCII));
        return CompletableFuture.supplyAsync(() -> {
                    try {
                        return out.readLine();
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                })
                .get(seconds, TimeUnit.SECONDS);
    }
}
