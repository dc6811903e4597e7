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

    CliFailure(int exitCode, String message, @Nullable Throwable cause) {
        super(Objects.requireNonNull(message, "message"), cause);
        this.exitCode = exitCode;
    }

    CliFailure(int exitCode, String message) {
        this(exitCode, message, null);
    }

    int exitCode() {
        return exitCode;
    }
}
