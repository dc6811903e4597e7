package dev.ballast.cli;

import dev.ballast.backup.pack.MaxUnused;
import dev.ballast.backup.retention.Forgetting;
import dev.ballast.backup.retention.Forgetting.Backup;
import dev.ballast.backup.retention.Pruner;
import dev.ballast.backup.retention.RetentionPolicy;
import dev.ballast.backup.snapshot.Manifests;
import dev.ballast.backup.snapshot.SealedStore;
import dev.ballast.backup.snapshot.SnapshotTime;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.VersionEntry;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "forget",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        description =
                "Remove manifest versions (backups) of NAME by a retention policy with restic's semantics, or the "
                        + "--manifest-version IDs given. Periods are counted in local time; each rule keeps the newest backup of "
                        + "each of its last N periods, -1 means unlimited. The newest manifest version is never removed. "
                        + "Incomplete runs are not counted by the policy: those newer than the newest complete backup are kept, "
                        + "older ones removed. Stored files stay until 'prune' (or --prune) deletes those no manifest references.")
final class ForgetCommand extends BallastCommand {
    @Parameters(
            index = "0",
            paramLabel = "NAME",
            description = "The backup name; or, for a snapshot none of whose versions opens (so that its name"
                    + " cannot be read), its stored key snapshots/... as 'ballast check' names it, with"
                    + " --manifest-version.")
    String name;

    @Option(
            names = "--keep-last",
            paramLabel = "N",
            converter = OptionValues.KeepCountConverter.class,
            description = "Keep the N newest backups.")
    int keepLast;

    @Option(
            names = "--keep-hourly",
            paramLabel = "N",
            converter = OptionValues.KeepCountConverter.class,
            description = "Keep the newest backup of each of the last N hours that have one.")
    int keepHourly;

    @Option(
            names = "--keep-daily",
            paramLabel = "N",
            converter = OptionValues.KeepCountConverter.class,
            description = "Keep the newest backup of each of the last N days that have one.")
    int keepDaily;

    @Option(
            names = "--keep-weekly",
            paramLabel = "N",
            converter = OptionValues.KeepCountConverter.class,
            description = "Keep the newest backup of each of the last N ISO weeks that have one.")
    int keepWeekly;

    @Option(
            names = "--keep-monthly",
            paramLabel = "N",
            converter = OptionValues.KeepCountConverter.class,
            description = "Keep the newest backup of each of the last N months that have one.")
    int keepMonthly;

    @Option(
            names = "--keep-yearly",
            paramLabel = "N",
            converter = OptionValues.KeepCountConverter.class,
            description = "Keep the newest backup of each of the last N years that have one.")
    int keepYearly;

    @Option(
            names = "--keep-within",
            paramLabel = "SPAN",
            converter = OptionValues.SpanConverter.class,
            description = "Keep every backup made within SPAN (e.g. 1y2m3d4h, 30d) before the newest one.")
    String keepWithin;

    @Option(
            names = "--manifest-version",
            paramLabel = "ID",
            description = "Remove this manifest version (repeatable): " + Manifests.VERSION_FORMS
                    + " (the newest complete one, which forget never removes, nor the newest version).")
    List<String> versionIds = new ArrayList<>();

    @Option(
            names = {"-n", "--dry-run"},
            description = "Print what would be removed; remove nothing.")
    boolean dryRun;

    @Option(names = "--prune", description = "Run 'prune' for NAME afterwards.")
    boolean prune;

    @Option(
            names = "--grace",
            paramLabel = "DURATION",
            defaultValue = "1h",
            converter = PruneCommand.GraceConverter.class,
            description = "With --prune: as prune's --grace (default: ${DEFAULT-VALUE}).")
    Duration grace;

    @Option(
            names = "--max-unused",
            paramLabel = "LIMIT",
            converter = PruneCommand.MaxUnusedConverter.class,
            description = "With --prune: as prune's --max-unused (default: 5%%).")
    @Nullable
    MaxUnused maxUnused;

