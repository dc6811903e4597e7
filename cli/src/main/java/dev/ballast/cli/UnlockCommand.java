package dev.ballast.cli;

import dev.ballast.backup.retention.PackedPrune;
import dev.ballast.backup.run.RunMarker;
import dev.ballast.backup.snapshot.Manifests;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.VersionEntry;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ballast unlock}: removes the run markers that keep {@code prune} away from a backup name,
 * as restic's {@code unlock}: by default only those of runs known to have ended (not written for
 * {@link RunMarker#STALE}, or written by a process of this host that no longer runs), with
 * {@code --remove-all} every one (restic's {@code unlock --remove-all}), for a backup killed on
 * another machine when none runs any more.
 */
@Command(
        name = "unlock",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        description = "Remove the run markers of backups that are no longer running, which keep 'prune' away from "
                + "their names: a marker not written for 30 minutes, or written by a process of this host that no longer "
                + "runs. A backup killed on another host keeps its marker until then; if no backup of the name runs "
                + "anywhere, --remove-all removes every marker (as restic's unlock --remove-all). Only the NAMEs given, "
                + "or every backup name. In an encrypted repository the packs such runs left without an index are then"
                + " indexed, so the next backup reuses their chunks instead of storing them again.")
final class UnlockCommand extends BallastCommand {
    @Parameters(paramLabel = "NAME", arity = "0..*", description = "Only the markers of these backups (default: all).")
    List<String> names = List.of();

    @Option(
            names = "--remove-all",
            description = "Remove every run marker, also of backups that may still be running: only when no backup of "
                    + "these names runs on any machine (a prune could then delete what such a backup stores).")
    boolean removeAll;

    UnlockCommand(CliContext ctx) {
        super(ctx);
    }

    @Override
    public Integer call() {
        names.forEach(Manifests::checkExistingName);
        // Looked at first as a reading command does: with nothing to remove, nothing is created or written.
        try (StoreSession reader = StoreSession.open(common, ctx, StoreSession.Access.READ)) {
            List<RunMarker.Found> found = Errors.translate(reader.where(), null, () -> markers(reader));
            if (found.stream().allMatch(m -> m.live() && !removeAll)) {
                return report(reader, found, 0);
            }
        }
        try (StoreSession session = StoreSession.open(common, ctx, StoreSession.Access.UPDATE)) {
            return Errors.translate(session.where(), null, () -> unlock(session));
        }
    }

    /** The run markers of the names asked for (all without names), each judged now. */
    private List<RunMarker.Found> markers(StoreSession session) {
        ObjectStore objects = objects(session);
        // Listed by each name's prefix when names are given: in a repository of format 3 the prefix is the name's ID.
        List<VersionEntry> versions = names.isEmpty()
                ? objects.listVersions(RunMarker.PREFIX)
                : names.stream()
                        .map(Manifests::checkExistingName)
                        .distinct()
                        .flatMap(n -> objects.listVersions(RunMarker.prefix(n)).stream())
                        .toList();
        return RunMarker.classify(objects, versions, ctx.clock().instant());
    }

    /** Where the run markers are: the store, or the sealed view of a repository of format 3 ({@link Repository}). */
    private static ObjectStore objects(StoreSession session) {
        return Repository.of(session).metadata();
    }

    /** Removes the markers of runs that ended (every one with --remove-all), naming each. */
    private int unlock(StoreSession session) {
        List<RunMarker.Found> found = markers(session);
        int removed = 0;
        for (RunMarker.Found m : found) {
            if (m.live() && !removeAll) {
                continue;
            }
            for (VersionEntry v : m.versions()) {
                objects(session).deleteVersion(v.key(), v.versionId());
            }
            removed++;
            backupsRemoved |= !m.holds(PackedPrune.PRUNE_MARKER);
            ctx.out()
                    .println("Removed the run marker of " + PackedPrune.markerOf(m) + " (" + m.describe() + ": "
                            + (m.live() ? "--remove-all" : m.deadBecause()) + ").");
        }
        if (backupsRemoved) {
            indexLeftBehind(session);
        }
        return report(session, found, removed);
    }

    /**
     * In a repository of format 3, indexes the packs the runs whose markers were removed left without
     * an index file, as the next backup of such a run's name would have on finding its marker
     * ({@code PackedContent#indexLeftBehind}): with the marker gone, nothing else tells that backup to,
     * and it would store their chunks again. Not while a prune runs (it may be deleting packs).
     */
    private void indexLeftBehind(StoreSession session) {
        try (Repository repo = Repository.of(session)) {
            if (!repo.packed()) {
                return;
            }
            java.util.Optional<String> prune =
                    PackedPrune.runningPrune(repo.sealed(), ctx.clock().instant());
            if (prune.isPresent()) {
                ctx.err()
                        .println("Note: a prune is running (" + prune.get() + "), so the packs the removed runs"
                                + " left were not indexed; the next backup indexes them if their marker is found,"
                                + " else 'ballast repair index' does.");
                return;
            }
            int packs = repo.content(dev.ballast.backup.content.Transfers.DEFAULT_THREADS)
                    .indexLeftBehind();
            if (packs > 0) {
                ctx.out()
                        .println("Indexed " + Summary.count(packs, "pack") + " that runs which did not finish left,"
                                + " so the next backup reuses their chunks instead of storing them again.");
            }
        }
    }

    /** Whether {@link #unlock} removed the marker of a backup (not only of a prune). */
    private boolean backupsRemoved;

    /** Names each marker kept, then one line of totals; exit 0. */
    private int report(StoreSession session, List<RunMarker.Found> found, int removed) {
        int kept = 0;
        for (RunMarker.Found m : found) {
            if (m.live() && !removeAll) {
                kept++;
                ctx.out()
                        .println("Kept the run marker of " + PackedPrune.markerOf(m) + " (" + m.describe()
                                + ", last written " + m.written() + "): it may still be running.");
            }
        }
        for (String name : names) {
            // restic's unlock ends with 0 whatever it found; a name that matches nothing is said, not an error.
            if (found.stream()
                    .noneMatch(m -> m.name().equals(name) || m.shownName().equals(name))) {
                ctx.out()
                        .println("'" + name + "' has "
                                + (Manifests.versions(objects(session), name).isEmpty()
                                        ? "no backups and no run marker in " + session.where()
                                                + "; 'ballast list' shows the backups there."
                                        : "no run marker: it is not locked."));
            }
        }
        ctx.out()
                .println(
                        found.isEmpty()
                                ? "No run markers in " + session.where() + ": no backup name is locked."
                                : "Removed " + removed + " run marker(s), kept " + kept + "."
                                        + (kept > 0
                                                ? " If none of those backups is running on any machine, 'ballast unlock"
                                                        + " --remove-all' removes them too."
                                                : ""));
        return ExitCodes.OK;
    }
}
