package dev.ballast.backup;

import dev.ballast.backup.content.PackedBlobs;
import dev.ballast.backup.retention.PackedRepair;
import dev.ballast.backup.snapshot.SealedStore;

/** {@link Backups#repair(boolean)}: one repair of a repository of format 3. */
final class RepairJob extends Job {
    RepairJob(Settings settings) {
        super(settings);
    }

    /** See {@link Backups#repair(boolean)}. */
    RepairResult repair(boolean readData) {
        if (key == null || !(view instanceof SealedStore sealed)) {
            throw new BackupException(
                    BackupException.Kind.INVALID_INPUT,
                    "Repair of packs and their index applies to an encrypted repository (format 3); a store of the"
                            + " earlier formats has neither: verify it, and back its damaged files up again.");
        }
        try (PackedBlobs content = PackedBlobs.open(store, key, transfers)) {
            PackedRepair.Result r = PackedRepair.run(sealed, content.blobs(), pack -> readData, clock);
            return new RepairResult(r.report(), r.skipped());
        }
    }
}
