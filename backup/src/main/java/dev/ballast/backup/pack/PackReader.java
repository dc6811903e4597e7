package dev.ballast.backup.pack;

import dev.ballast.backup.keys.MasterKey;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.RequestRefusedException;
import dev.ballast.storage.object.ByteRange;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ReadOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Reads stored blob bytes from packs: ranges, merged ranges, whole packs. Stateless and thread-safe. */
final class PackReader {
    /** Two wanted blobs at most this far apart are fetched with one GET (the gap is read and dropped). */
    static final long MERGE_GAP = 1024 * 1024;

    private final ObjectStore store;
    private final MasterKey key;

    PackReader(ObjectStore store, MasterKey key) {
        this.store = store;
        this.key = key;
    }

    /** {@code pack[offset, offset + length)}, exactly that long. */
    byte[] range(String pack, long offset, long length) {
        byte[] bytes;
        try (ObjectRead read = store.get(pack, ReadOptions.latest().withRange(ByteRange.of(offset, length)))) {
            bytes = readAll(read);
        } catch (RequestRefusedException e) {
            if (e.statusCode() == 416) {
                throw new IntegrityException(
                        pack,
                        "Pack " + pack + " ends before byte " + offset
                                + ", where the index says a blob starts: it was cut.",
                        e);
            }
            throw e;
        }
        if (bytes.length != length) {
            throw new IntegrityException(
                    pack,
                    "Pack " + pack + " ends at byte " + (offset + bytes.length) + ", before the " + length
                            + " bytes from " + offset + " the index names: it was cut.");
        }
        return bytes;
    }

    /** The whole current version of {@code pack}. */
    byte[] whole(String pack) {
        try (ObjectRead read = store.get(pack)) {
            return readAll(read);
        }
    }

    private static byte[] readAll(ObjectRead read) {
        try {
            return read.stream().readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("Reading " + read.version().key() + " failed: " + e.getMessage(), e);
        }
    }

    /** Opens one blob of {@code stored[offset, offset + loc.length())}, checked. */
    byte[] open(BlobLocation loc, byte[] stored, int offset) {
        return BlobCodec.decode(
                key,
                loc.pack(),
                loc.type(),
                loc.compressed(),
                loc.id(),
                loc.plainLength(),
                stored,
                offset,
                loc.length());
    }

    /** One blob, by a ranged GET. */
    byte[] read(BlobLocation loc) {
        byte[] stored;
        try {
            stored = range(loc.pack(), loc.offset(), loc.length());
        } catch (IntegrityException e) {
            throw new IntegrityException(
                    loc.pack(),
                    "Blob " + loc.id() + " in pack " + loc.pack() + " was not read intact: " + e.getMessage(),
                    e);
        }
        return open(loc, stored, 0);
    }

    /** A run of wanted blobs fetched with one GET. */
    record Span(long offset, long end, List<BlobLocation> blobs) {}

    /** {@code blobs} of one pack, in offset order, grouped into spans no gap in which exceeds {@link #MERGE_GAP}. */
    static List<Span> spans(List<BlobLocation> blobs) {
        List<BlobLocation> sorted = new ArrayList<>(blobs);
        sorted.sort(Comparator.comparingLong(BlobLocation::offset));
        List<Span> out = new ArrayList<>();
        List<BlobLocation> current = new ArrayList<>();
        long start = -1;
        long end = -1;
        for (BlobLocation b : sorted) {
            if (!current.isEmpty() && b.offset() - end > MERGE_GAP) {
                out.add(new Span(start, end, current));
                current = new ArrayList<>();
            }
            if (current.isEmpty()) {
                start = b.offset();
            }
            current.add(b);
            end = Math.max(end, b.end());
        }
        if (!current.isEmpty()) {
            out.add(new Span(start, end, current));
        }
        return out;
    }

    /** The stored bytes of {@code span}, one GET; a damaged read names the blobs it holds. */
    byte[] spanBytes(Span span) {
        String pack = span.blobs().get(0).pack();
        try {
            return range(pack, span.offset(), span.end() - span.offset());
        } catch (IntegrityException e) {
            int n = span.blobs().size();
            throw new IntegrityException(
                    pack,
                    "Blob " + span.blobs().get(0).id()
                            + (n > 1 ? " and " + (n - 1) + " more" : "") + " in pack " + pack
                            + " were not read intact: "
                            + e.getMessage(),
                    e);
        }
    }

    /** Reads {@code span} with one GET and opens each of its blobs, handing each to {@code sink}. */
    void readSpan(Span span, BlobSink sink) throws IOException {
        byte[] stored = spanBytes(span);
        for (BlobLocation b : span.blobs()) {
            sink.accept(b.id(), open(b, stored, (int) (b.offset() - span.offset())));
        }
    }
}
