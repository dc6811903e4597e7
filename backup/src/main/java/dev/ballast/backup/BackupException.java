package dev.ballast.backup;

import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A backup operation that could not be done, as one sentence (the input, what went wrong, what to
 * do) and a {@link Kind} a caller can act on (the {@code ballast} command maps each kind to its
 * exit code). Some failures are about several inputs (each conflict of a refused restore): those
 * are in {@link #details()}, one line each.
 */
public class BackupException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** What kind of failure it is. */
    public enum Kind {
        /** The job ran but not everything was done; the message says what. */
        INCOMPLETE,
        /** An input was invalid: a backup name, a version ID, a pattern, a setting. */
        INVALID_INPUT,
        /** The store could not be used now (down, timed out, out of space, written by another run). */
        UNAVAILABLE,
        /**
         * Bytes did not match their SHA-256, a version a manifest references is missing, or a manifest
         * is corrupt or names an unsafe path.
         */
        INTEGRITY,
        /** The backup, manifest version or object does not exist. */
        NOT_FOUND,
        /** A restore would replace an existing, different entry and overwriting was not asked for. */
        CONFLICT,
        /**
         * No key file of an encrypted repository opens with the password given (restic's "wrong
         * password or no key found"); nothing was read beyond the key files, nothing written.
         */
        WRONG_PASSWORD,
        /**
         * An encrypted repository (it has {@code config}) has no key file at all: {@code keys/} is
         * empty or cannot be listed, so no password can open it.
         */
        NO_KEY
    }

    private final Kind kind;
    private final List<String> details;

    /**
     * @param kind what kind of failure
     * @param message the sentence; not null
     * @param cause what caused it, or null
     */
    public BackupException(Kind kind, String message, @Nullable Throwable cause) {
        super(Objects.requireNonNull(message, "message"), cause);
        this.kind = Objects.requireNonNull(kind, "kind");
        this.details = List.of();
    }

    /** A failure with no cause. */
    public BackupException(Kind kind, String message) {
        this(kind, message, (Throwable) null);
    }

    /**
     * A failure about several inputs: {@code details} are the lines about each, shown before the
     * sentence.
     */
    public BackupException(Kind kind, String message, List<String> details) {
        super(Objects.requireNonNull(message, "message"));
        this.kind = Objects.requireNonNull(kind, "kind");
        this.details = List.copyOf(details);
    }

    /** What kind of failure this is. */
    public Kind kind() {
        return kind;
    }

    /** One line per input the failure is about; empty for most failures. */
    public List<String> details() {
        return details;
    }
}
