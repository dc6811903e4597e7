package dev.ballast.cli;

import dev.ballast.backup.BackupException;
import dev.ballast.backup.snapshot.ManifestSummary;
import dev.ballast.backup.snapshot.Manifests;
import dev.ballast.backup.snapshot.SnapshotTime;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.object.VersionEntry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;

@Command(
        name = "list",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        description = "List the backups in the bucket, each with its manifest versions (newest first), the time "
                + "each backup started (in UTC, the time ls, restore and forget show for it too), the host it ran on, "
                + "file counts and sizes, and the directory it backed up (- where a backup made before they were "
                + "recorded does not say); versions from runs that did not finish are marked INCOMPLETE, those with files "
                + "the run could not store are marked stale (an earlier backup's copy kept) or not stored (none to keep), "
                + "and damaged ones DAMAGED (the others stay restorable; exit 4); a snapshot none of whose versions "
                + "opens, so that its name cannot be read, is listed by its stored key snapshots/<id>; "
                + "(latest) marks the newest complete one, the one --manifest-version latest selects.")
final class ListCommand extends BallastCommand {
    ListCommand(CliContext ctx) {
        super(ctx);
    }

    @Override
    public Integer call() {
        try (StoreSession session = StoreSession.open(common, ctx, StoreSession.Access.READ);
                Repository repo = Repository.of(session)) {
            return Errors.translate(session.where(), null, () -> list(session, repo));
        }
    }

    private int list(StoreSession session, Repository repo) {
        dev.ballast.backup.snapshot.SealedStore.Names found = Manifests.names(repo.metadata());
        found.unreadable().forEach(k -> ctx.err().println(CliWording.reword(Manifests.unreadableName(k))));
        List<String> names = found.names();
        if (names.isEmpty() && found.unreadable().isEmpty()) {
            ctx.out().println("No backups in " + session.where() + ".");
            return ExitCodes.OK;
        }
        int damaged = 0;
        for (String name : names) {
            ctx.out().println(name);
            boolean latestShown = false;
            List<Row> rows = new ArrayList<>();
            for (Manifests.SummaryRead read :
                    Manifests.summaries(repo.metadata(), name, Manifests.versions(repo.metadata(), name))) {
                VersionEntry v = read.version();
                String detail;
                ManifestSummary m = null;
                // "(latest)" marks what --manifest-version latest selects: the newest complete, intact one.
                boolean latest = false;
                try {
                    if (read.failure() != null) {
                        throw read.failure();
                    }
                    m = java.util.Objects.requireNonNull(read.summary());
                    if (!latestShown && m.complete()) {
                        // The one version read whole: the head says nothing of the entries in its parts, and
                        // "(latest)" must be what restore picks, which passes over a manifest that does not read.
                        Manifests.read(repo.metadata(), name, v.versionId());
                        latest = true;
                        latestShown = true;
                    }
                    detail = String.format(
                            "%s %12s  %s%s%s",
                            Summary.countColumn(m.fileCount(), "file"),
                            Summary.size(m.totalBytes()),
                            shown(m.source()),
                            m.complete()
                                    ? m.missing() == 0
                                            ? ""
                                            : "  " + m.missing() + " not stored (in no earlier backup either)"
                                    : "  INCOMPLETE (" + m.notStored() + " not stored)",
                            m.stale() == 0 ? "" : "  " + m.stale() + " stale (not stored by this run)");
                } catch (ObjectNotFoundException e) {
                    detail = " removed";
                } catch (BackupException e) {
                    damaged++;
                    detail = damagedDetail(e);
                    m = null;
                }
                rows.add(row(v, m, detail + (latest ? "  (latest)" : "")));
            }
            print(rows);
        }
        // A snapshot none of whose versions opens cannot tell its name: shown by its stored key, which
        // 'ballast forget KEY --manifest-version ID' takes, each version marked as a damaged one of a name is.
        for (String key : found.unreadable()) {
            ctx.out().println(Errors.printable(key));
            List<VersionEntry> versions =
                    new ArrayList<>(repo.sealed().allSnapshotVersions().getOrDefault(key, List.of()));
            versions.sort(Comparator.comparing(VersionEntry::lastModified).reversed());
            List<Row> rows = new ArrayList<>();
            for (VersionEntry v : versions) {
                String detail;
                try {
                    repo.sealed().readSnapshot(key, v.versionId());
                    detail = " opens now (run list again)";
                } catch (ObjectNotFoundException e) {
                    detail = " removed";
                } catch (BackupException e) {
                    damaged++;
                    detail = damagedDetail(e);
                }
                rows.add(row(v, null, detail));
            }
            print(rows);
        }
        if (damaged > 0) {
            ctx.err()
                    .println("Warning: " + damaged
                            + " manifest version(s) are damaged and cannot be restored; restore and "
                            + "backup pass over them and use the newest intact one.");
            return ExitCodes.INTEGRITY;
        }
        return ExitCodes.OK;
    }

    private static String damagedDetail(BackupException e) {
        return Manifests.damaged(e)
                ? " DAMAGED (" + Errors.printable(Manifests.why(e)) + ")"
                : " unreadable manifest (" + Errors.printable(e.getMessage()) + ")";
    }

    private static Row row(VersionEntry v, @Nullable ManifestSummary m, String rest) {
        return new Row(
                String.format(
                        "  %s  %-40s %s",
                        Manifests.shortId(v.versionId()),
                        v.versionId(),
                        SnapshotTime.format(m != null ? m.createdAt() : v.lastModified())),
                shown(m == null ? null : m.host()),
                rest);
    }

    /** The rows of one backup, the host column as wide as its widest name, as restic's snapshots sizes its columns. */
    private void print(List<Row> rows) {
        int hostWidth = rows.stream().mapToInt(r -> r.host().length()).max().orElse(1);
        for (Row r : rows) {
            ctx.out()
                    .println(r.start() + "  " + r.host()
                            + " ".repeat(hostWidth - r.host().length()) + " " + r.rest());
        }
    }

    /** One version's line: short ID, version ID and time; the host; the rest. */
    private record Row(String start, String host, String rest) {}

    /** A recorded source path or host as messages print names, or "-" for a snapshot that does not record it. */
    static String shown(@Nullable String recorded) {
        return recorded == null ? "-" : Errors.printable(recorded);
    }
}
