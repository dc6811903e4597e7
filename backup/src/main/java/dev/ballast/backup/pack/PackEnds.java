package dev.ballast.backup.pack;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where each pack's blobs end (its header starts), worked out once for each list of blobs a pack is
 * known by rather than on every read: a pack of 16 MiB holds up to tens of thousands of small blobs,
 * and a restore reads it a run at a time, so going through the list on each read made a restore of
 * 80,000 small files spend a minute of CPU there ({@code UnindexedPacks.end} under
 * {@code PackReader.viaBlocks}, found by a tester's {@code jstack}). A list that replaces a pack's
 * (a repack, a salvage) is worked out anew. Holds one entry per pack looked up. Thread-safe.
 */
final class PackEnds {
    private record End(List<BlobLocation> blobs, long end) {}

    private final ConcurrentHashMap<String, End> ends = new ConcurrentHashMap<>();

    /** Where {@code blobs}, the blobs {@code pack} holds, end. */
    long of(String pack, List<BlobLocation> blobs) {
        End known = ends.get(pack);
        if (known == null || known.blobs() != blobs) {
            known = new End(blobs, UnindexedPacks.end(blobs));
            ends.put(pack, known);
        }
        return known.end();
    }
}
