package dev.ballast.backup;

import dev.ballast.backup.retention.Forgetting;
import dev.ballast.backup.retention.RetentionPolicy;
import dev.ballast.backup.snapshot.Manifests;
import java.util.ArrayList;
import java.util.List;

/** {@link Backups#forget(String, RetentionPolicy, boolean)}: one forget by a retention policy. */
final class ForgetJob extends Job {
    ForgetJob(Settings settings) {
        super(settings);
    }

    /** See {@link Backups#forget(String, RetentionPolicy, boolean)}. */
    ForgetResult forget(String name, RetentionPolicy policy, boolean dryRun) {
        String n = Manifests.checkExistingName(name);
        if (policy.empty()) {
            throw new BackupException(
                    BackupException.Kind.INVALID_INPUT,
                    "No retention rule was given, so nothing would be kept; give at least one keep count or span.");
        }
        Forgetting.Plan plan =
                Forgetting.byPolicy(view, n, policy, clock.getZone(), clock.instant(), "the object store");
        List<ForgetResult.Kept> kept = new ArrayList<>();
        plan.keep()
                .forEach(k -> kept.add(new ForgetResult.Kept(
                        k.backup().version().versionId(), k.backup().time(), k.why())));
        List<String> removed = new ArrayList<>();
        for (Forgetting.Backup b : plan.remove()) {
            if (!dryRun) {
                Forgetting.remove(view, n, b);
            }
            removed.add(b.version().versionId());
        }
        return new ForgetResult(kept, removed, dryRun);
    }
}
