package dev.ballast.cli;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A failure reported to the user as one sentence (the input, what went wrong, what to do) and an
 * exit code from {@link ExitCodes}; the cause is shown only with {@code --verbose}.
 */
final class CliFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int exitCode;
    private final java.util.List<String> details;

    CliFailure(int exitCode, String message, @Nullable Throwable cause) {
        super(Objects.requireNonNull(message, "message"), cause);
        this.exitCode = exitCode;
        this.details = java.util.List.of();
    }

    /**
     * A failure about several inputs: {@code details} are printed one a line before the sentence
     * (each conflict of a refused restore, say).
     */
    CliFailure(int exitCode, String message, java.util.List<String> details) {
        super(Objects.requireNonNull(message, "message"));
        this.exitCode = exitCode;
        this.details = java.util.List.copyOf(details);
    }

    /** The lines printed before the sentence, one per input it is about; empty for most failures. */
    java.util.List<String> details() {
        return details;
    }

    CliFailure(int exitCode, String message) {
        this(exitCode, message, (Throwable) null);
    }

    int exitCode() {
        return exitCode;
    }
}
