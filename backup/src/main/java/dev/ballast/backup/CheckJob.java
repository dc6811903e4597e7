package dev.ballast.backup;

import dev.ballast.backup.snapshot.SealedStore;
import dev.ballast.backup.verify.DataSubset;
import dev.ballast.backup.verify.RepositoryCheck;
import org.jspecify.annotations.Nullable;

/** {@link Backups#check(String)}: the whole repository checked, nothing written. */
final class CheckJob extends Job {
    CheckJob(Settings settings) {
        super(settings);
    }

    /** See {@link Backups#check(String)}. */
    CheckResult check(@Nullable String readDataSubset) {
        DataSubset subset = subset(readDataSubset);
        if (key == null || !(view instanceof SealedStore sealed)) {
            throw new BackupException(
                    BackupException.Kind.INVALID_INPUT,
                    "A check of the whole repository applies to an encrypted repository (format 3); in a store of"
                            + " the earlier formats, verify each backup name.");
        }
        return RepositoryCheck.run(sealed, store, key, transfers, subset, clock);
    }
}
