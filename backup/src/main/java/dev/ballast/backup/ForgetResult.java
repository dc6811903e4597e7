package dev.ballast.backup;

import java.util.List;

/**
 * What a forget kept and removed (or, in a dry run, would remove): manifest version IDs, newest
 * first as they were listed. Removing a manifest version deletes no stored file: {@link
 * Backups#prune} does, for the files no remaining manifest references.
 *
 * @param kept the versions kept, each with why ("keep-last 3", "newest manifest version", ...)
 * @param removed the versions removed
 * @param dryRun whether nothing was removed
 */
public record ForgetResult(List<String> kept, List<String> removed, boolean dryRun) {
    /** Copies the lists. */
    public ForgetResult {
        kept = List.copyOf(kept);
        removed = List.copyOf(removed);
    }
}
