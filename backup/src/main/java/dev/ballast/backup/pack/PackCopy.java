package dev.ballast.backup.pack;

import dev.ballast.storage.object.ObjectContent;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Copies sealed blobs, as they are stored, into new packs of the repository's pack size: what a
 * prune's repack and a repair's salvage both do with the blobs they keep. Each full pack is uploaded
 * at once ({@code put}, synchronously); {@link #finish} uploads the last one and returns every pack
 * written with its blobs, for the caller's new index. The blobs are not opened here: the caller checks
 * each before it is appended.
 *
 * <p>Not thread-safe: one copy per caller thread.
 */
final class PackCopy {
    private final BlobRepository repo;
    private final Map<String, List<BlobLocation>> written = new LinkedHashMap<>();
    private Packs.Builder builder;

    PackCopy(BlobRepository repo) {
        this.repo = repo;
    }

    /** Appends blob {@code b}, whose sealed bytes are {@code stored[at, at + b.length())}. */
    void append(BlobLocation b, byte[] stored, int at) {
        if (builder == null) {
            builder = new Packs.Builder(repo.options.packSize() + Chunker.MAX_SIZE / 8);
        }
        builder.append(b.type(), b.id(), stored, at, b.length(), b.compressed(), b.plainLength());
        if (builder.size() >= repo.options.packSize()) {
            put();
        }
    }

    /** Uploads the open pack, if any; the packs written, in order, each with its blobs. */
    Map<String, List<BlobLocation>> finish() {
        if (builder != null) {
            put();
        }
        return written;
    }

    private void put() {
        Packs.Finished f = builder.finish(repo.key);
        repo.store.put(f.key(), ObjectContent.ofBytes(f.bytes()));
        written.put(f.key(), f.blobs());
        builder = null;
    }
}
