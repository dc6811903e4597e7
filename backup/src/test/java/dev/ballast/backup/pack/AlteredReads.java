package dev.ballast.backup.pack;

import dev.ballast.storage.object.ObjectRead;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** Answers of a store as a path to it may alter them: the same read with other bytes, for tests. */
final class AlteredReads {
    private AlteredReads() {}

    /** {@code r} with its stream replaced by {@code in}. */
    static ObjectRead withStream(ObjectRead r, InputStream in) {
        return new ObjectRead(
                r.version(),
                in,
                r.source(),
                r.freshness(),
                r.age(),
                null,
                r.range().orElse(null),
                false);
    }

    /** {@code r} with the middle byte of its bytes changed. */
    static ObjectRead middleByteChanged(ObjectRead r) {
        byte[] bytes;
        try (r) {
            bytes = r.stream().readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        bytes[bytes.length / 2] ^= 0x10;
        return withStream(r, new ByteArrayInputStream(bytes));
    }
}