    ForgetCommand(CliContext ctx) {
        super(ctx);
    }

    @Override
    public Integer call() {
        if (STORED_KEY.matcher(name).matches()) {
            return forgetUnnamed();
        }
        name = Manifests.checkExistingName(name);
        RetentionPolicy policy = policy();
        if (policy.empty() && versionIds.isEmpty()) {
            throw new CliFailure(
                    ExitCodes.USAGE,
                    "No policy was given (a count of 0 is none, as in restic), so nothing would be kept; pass"
                            + " --keep-last, "
                            + "--keep-hourly, --keep-daily, --keep-weekly, --keep-monthly, --keep-yearly or --keep-within, or the "
                            + "--manifest-version to remove"
                            // restic's 'forget ID': the ID alone, taken here for the backup's name
                            + (name.matches("[0-9a-fA-F]{" + Manifests.MIN_PREFIX + ",64}")
                                    ? " (a snapshot's ID goes after its backup's name: 'ballast forget NAME"
                                            + " --manifest-version " + name + "', NAME as 'ballast list' shows it)"
                                    : "")
                            + ".");
        }
        if (!policy.empty() && !versionIds.isEmpty()) {
            throw new CliFailure(ExitCodes.USAGE, "Pass either a policy (--keep-*) or --manifest-version, not both.");
        }
        try (StoreSession session =
                StoreSession.open(common, ctx, dryRun ? StoreSession.Access.READ : StoreSession.Access.REMOVE)) {
            int code = Errors.translate(session.where(), null, () -> forget(session, policy));
            if (prune && !dryRun && code == ExitCodes.OK && Repository.masterKey(session) != null) {
                return PruneCommand.packed(ctx, session, grace, PruneCommand.limit(maxUnused), false);
            }
            if (prune && !dryRun && code == ExitCodes.OK) {
                PruneCommand.notePacksOnly(ctx, maxUnused);
                StoreSpace.Measure before = StoreSpace.bytesOf(session.localDirectory());
                Pruner.Result r = Errors.translate(
                        session.where(),
                        null,
                        () -> Pruner.of(session.objects(), ctx.clock(), grace, false)
                                .run(Set.of(name)));
                int pruned = PruneCommand.report(ctx, r, common.verbose, session.where(), grace);
                PruneCommand.compact(ctx, session);
                ctx.out()
                        .println(StoreSpace.report(
                                before, StoreSpace.bytesOf(session.localDirectory()), r.deletedBytes()));
                return pruned;
            }
            return code;
        }
    }

    /** The stored key of a snapshot in an encrypted repository, which 'ballast check' names when no version opens. */
    private static final java.util.regex.Pattern STORED_KEY =
            java.util.regex.Pattern.compile(java.util.regex.Pattern.quote(SealedStore.SNAPSHOTS) + "[0-9a-f]{64}");

