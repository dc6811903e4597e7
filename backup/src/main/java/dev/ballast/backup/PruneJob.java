package dev.ballast.backup;

import dev.ballast.backup.content.PackedBlobs;
import dev.ballast.backup.pack.MaxUnused;
import dev.ballast.backup.retention.PackedPrune;
import dev.ballast.backup.retention.Pruner;
import dev.ballast.backup.snapshot.SealedStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** {@link Backups#prune(java.time.Duration, String, boolean)}: one prune, of either format. */
final class PruneJob extends Job {
    PruneJob(Settings settings) {
        super(settings);
    }

    /** See {@link Backups#prune(Duration, String, boolean)}. */
    PruneResult prune(Duration grace, String maxUnused, boolean dryRun) {
        MaxUnused limit;
        try {
            limit = MaxUnused.parse(maxUnused);
        } catch (IllegalArgumentException e) {
            throw new BackupException(
                    BackupException.Kind.INVALID_INPUT, "The unused space limit " + e.getMessage() + ".");
        }
        if (key != null) {
            return prunePacked(grace, limit, dryRun);
        }
        Pruner.Result r = Pruner.of(store, clock, grace, dryRun).run(null);
        List<String> skipped = new ArrayList<>();
        r.skipped().forEach(s -> skipped.add(s.name() + ": " + s.skippedBecause()));
        return new PruneResult(r.deletedVersions(), r.deletedBytes(), skipped, r.dryRun());
    }

    /** {@link #prune} of a repository of format 3 ({@link PackedPrune}). */
    private PruneResult prunePacked(Duration grace, MaxUnused maxUnused, boolean dryRun) {
        try (PackedBlobs content = PackedBlobs.open(store, key, transfers)) {
            PackedPrune.Result r = dryRun
                    ? PackedPrune.plan((SealedStore) view, content, clock, grace, maxUnused)
                    : PackedPrune.run((SealedStore) view, content, clock, grace, maxUnused);
            if (r.pruned().liveMissing() > 0) {
                listener.notice("Warning: " + r.pruned().liveMissing() + " chunk(s) a snapshot references are in no"
                        + " pack in the store, or in none where they open (a pack the index names is missing or"
                        + " damaged, or they were never indexed): the"
                        + " snapshots that use them are damaged until a backup of a source that still has the files"
                        + " stores them again; verify names the files.");
            }
            // The same objects in both figures: the packs (repacked ones included) and the manifest parts.
            return new PruneResult(
                    r.pruned().packsDeleted() + r.parts().parts(),
                    r.bytesFreed(),
                    r.skipped(),
                    dryRun,
                    r.pruned().unusedBytesLeft(),
                    r.pruned().storedBytesLeft(),
                    r.pruned().packsWritten());
        }
    }
}
