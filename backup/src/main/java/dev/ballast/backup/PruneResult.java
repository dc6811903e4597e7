package dev.ballast.backup;

import java.util.List;

/**
 * What a prune deleted (or, in a dry run, would delete), and the unused space it left in the packs
 * of a repository of format 3 (what {@code ballast prune} prints as "Unused space left in packs").
 *
 * @param deletedVersions object versions no manifest references, past the grace period, deleted (in
 *     a repository of format 3: packs deleted, repacked ones included)
 * @param deletedBytes their total size in bytes (the space a local store gives back can be less:
 *     identical contents are stored once)
 * @param skippedNames backup names left alone, each with why ("a backup is running", say)
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
 */
public record PruneResult(
        int deletedVersions,
        long deletedBytes,
        List<String> skippedNames,
        boolean dryRun,
        long unusedBytesLeft,
        long storedBytesLeft) {
    /** Copies the list. */
    public PruneResult {
        skippedNames = List.copyOf(skippedNames);
    }

    /** A result without unused space left: a prune of a store of the earlier formats, which has no packs. */
    public PruneResult(int deletedVersions, long deletedBytes, List<String> skippedNames, boolean dryRun) {
        this(deletedVersions, deletedBytes, skippedNames, dryRun, 0, 0);
    }
}