    /**
     * Removes versions of the snapshot stored as {@code name} none of whose versions opens, so that its
     * backup name cannot be known (sealed inside it): by their IDs, as 'ballast check' names them, any of
     * them, the newest too, since no backup can start from a version that does not open.
     */
    private int forgetUnnamed() {
        if (!policy().empty() || versionIds.isEmpty()) {
            throw new CliFailure(
                    ExitCodes.USAGE,
                    "'" + name + "' is the stored key of a snapshot, which forget removes only by"
                            + " --manifest-version ID, as 'ballast check' names its versions.");
        }
        try (StoreSession session =
                        StoreSession.open(common, ctx, dryRun ? StoreSession.Access.READ : StoreSession.Access.REMOVE);
                Repository repo = Repository.of(session)) {
            if (!repo.packed()) {
                throw new CliFailure(
                        ExitCodes.USAGE,
                        "'" + name + "' names a snapshot of an encrypted repository, and " + session.where()
                                + " is a store of the earlier format; pass a backup's name as 'ballast list' shows"
                                + " it.");
            }
            SealedStore sealed = repo.sealed();
            List<VersionEntry> versions = Errors.translate(
                    session.where(), null, () -> sealed.allSnapshotVersions().getOrDefault(name, List.of()));
            if (versions.isEmpty()) {
                throw new CliFailure(
                        ExitCodes.NOT_FOUND,
                        "There is no snapshot stored as '" + name + "' in " + session.where()
                                + "; 'ballast check' names the snapshots whose backup name cannot be read.");
            }
            for (VersionEntry v : versions) {
                String opens = Errors.translate(session.where(), null, () -> nameIfOpens(sealed, v));
                if (opens != null) {
                    throw new CliFailure(
                            ExitCodes.USAGE,
                            "The snapshot stored as '" + name + "' is of the backup '" + Errors.printable(opens)
                                    + "' (its version " + Manifests.shortId(v.versionId()) + " opens); pass '"
                                    + Errors.printable(opens) + "' as its name.");
                }
            }
            // Each version once, however many times and in whichever form it is given.
            java.util.Map<String, VersionEntry> byId = new java.util.LinkedHashMap<>();
            for (String id : versionIds) {
                VersionEntry v = unnamedVersion(versions, id);
                byId.putIfAbsent(v.versionId(), v);
            }
            List<VersionEntry> remove = List.copyOf(byId.values());
            ctx.out()
                    .println((dryRun ? "would remove " : "remove ") + Summary.count(remove.size(), "snapshot")
                            + " stored as '" + name + "' (no version of it opens, so its backup name cannot be"
                            + " read):");
            for (VersionEntry v : remove) {
                ctx.out().println(line(new Backup(v, null), ""));
                if (!dryRun) {
                    Errors.translate(session.where(), null, () -> {
                        sealed.raw().deleteVersion(name, v.versionId());
                        return null;
                    });
                }
            }
            if (dryRun) {
                ctx.out().println("Dry run: nothing was removed.");
                return ExitCodes.OK;
            }
            ctx.out()
                    .println("Removed " + Summary.count(remove.size(), "manifest version") + " stored as '" + name
                            + (prune
                                    ? "'."
                                    : "'; 'ballast prune' deletes the stored files no manifest references any"
                                            + " more."));
            return prune
                    ? PruneCommand.packed(ctx, session, grace, PruneCommand.limit(maxUnused), false)
                    : ExitCodes.OK;
        }
    }

    /**
     * The version of the snapshot stored as {@link #name} that {@code id} selects, as {@link
     * Manifests#byIdOrPrefix} selects one of a backup, but without {@value Manifests#LATEST} (no version of
     * the snapshot opens, so none is the newest complete one), and naming 'ballast check', which lists the
     * IDs of such snapshots ('ballast list' shows them too, by their stored key).
     */
    private VersionEntry unnamedVersion(List<VersionEntry> versions, String id) {
        if (id.equalsIgnoreCase(Manifests.LATEST)) {
            throw new CliFailure(
                    ExitCodes.USAGE,
                    "'" + Manifests.LATEST + "' is not taken for '" + name + "': no version of that snapshot opens,"
                            + " so none is the newest complete one; pass the IDs 'ballast check' names for it.");
        }
        for (VersionEntry v : versions) {
            if (v.versionId().equals(id)) {
                return v;
            }
        }
        if (id.length() < Manifests.MIN_PREFIX) {
            throw new CliFailure(
                    ExitCodes.USAGE,
                    "Manifest version '" + Errors.printable(id) + "' is too short: give the " + Manifests.MIN_PREFIX
                            + "-character short ID or at least " + Manifests.MIN_PREFIX
                            + " characters of the version ID, as 'ballast check' names them.");
        }
        List<VersionEntry> matches = versions.stream()
                .filter(v -> v.versionId().startsWith(id)
                        || Manifests.shortId(v.versionId()).equals(id))
                .toList();
        if (matches.isEmpty()) {
            throw new CliFailure(
                    ExitCodes.NOT_FOUND,
                    "The snapshot stored as '" + name + "' has no version '" + Errors.printable(id)
                            + "'; 'ballast check' names the IDs of the snapshots that do not open.");
        }
        if (matches.size() > 1) {
            StringBuilder each = new StringBuilder();
            for (VersionEntry v : matches) {
                each.append(each.length() == 0 ? "" : ", ").append(Manifests.label(v.versionId()));
            }
            throw new CliFailure(
                    ExitCodes.USAGE,
                    "'" + Errors.printable(id) + "' matches " + matches.size() + " versions of the snapshot stored as '"
                            + name + "': " + each + "; pass the short ID 'ballast check' names or the whole"
                            + " version ID.");
        }
        return matches.get(0);
    }

