package dev.ballast.backup.keys;

import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A derivation of a password's key started before the repository's key files are read, from the KDF
 * parameters and salt the key file that opened had the last time (remembered by the caller, {@link
 * Salt}), so that the derivation (Argon2id, about 0.3 s with the default parameters) runs while the
 * store is opened and {@code keys/} listed and read instead of after. {@link KeyFiles#open(
 * dev.ballast.storage.ObjectStore, char[], byte[], KeyDerivationAhead)} uses the derived key only for a key
 * file with exactly those parameters and salt, and it opens the key file only if the key is right (AES-GCM
 * authenticates it), so a stale or wrong remembered salt costs the derivation's CPU and nothing else:
 * the key files are then derived for as they always are. After the open, {@link #opened()} says which
 * parameters and salt the key file that opened has, for the caller to remember.
 *
 * <p>The salt is no secret: every key file holds it in clear, as restic's do. Thread-safe; {@link #close}
 * zeroes the password copy and the derived key (a derivation still running zeroes its result when done).
 */
public final class KeyDerivationAhead implements AutoCloseable {
    /**
     * The KDF parameters and salt of a key file: what is remembered between commands.
     *
     * @param kdf the key file's Argon2id parameters
     * @param salt its salt, {@value KdfParameters#SALT_BYTES} bytes
     */
    public record Salt(KdfParameters kdf, byte[] salt) {
        public Salt {
            Objects.requireNonNull(kdf, "kdf");
            salt = salt.clone();
        }

        @Override
        public byte[] salt() {
            return salt.clone();
        }

        /** {@code MEMORY_KIB ITERATIONS PARALLELISM BASE64-SALT}, the form {@link #parse} reads. */
        public String encode() {
            return kdf.memoryKiB() + " " + kdf.iterations() + " " + kdf.parallelism() + " "
                    + Base64.getEncoder().encodeToString(salt);
        }

        /** What {@link #encode} wrote, or null for anything else (parameters out of range included). */
        public static @Nullable Salt parse(@Nullable String encoded) {
            if (encoded == null) {
                return null;
            }
            String[] p = encoded.trim().split(" ");
            if (p.length != 4) {
                return null;
            }
            try {
                byte[] salt = Base64.getDecoder().decode(p[3]);
                if (salt.length != KdfParameters.SALT_BYTES) {
                    return null;
                }
                return new Salt(
                        new KdfParameters(Integer.parseInt(p[0]), Integer.parseInt(p[1]), Integer.parseInt(p[2])),
                        salt);
            } catch (IllegalArgumentException e) { // NumberFormatException too
                return null;
            }
        }

        boolean matches(KdfParameters otherKdf, byte[] otherSalt) {
            return kdf.equals(otherKdf) && Arrays.equals(salt, otherSalt);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Salt s && kdf.equals(s.kdf) && Arrays.equals(salt, s.salt);
        }

        @Override
        public int hashCode() {
            return 31 * kdf.hashCode() + Arrays.hashCode(salt);
        }

        @Override
        public String toString() {
            return "Salt[" + encode() + "]";
        }
    }

    private final @Nullable Salt ahead;
    private final @Nullable CompletableFuture<byte[]> derived;
    private volatile @Nullable Salt opened;
    private volatile boolean closed;

    private KeyDerivationAhead(@Nullable Salt ahead, @Nullable CompletableFuture<byte[]> derived) {
        this.ahead = ahead;
        this.derived = derived;
    }

    /** Nothing derived ahead: {@link KeyFiles#open} derives as it always does, and records {@link #opened()}. */
    public static KeyDerivationAhead none() {
        return new KeyDerivationAhead(null, null);
    }

    /**
     * The costliest parameters derived ahead: memory times passes at most four times the default's
     * (64 MiB, 1 pass). A remembered salt of costlier parameters (a key file made so on purpose, or a
     * damaged or foreign cache entry) is derived for after the key file is read, as without one: a wrong
     * entry must not hold gigabytes or the processors for a derivation nobody uses.
     */
    static final long MAX_AHEAD_KIB_PASSES =
            4L * KdfParameters.DEFAULT.memoryKiB() * KdfParameters.DEFAULT.iterations();

    /** Whether {@link #start} derives ahead with {@code salt}'s parameters ({@link #MAX_AHEAD_KIB_PASSES}). */
    public static boolean worthStarting(Salt salt) {
        return (long) salt.kdf().memoryKiB() * salt.kdf().iterations() <= MAX_AHEAD_KIB_PASSES;
    }

    /**
     * Starts deriving the key of {@code password} with {@code salt}'s parameters and salt on a daemon thread
     * of its own ({@code ballast-kdf-ahead}), or derives nothing ahead ({@link #none()}) where
     * {@link #worthStarting} says no. {@code password} is copied; the caller keeps its own.
     */
    public static KeyDerivationAhead start(char[] password, Salt salt) {
        if (!worthStarting(salt)) {
            return none();
        }
        char[] copy = password.clone();
        CompletableFuture<byte[]> derived = new CompletableFuture<>();
        KeyDerivationAhead ahead = new KeyDerivationAhead(salt, derived);
        Thread t = new Thread(
                () -> {
                    try {
                        byte[] key = salt.kdf().derive(copy, salt.salt);
                        derived.complete(key);
                        if (ahead.closed) {
                            Arrays.fill(key, (byte) 0);
                        }
                    } catch (RuntimeException | Error e) { // an OutOfMemoryError is the open's to report
                        derived.completeExceptionally(e);
                    } finally {
                        Arrays.fill(copy, '\0');
                    }
                },
                "ballast-kdf-ahead");
        t.setDaemon(true);
        t.start();
        return ahead;
    }

    /** The parameters and salt derived ahead with, or null for {@link #none()}. */
    public @Nullable Salt ahead() {
        return ahead;
    }

    /**
     * The key of the password for a key file with {@code kdf} and {@code salt}: the one derived ahead when
     * they are those it was derived with (waiting for it), else derived now on the calling thread, once the
     * derivation ahead (if any) has ended. A copy, the caller's to zero.
     */
    byte[] derive(char[] password, KdfParameters kdf, byte[] salt) {
        if (ahead != null && derived != null && ahead.matches(kdf, salt)) {
            return dev.ballast.backup.Futures.join(derived).clone();
        }
        if (derived != null) {
            // A stale salt: its derivation is let finish first, so the two never hold their memory (64 MiB each
            // by default) at once, which a small heap may not have room for, nor share the processors.
            derived.exceptionally(e -> null).join();
        }
        return kdf.derive(password, salt);
    }

    /** Records that the key file with {@code kdf} and {@code salt} opened. */
    void opened(KdfParameters kdf, byte[] salt) {
        this.opened = new Salt(kdf, salt);
    }

    /** The parameters and salt of the key file that opened the repository, or null before that (or when none did). */
    public @Nullable Salt opened() {
        return opened;
    }

    /** Zeroes the key derived ahead (once its derivation ends, if it is still running). Idempotent. */
    @Override
    public void close() {
        closed = true;
        if (derived != null && derived.isDone() && !derived.isCompletedExceptionally()) {
            Arrays.fill(derived.join(), (byte) 0);
        }
    }
}
