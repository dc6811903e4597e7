package dev.ballast.backup.keys;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The cost of turning a password into the 32-byte key that opens a key file: Argon2id (RFC 9106,
 * version 0x13, {@link Argon2id}: its lanes filled at once on up to as many threads as there are
 * processors, BouncyCastle's BLAKE2b underneath), with a 16-byte random salt per key file. Each key
 * file records its own parameters, so the default can change without making older key files
 * unreadable.
 *
 * <p><b>The default</b>, {@link #DEFAULT}: 64 MiB of memory, 1 pass, 4 lanes. RFC 9106 section 4
 * recommends t=3, p=4, m=64 MiB as its second option, for when 2 GiB cannot be spared; on the machine
 * Ballast is built on (2 cores shared with other builds, load average 5 to 18 while measured,
 * 2026-12-02) one derivation through BouncyCastle's {@code Argon2BytesGenerator} in a fresh JVM with
 * the {@code ./ballast} launcher's JIT settings took 1.7 to 2.6 s with t=3 (7 runs) and 0.44 to 2.0 s
 * with t=1 (7 runs, 0.44 to 0.8 s in 5 of them), and every command that opens a repository pays one.
 * The memory, which is what makes guessing on GPUs and ASICs expensive, stays at the recommended
 * 64 MiB; the passes are cut to one, RFC 9106's own choice for its first option. {@code new
 * KdfParameters(65536, 3, 4)} is the RFC's second option exactly, for {@link KeyFiles#withKdf}.
 *
 * @param memoryKiB memory in KiB (Argon2's m), at least {@code 8 * parallelism}, at most 4 GiB
 * @param iterations passes over the memory (Argon2's t), 1 to 100
 * @param parallelism lanes (Argon2's p), 1 to 64; filled at once on up to as many threads as there are
 *     processors
 */
public record KdfParameters(int memoryKiB, int iterations, int parallelism) {
    /** 64 MiB, 1 pass, 4 lanes (see the class comment for why and what it costs). */
    public static final KdfParameters DEFAULT = new KdfParameters(64 * 1024, 1, 4);

    // equals and hashCode written out: a record's own link an ObjectMethods call site on first use,
    // a few milliseconds of every command's start (the key files are matched by these parameters)
    @Override
    public boolean equals(Object o) {
        return o instanceof KdfParameters k
                && k.memoryKiB == memoryKiB
                && k.iterations == iterations
                && k.parallelism == parallelism;
    }

    @Override
    public int hashCode() {
        return (memoryKiB * 31 + iterations) * 31 + parallelism;
    }

    /** The name of the KDF in a key file's {@code kdf} field. */
    public static final String ARGON2ID = "argon2id";

    /** Bytes of the derived key (an AES-256 key). */
    public static final int KEY_BYTES = 32;

    /** Bytes of the random salt of each key file (RFC 9106 recommends 16). */
    public static final int SALT_BYTES = 16;

    /**
     * @throws IllegalArgumentException if a parameter is outside the ranges above (a key file with
     *     such parameters is refused before any memory is allocated)
     */
    public KdfParameters {
        if (parallelism < 1 || parallelism > 64) {
            throw new IllegalArgumentException("Argon2id parallelism " + parallelism + " is not between 1 and 64");
        }
        if (iterations < 1 || iterations > 100) {
            throw new IllegalArgumentException("Argon2id iterations " + iterations + " is not between 1 and 100");
        }
        if (memoryKiB < 8 * parallelism || memoryKiB > 4 * 1024 * 1024) {
            throw new IllegalArgumentException("Argon2id memory " + memoryKiB + " KiB is not between " + 8 * parallelism
                    + " KiB (8 per lane) and 4 GiB");
        }
    }

    /**
     * The 32-byte key of {@code password} (encoded as UTF-8, not normalised) and {@code salt}. The
     * UTF-8 copy of the password is zeroed before returning; {@code password} itself is the caller's
     * to zero. Takes the time and memory the parameters say; thread-safe.
     *
     * @throws IllegalArgumentException if {@code password} holds an unpaired surrogate (not text)
     */
    public byte[] derive(char[] password, byte[] salt) {
        byte[] utf8 = utf8(password);
        try {
            return Argon2id.hash(utf8, salt, memoryKiB, iterations, parallelism, KEY_BYTES);
        } finally {
            Arrays.fill(utf8, (byte) 0);
        }
    }

    /**
     * Allocates, on the calling thread, the memory a derivation with these parameters takes, so that
     * the next {@link #derive} with them (on any thread) does not wait for its page faults; see
     * {@link Argon2id#prepare}. For a caller that knows a derivation will follow, such as a command
     * about to open a repository, on a thread of its own. Thread-safe; never throws.
     */
    public void prepare() {
        Argon2id.prepare(memoryKiB, parallelism);
    }

    /**
     * Drops the memory {@link #prepare} allocated when no derivation will follow (a store of the
     * unencrypted format), so the command does not hold it to its end. Thread-safe; never throws.
     */
    public static void releasePrepared() {
        Argon2id.release();
    }

    /** {@code password} as UTF-8 bytes, through buffers this method zeroes (String would keep a copy). */
    static byte[] utf8(char[] password) {
        CharsetEncoder encoder = StandardCharsets.UTF_8
                .newEncoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer buffer;
        try {
            buffer = encoder.encode(CharBuffer.wrap(password));
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("the password is not text (it holds an unpaired UTF-16 surrogate)");
        }
        byte[] bytes = Arrays.copyOfRange(buffer.array(), buffer.position(), buffer.limit());
        Arrays.fill(buffer.array(), (byte) 0);
        return bytes;
    }
}
