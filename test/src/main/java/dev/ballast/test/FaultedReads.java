package dev.ballast.test;

import dev.ballast.storage.StaleReadException;
import dev.ballast.storage.internal.VerifyingInputStream;
import dev.ballast.storage.object.Freshness;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.VersionEntry;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;

/**
 * The read faults of {@link FaultInjectingObjectStore}: a stale version served as a lagging replica
 * would, and bodies damaged on the way, verified as the real stores verify them. Stateless.
 */
final class FaultedReads {
    private FaultedReads() {}

    static ObjectRead stale(ObjectStore delegate, String key, ReadOptions options) {
        if (options.versionId() != null) {
            // A read of a named version cannot be stale: the fault has nothing to act on.
            return delegate.get(key, options);
        }
        List<VersionEntry> history = delegate.versions(key);
        VersionEntry previous = history.size() < 2 || history.get(0).deleteMarker() ? null : history.get(1);
        if (previous == null || previous.deleteMarker()) {
            return delegate.get(key, options);
        }
        long current;
        try (ObjectRead latest = delegate.get(key, options)) {
            current = latest.version().generation();
        }
        ObjectRead old = delegate.get(
                key,
                new ReadOptions(
                        previous.versionId(),
                        options.acceptStale(),
                        options.allowCache(),
                        options.range(),
                        options.customerKey()));
        if (!options.acceptStale()) {
            old.close();
            throw new StaleReadException(key, current, old.version().generation());
        }
        return new ObjectRead(
                old.version(),
                old.stream(),
                old.source(),
                Freshness.STALE,
                old.age(),
                null,
                old.range().orElse(null),
                old.verified());
    }

    static ObjectRead damaged(ObjectRead read, long offset, boolean flip) {
        if (read.range().isPresent()) {
            return damagedRange(read, offset, flip);
        }
        ObjectVersion v = read.version();
        long at = v.size() == 0 ? 0 : Math.min(offset, v.size() - 1);
        InputStream broken = new DamagingStream(read.stream(), at, flip);
        String sha = v.sha256().isBlank() ? null : v.sha256();
        InputStream verified = new VerifyingInputStream(v.key(), broken, v.size(), sha);
        return new ObjectRead(
                v,
                verified,
                read.source(),
                read.freshness(),
                read.age(),
                read.degradedReason().orElse(null));
    }

    /**
     * A ranged read damaged on the wire: its bytes (read in full from the store's verified stream, so
     * this is for test-sized ranges) are checked after the damage against their own SHA-256 and
     * length, so the caller meets an {@code IntegrityException} as from a store that verifies ranges.
     */
    private static ObjectRead damagedRange(ObjectRead read, long offset, boolean flip) {
        byte[] bytes = read.readAllBytes();
        long at = bytes.length == 0 ? 0 : Math.min(offset, bytes.length - 1);
        InputStream broken = new DamagingStream(new java.io.ByteArrayInputStream(bytes), at, flip);
        String sha = dev.ballast.storage.internal.Sha256.hex(dev.ballast.storage.internal.Sha256.of(bytes));
        return read.withStream(new VerifyingInputStream(read.version().key(), broken, bytes.length, sha));
    }

    /** Flips the byte at {@code at}, or ends the stream there. */
    private static final class DamagingStream extends FilterInputStream {
        private final long at;
        private final boolean flip;
        private long position;

        DamagingStream(InputStream in, long at, boolean flip) {
            super(in);
            this.at = at;
            this.flip = flip;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n == -1 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (!flip && position >= at) {
                return -1;
            }
            int want = flip ? len : (int) Math.min(len, at - position);
            int n = in.read(b, off, want);
            if (n > 0) {
                if (flip && at >= position && at < position + n) {
                    b[off + (int) (at - position)] ^= 0x01;
                }
                position += n;
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            byte[] buffer = new byte[(int) Math.min(n, 8192)];
            int read = read(buffer, 0, buffer.length);
            return Math.max(read, 0);
        }
    }
}
