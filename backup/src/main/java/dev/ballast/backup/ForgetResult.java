package dev.ballast.backup;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What a forget kept and removed (or, in a dry run, would remove), newest first as they were listed.
 * Removing a manifest version deletes no stored file: {@link Backups#prune} does, for the files no
 * remaining manifest references. Immutable.
 *
 * @param keptSnapshots the snapshots kept, each with its version ID, time and why
 * @param removed the version IDs of the snapshots removed
 * @param dryRun whether nothing was removed
 */
public record ForgetResult(List<Kept> keptSnapshots, List<String> removed, boolean dryRun) {
    /** Copies the lists. */
    public ForgetResult {
        keptSnapshots = List.copyOf(keptSnapshots);
        removed = List.copyOf(removed);
    }

    /**
     * The snapshots kept, each as {@link Kept#toString()}: {@code "VERSION-ID (REASON)"}.
     *
     * @deprecated a string mixes the ID and the reason; {@link #keptSnapshots()} gives them apart
     */
    @Deprecated
    public List<String> kept() {
        return keptSnapshots.stream().map(Kept::toString).toList();
    }

    /**
     * One snapshot a forget kept.
     *
     * @param versionId its manifest version ID
     * @param createdAt when its run started (the version's last-modified time when its manifest was not
     *     read: a damaged one)
     * @param reason why it was kept, as the policy's rules that kept it, comma-separated ("last
     *     snapshot", "daily snapshot, weekly snapshot", "within 30d", "newest manifest version", ...)
     */
    public record Kept(String versionId, Instant createdAt, String reason) {
        /** Checks that none is null. */
        public Kept {
            Objects.requireNonNull(versionId, "versionId");
            Objects.requireNonNull(createdAt, "createdAt");
            Objects.requireNonNull(reason, "reason");
        }

        /** {@code "VERSION-ID (REASON)"}, as {@link ForgetResult#kept()} gave it. */
        @Override
        public String toString() {
            return versionId + " (" + reason + ")";
        }
    }
}
