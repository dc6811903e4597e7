package dev.ballast.backup.restore;

import dev.ballast.backup.content.PackedContent;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.storage.IntegrityException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Reading a file of a repository of format 3 for {@link RestoreRunner}: its chunks in order from the
 * packs ({@link PackedContent#open}, each chunk opened with AES-GCM and checked against its keyed ID,
 * an HMAC-SHA-256 of its plain bytes, as it is opened), then the whole file against the length the
 * manifest records, before it takes its name. A damaged chunk is an {@link IntegrityException}: the
 * file is reported damaged and nothing is written under its name.
 *
 * <p>The file's SHA-256 in the manifest is not computed again: the manifest is sealed, so its list
 * of chunk IDs is authentic, and every chunk's bytes are checked against their ID, so the bytes
 * written are the chunks the backup cut from the file it hashed. A second SHA-256 of every restored
 * byte cost about a third of a restore's CPU time (docs/backup-format.md, "Speed").
 */
final class PackedRestore {
    private PackedRestore() {}

    /**
     * Starts reading ahead the chunks of the files of {@code m} to be written (not {@code present}),
     * in the order they are written ({@link PackedContent#readAhead}).
     */
    static AutoCloseable readAhead(PackedContent packed, Manifest m, boolean[] present) {
        List<List<String>> files = new ArrayList<>();
        for (int i = 0; i < m.files().size(); i++) {
            ManifestEntry e = m.files().get(i);
            if (!present[i] && e.packed()) {
                files.add(e.chunks());
            }
        }
        return packed.readAhead(files);
    }

    /** Stops a read ahead; null is nothing to stop. */
    static void close(@Nullable AutoCloseable readAhead) {
        if (readAhead != null) {
            try {
                readAhead.close();
            } catch (Exception e) {
                // what was read ahead and not taken is dropped; nothing else to undo
            }
        }
    }

    /** The content of {@code e}, chunk after chunk. */
    static InputStream open(PackedContent packed, ManifestEntry e) {
        return packed.open(e.chunks());
    }

    /**
     * Refuses a file whose written length is not the manifest's (its chunks name fewer or more bytes
     * than the file had).
     *
     * @throws IntegrityException naming the file
     */
    static void check(ManifestEntry e, long written) {
        if (written != e.size()) {
            throw new IntegrityException(
                    e.path(),
                    "'" + e.path() + "' has " + written + " bytes in its chunks but the manifest records " + e.size()
                            + "; it was not written");
        }
    }
}
