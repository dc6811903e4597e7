package dev.ballast.backup;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What a check of a whole repository of format 3 found ({@link Backups#check}, {@code ballast check}),
 * as restic's {@code check} reports it: the packs against the index (and, for the packs read, every
 * chunk against its ID), then every snapshot of every backup name against the chunks that are left.
 * Nothing in the repository is written by the check.
 *
 * @param names backup names found: one per snapshot object, also one none of whose versions opens
 * @param snapshots manifest versions read (every version of every name)
 * @param packsChecked packs the index names, each checked present with the size the index implies
 * @param packsRead packs read whole (every one, or those the read-data subset picked)
 * @param chunksRead chunks opened, decompressed and matched against their IDs
 * @param damage each damaged or missing object (a pack, one chunk in it, an index file), one clause
 *     each ({@code "data/ab/ab12...: it is missing; the index names 40 blobs in it"}), in key order
 * @param snapshotDamage each snapshot that cannot be restored in full, newest first within a name
 * @param unindexedPacks packs in the store that no index file names (a killed run's, or a running
 *     backup's): not damage; {@code ballast repair index} indexes them
 */
public record CheckResult(
        int names,
        int snapshots,
        int packsChecked,
        int packsRead,
        long chunksRead,
        List<String> damage,
        List<SnapshotDamage> snapshotDamage,
        int unindexedPacks) {
    /** Copies the lists. */
    public CheckResult {
        damage = List.copyOf(damage);
        snapshotDamage = List.copyOf(snapshotDamage);
    }

    /** Whether nothing damaged or missing was found. */
    public boolean ok() {
        return damage.isEmpty() && snapshotDamage.isEmpty();
    }

    /**
     * One snapshot that cannot be restored in full.
     *
     * @param name its backup name, or the stored key of a snapshot none of whose versions opens
     * @param versionId its manifest version ID (empty when no version opens)
     * @param startedAt when its run started, or the store's write time when the manifest does not open
     * @param reason one clause: why the manifest does not open, or how many files lack chunks
     * @param files the files that lack a chunk (no pack holds it intact), in manifest order; empty when
     *     the manifest itself is damaged
     */
    public record SnapshotDamage(String name, String versionId, Instant startedAt, String reason, List<String> files) {
        /** Checks and copies. */
        public SnapshotDamage {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(versionId, "versionId");
            Objects.requireNonNull(startedAt, "startedAt");
            Objects.requireNonNull(reason, "reason");
            files = List.copyOf(files);
        }
    }
}
