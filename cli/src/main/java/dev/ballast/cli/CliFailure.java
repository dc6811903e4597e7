package dev.ballast.cli;

import dev.ballast.backup.BackupException;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A failure reported to the user as one sentence (the input, what went wrong, what to do) and an
 * exit code from {@link ExitCodes}; the cause is shown only with {@code --verbose}. The engine's
 * failures ({@link BackupException}) become one with {@link #of}, their kind giving the exit code and
 * their remedies reworded in the command's terms ({@link CliWording}).
 */
final class CliFailure extends BackupException {
    private static final long serialVersionUID = 1L;

    private final int exitCode;

    CliFailure(int exitCode, String message, @Nullable Throwable cause) {
        super(kindOf(exitCode), message, cause);
        this.exitCode = exitCode;
    }

    /**
     * A failure about several inputs: {@code details} are printed one a line before the sentence
     * (each conflict of a refused restore, say).
     */
    CliFailure(int exitCode, String message, List<String> details) {
        super(kindOf(exitCode), message, details);
        this.exitCode = exitCode;
    }

    CliFailure(int exitCode, String message) {
        this(exitCode, message, (Throwable) null);
    }

    /** The engine's failure {@code e} with the exit code of its kind, its message, details and cause. */
    static CliFailure of(BackupException e) {
        if (e instanceof CliFailure f) {
            return f;
        }
        int code = ExitCodes.of(e.kind());
        // The engine names remedies in the library's terms; the command's own words replace them.
        String message = CliWording.reword(String.valueOf(e.getMessage()));
        CliFailure f = e.details().isEmpty()
                ? new CliFailure(code, message, e.getCause())
                : new CliFailure(
                        code,
                        message,
                        e.details().stream().map(CliWording::reword).toList());
        f.setStackTrace(e.getStackTrace());
        return f;
    }

    int exitCode() {
        return exitCode;
    }

    private static Kind kindOf(int exitCode) {
        return switch (exitCode) {
            case ExitCodes.USAGE -> Kind.INVALID_INPUT;
            case ExitCodes.UNAVAILABLE -> Kind.UNAVAILABLE;
            case ExitCodes.INTEGRITY -> Kind.INTEGRITY;
            case ExitCodes.NOT_FOUND -> Kind.NOT_FOUND;
            case ExitCodes.CONFLICT -> Kind.CONFLICT;
            case ExitCodes.WRONG_PASSWORD -> Kind.WRONG_PASSWORD;
            default -> Kind.INCOMPLETE;
        };
    }
}
