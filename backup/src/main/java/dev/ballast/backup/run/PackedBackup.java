package dev.ballast.backup.run;

import dev.ballast.backup.Messages;
import dev.ballast.backup.content.PackedContent;
import dev.ballast.backup.snapshot.ManifestEntry;
import java.util.Iterator;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What a backup into a repository of format 3 does beside a backup of the earlier formats
 * ({@link BackupRunner#packedInto}): the previous manifest's entries are kept only while the
 * repository's index holds every chunk they list.
 */
final class PackedBackup {
    private PackedBackup() {}

    /**
     * Indexes the packs a run of the name killed before its flush left ({@link
     * PackedContent#indexLeftBehind}), with a note when there were some: their chunks are then reused
     * by this run instead of being stored again, as a killed backup of the earlier formats has its
     * stored files reused ({@link LeftBehind}).
     */
    static void reuseLeftBehind(PackedContent packed, String name, Consumer<String> err) {
        int packs = packed.indexLeftBehind();
        if (packs > 0) {
            err.accept("Note: a run of '" + Messages.printable(name) + "' that did not finish left " + packs
                    + " pack(s) no index named; they are indexed and their chunks reused.");
        }
    }

    /**
     * Removes from {@code previous} the entries whose chunks are not all in the index (a prune or a
     * damaged index took them) or that list no chunks at all (not of format 3), with one note saying
     * how many: those files are read and stored again.
     */
    static void dropLost(PackedContent packed, Map<String, ManifestEntry> previous, String name, Consumer<String> err) {
        int lost = 0;
        for (Iterator<ManifestEntry> it = previous.values().iterator(); it.hasNext(); ) {
            ManifestEntry e = it.next();
            if (!e.packed() || !packed.holdsAll(e.chunks())) {
                it.remove();
                lost++;
            }
        }
        if (lost > 0) {
            err.accept("Note: " + lost + " file(s) of the previous backup of '" + Messages.printable(name)
                    + "' list chunks the repository's index does not hold; they are read and stored again.");
        }
    }
}