    /** The backup name {@code v} holds when it opens; null when it does not. */
    private static @Nullable String nameIfOpens(SealedStore sealed, VersionEntry v) {
        try {
            return sealed.readSnapshot(v.key(), v.versionId()).name();
        } catch (dev.ballast.backup.BackupException | dev.ballast.storage.ObjectNotFoundException e) {
            return null;
        }
    }

    private RetentionPolicy policy() {
        try {
            return new RetentionPolicy(
                    keepLast,
                    keepHourly,
                    keepDaily,
                    keepWeekly,
                    keepMonthly,
                    keepYearly,
                    keepWithin == null ? null : RetentionPolicy.Within.parse(keepWithin));
        } catch (IllegalArgumentException e) {
            throw new CliFailure(ExitCodes.USAGE, "The retention policy is not usable: " + e.getMessage() + ".");
        }
    }

    private int forget(StoreSession session, RetentionPolicy policy) {
        ObjectStore store = Repository.of(session).metadata();
        ZoneId zone = ctx.clock().getZone();
        Forgetting.Plan plan;
        if (!versionIds.isEmpty()) {
            plan = Forgetting.byVersions(store, name, versionIds, session.where());
        } else {
            plan = Forgetting.byPolicy(store, name, policy, zone, ctx.clock().instant(), session.where());
            ctx.out()
                    .println("Applying policy: " + policy.describe() + " (periods counted in the local time zone "
                            + zone + "; times shown in UTC)");
        }
        List<String> keepLines = new ArrayList<>();
        plan.keep().forEach(k -> keepLines.add(line(k.backup(), k.why())));
        List<Backup> remove = plan.remove();
        if (!keepLines.isEmpty()) {
            ctx.out().println("keep " + Summary.count(keepLines.size(), "backup") + " of '" + name + "':");
            keepLines.forEach(ctx.out()::println);
        }
        ctx.out()
                .println(
                        remove.isEmpty()
                                ? "nothing to remove of '" + name + "'."
                                : (dryRun ? "would remove " : "remove ") + Summary.count(remove.size(), "backup")
                                        + " of '" + name + "':");
        for (Backup b : remove) {
            ctx.out().println(line(b, ""));
            if (!dryRun) {
                Forgetting.remove(store, name, b);
            }
        }
        ctx.out()
                .println(
                        dryRun
                                ? "Dry run: nothing was removed."
                                : "Removed " + Summary.count(remove.size(), "manifest version") + " of '" + name
                                        + (prune
                                                ? "'."
                                                : "'; 'ballast prune' deletes the stored files no manifest references"
                                                        + " any more."));
        return ExitCodes.OK;
    }

    private static String line(Backup b, String why) {
        String when = SnapshotTime.format(b.time());
        String what = b.manifest() == null
                ? ""
                : String.format(
                        "%s %12s",
                        Summary.countColumn(b.manifest().files().size(), "file"),
                        Summary.size(b.manifest().totalBytes()));
        return String.format(
                "  %s  %-34s %s %s%s",
                Manifests.shortId(b.version().versionId()),
                b.version().versionId(),
                when,
                what,
                why.isEmpty() ? "" : "  " + why);
    }
}
