package dev.ballast.backup.keys;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import org.jspecify.annotations.Nullable;

/**
 * The operating system's cryptographically secure generator, read from {@code /dev/urandom} (Linux,
 * macOS and the BSDs; on Linux the same ChaCha20 generator as {@code getrandom(2)}, seeded before
 * user space runs): the source the JDK's NativePRNG reads too, without the SHA1PRNG output it mixes
 * in, which costs a fresh JVM hundreds of microseconds per kilobyte. For values that are public once
 * used (salts, nonces); keys come from {@link java.security.SecureRandom}. Thread-safe: the kernel
 * hands each read bytes of its own.
 */
final class KernelRandom {
    private static final @Nullable InputStream DEVICE = open();
    private static volatile boolean failed;

    private KernelRandom() {}

    private static @Nullable InputStream open() {
        try {
            return new FileInputStream("/dev/urandom");
        } catch (IOException | RuntimeException e) {
            return null; // no such device (Windows): the caller uses SecureRandom
        }
    }

    /**
     * Fills {@code out} from the device.
     *
     * @return false, leaving {@code out} unspecified, where there is no device or a read failed (the
     *     caller then draws from SecureRandom; after one failure the device is not read again)
     */
    static boolean read(byte[] out) {
        InputStream in = DEVICE;
        if (in == null || failed) {
            return false;
        }
        try {
            if (in.readNBytes(out, 0, out.length) == out.length) {
                return true;
            }
        } catch (IOException | RuntimeException e) {
            // fall through
        }
        failed = true;
        return false;
    }
}
