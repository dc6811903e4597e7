package dev.ballast.backup;

import java.util.List;

/**
 * What a prune deleted (or, in a dry run, would delete), and the unused space it left in the packs
 * of a repository of format 3 (what {@code ballast prune} prints as "Unused space left in packs").
 * The two figures of what was deleted count the same objects: in a store of the earlier formats the
 * object versions (file contents) no manifest references; in a repository of format 3 the packs
 * deleted (those holding no chunk a snapshot needs, and those repacked) and the manifest parts no
 * snapshot names any more (a forgotten snapshot's: a prune after a forget deletes these even when no
 * pack can go yet). Immutable.
 *
 * @param deletedVersions how many objects were deleted (in a dry run: would be), past the grace
 *     period: in a store of the earlier formats, object versions no manifest references; in a
 *     repository of format 3, packs (repacked ones included) and manifest parts (each with every
 *     version it has); never 0 when {@code deletedBytes} is positive
 * @param deletedBytes the stored bytes given back, in bytes: in a store of the earlier formats the
 *     deleted versions' sizes (the space a local store gives back can be less: identical contents
 *     are stored once); in a repository of format 3 the deleted packs' and manifest parts' sizes less
 *     those of the {@code packsWritten} new packs the repack wrote
 * @param skippedNames backup names left alone, each with why ("a backup is running", say); in a
 *     repository of format 3 why nothing was pruned
 * @param dryRun whether nothing was deleted
 * @param unusedBytesLeft in a repository of format 3, the stored bytes (compressed and sealed, as the
 *     packs hold them, headers not counted) of the chunks no snapshot needs that are left in the packs
 *     after the prune (in a dry run: would be left), within the {@code maxUnused} limit unless packs
 *     written within the grace period hold them; 0 in a store of the earlier formats, which has no
 *     packs, and when the prune did nothing ({@code skippedNames} says why)
 * @param storedBytesLeft in a repository of format 3, the stored bytes of every chunk, needed or not,
 *     in the packs after the prune (in a dry run: would be), of which {@code unusedBytesLeft} is a
 *     share ({@code maxUnused} {@code "5%"} allows {@code unusedBytesLeft} up to 5% of it); 0 in a
 *     store of the earlier formats and when the prune did nothing
 * @param packsWritten in a repository of format 3, the new packs the repack wrote (would write) with
 *     the needed chunks of the packs it deleted; 0 in a store of the earlier formats
 */
public record PruneResult(
        int deletedVersions,
        long deletedBytes,
        List<String> skippedNames,
        boolean dryRun,
        long unusedBytesLeft,
        long storedBytesLeft,
        int packsWritten) {
    /** Copies the list. */
    public PruneResult {
        skippedNames = List.copyOf(skippedNames);
    }

    /** A result without unused space left: a prune of a store of the earlier formats, which has no packs. */
    public PruneResult(int deletedVersions, long deletedBytes, List<String> skippedNames, boolean dryRun) {
        this(deletedVersions, deletedBytes, skippedNames, dryRun, 0, 0, 0);
    }

    /**
     * A result without packs written.
     *
     * @deprecated the record has {@code packsWritten} now; use the canonical constructor
     */
    @Deprecated
    public PruneResult(
            int deletedVersions,
            long deletedBytes,
            List<String> skippedNames,
            boolean dryRun,
            long unusedBytesLeft,
            long storedBytesLeft) {
        this(deletedVersions, deletedBytes, skippedNames, dryRun, unusedBytesLeft, storedBytesLeft, 0);
    }
}
