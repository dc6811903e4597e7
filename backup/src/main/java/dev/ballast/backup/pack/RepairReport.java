package dev.ballast.backup.pack;

import java.util.List;

/**
 * What {@link BlobRepository#repair} found and did.
 *
 * @param packsIndexed packs no intact index file named, now in the index from their headers (a killed
 *     run's packs, or those a damaged index file named)
 * @param indexFilesReplaced damaged index files, deleted once the new index named what they named
 * @param restoredPacks packs the index named that were deleted by hand (not by a prune, which removes
 *     every version) and that the store's versioning still kept: made current again by removing the
 *     delete markers above their newest version, and read as before
 * @param missingPacks packs the index named that are not in the store (and have no earlier version),
 *     now dropped from the index
 * @param salvagedPacks damaged packs: their intact blobs copied into new packs, then the pack deleted
 * @param blobsLost blobs no pack holds any more (of the missing and damaged packs): the snapshots naming
 *     them are damaged until a backup (or {@code verify --repair}) stores them again from the source
 * @param packsRead packs read whole and every blob opened ({@code readData} of {@code repair})
 * @param damage everything found damaged or missing, in key order (as {@link BlobRepository#check} reports it)
 * @param unreadablePacks packs no index names whose header does not open: left as they are (a prune
 *     deletes them once they are older than its grace period)
 */
public record RepairReport(
        int packsIndexed,
        List<String> indexFilesReplaced,
        List<String> restoredPacks,
        List<String> missingPacks,
        List<String> salvagedPacks,
        long blobsLost,
        int packsRead,
        List<CheckReport.Damage> damage,
        List<String> unreadablePacks) {
    public RepairReport {
        indexFilesReplaced = List.copyOf(indexFilesReplaced);
        restoredPacks = List.copyOf(restoredPacks);
        missingPacks = List.copyOf(missingPacks);
        salvagedPacks = List.copyOf(salvagedPacks);
        damage = List.copyOf(damage);
        unreadablePacks = List.copyOf(unreadablePacks);
    }

    /** Whether the repair wrote or deleted anything. */
    public boolean changed() {
        return packsIndexed > 0
                || !indexFilesReplaced.isEmpty()
                || !restoredPacks.isEmpty()
                || !missingPacks.isEmpty()
                || !salvagedPacks.isEmpty();
    }
}
