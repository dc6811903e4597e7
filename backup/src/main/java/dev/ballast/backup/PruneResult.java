package dev.ballast.backup;

import java.util.List;

/**
 * What a prune deleted (or, in a dry run, would delete).
 *
 * @param deletedVersions object versions no manifest references, past the grace period, deleted
 * @param deletedBytes their total size in bytes (the space a local store gives back can be less:
 *     identical contents are stored once)
 * @param skippedNames backup names left alone, each with why ("a backup is running", say)
 * @param dryRun whether nothing was deleted
 */
public record PruneResult(int deletedVersions, long deletedBytes, List<String> skippedNames, boolean dryRun) {
    /** Copies the list. */
    public PruneResult {
        skippedNames = List.copyOf(skippedNames);
    }
}
