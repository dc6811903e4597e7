package dev.ballast.backup.pack;

import dev.ballast.storage.object.ObjectContent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writing a {@link BlobRepository}'s index files: after a flush ({@link BlobRepository#flush}), a
 * rebuild ({@link PackCheck}), a repack ({@link Repack}) or a repair ({@link Salvage}), one or more
 * files naming the packs given, each sealed with the repository's key ({@link IndexFiles#encode}) and
 * added to its {@link IndexState#indexFiles}. The callers register the packs in the index themselves.
 *
 * <p>Stateless; called under the repository's write lock, which keeps index files from being written
 * twice at once. Thread-safe as far as it goes: it changes only the repository's concurrent set of
 * index files.
 */
final class IndexWrite {
    /** At most this many blobs go into one index file; more make several. */
    static final int MAX_BLOBS_PER_INDEX_FILE = 100_000;

    private IndexWrite() {}

    /** Writes index files naming {@code packs}, at most {@link #MAX_BLOBS_PER_INDEX_FILE} blobs each. */
    static List<String> write(BlobRepository repo, Map<String, List<BlobLocation>> packs) {
        List<String> written = new ArrayList<>();
        Map<String, List<BlobLocation>> part = new LinkedHashMap<>();
        int blobs = 0;
        for (Map.Entry<String, List<BlobLocation>> e : packs.entrySet()) {
            if (blobs > 0 && blobs + e.getValue().size() > MAX_BLOBS_PER_INDEX_FILE) {
                written.add(writeFile(repo, part));
                part = new LinkedHashMap<>();
                blobs = 0;
            }
            part.put(e.getKey(), e.getValue());
            blobs += e.getValue().size();
        }
        if (!part.isEmpty()) {
            written.add(writeFile(repo, part));
        }
        return written;
    }

    private static String writeFile(BlobRepository repo, Map<String, List<BlobLocation>> packs) {
        IndexFiles.Encoded file = IndexFiles.encode(repo.key, packs);
        repo.store.put(file.key(), ObjectContent.ofBytes(file.bytes()));
        repo.state.indexFiles.add(file.key());
        return file.key();
    }
}
