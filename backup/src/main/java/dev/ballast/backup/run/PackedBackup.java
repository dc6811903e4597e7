package dev.ballast.backup.run;

import dev.ballast.backup.Messages;
import dev.ballast.backup.content.PackedBlobs;
import dev.ballast.backup.content.PackedContent;
import dev.ballast.backup.pack.BlobRepository;
import dev.ballast.backup.retention.PackedRepair;
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
     * Says what the repository's open found wrong that this backup works around
     * ({@link PackedRepair#damageNotes}).
     */
    static void noteDamage(PackedContent packed, Consumer<String> err) {
        PackedRepair.damageNotes(packed, true).forEach(err);
    }

    /**
     * After the run's packs are indexed: says how many chunks of missing packs it stored again, which
     * makes every older snapshot naming them read again (chunk IDs are content-addressed).
     */
    static void noteStoredAgain(PackedContent packed, Consumer<String> err) {
        if (!(packed instanceof PackedBlobs blobs)) {
            return;
        }
        BlobRepository repo = blobs.blobs();
        BlobRepository.StoredAgain again = repo.storedAgain();
        if (repo.lostBlobs() == 0) {
            return;
        }
        int notStored = repo.lostBlobs() - again.blobs();
        String kind = repo.missingPacks().size() == repo.lostPacks().size() ? " missing" : " missing or cut";
        err.accept("Note: " + again.blobs() + " chunk(s) of " + again.packs() + kind
                + " pack(s) were stored again from"
                + " the source" + (again.blobs() > 0 ? "; the older backups that use them read again" : "") + "."
                + (notStored > 0
                        ? " " + notStored + " chunk(s) of the "
                                + repo.lostPacks().size() + kind + " pack(s) were"
                                + " not in this source: the backups that need them stay damaged ('ballast verify NAME'"
                                + " names their files)."
                        : ""));
    }

    /**
     * Says what {@link #noteDamage} says, then removes from {@code previous} the entries whose chunks are
     * not all in the index (a prune, a damaged index or a missing pack took them) or that list no chunks at all (not of format 3), with one note saying
     * how many: those files are read and stored again.
     */
    static void dropLost(PackedContent packed, Map<String, ManifestEntry> previous, String name, Consumer<String> err) {
        noteDamage(packed, err);
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
