package dev.ballast.cli;

import dev.ballast.backup.BackupException;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.Manifests;
import dev.ballast.backup.snapshot.SnapshotTime;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.object.VersionEntry;
import java.util.ArrayList;
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
                + "and damaged ones DAMAGED (the others stay restorable); "
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
        found.unreadable().forEach(k -> ctx.err().println(Manifests.unreadableName(k)));
        List<String> names = found.names();
        int unreadable = found.unreadable().size();
        if (names.isEmpty() && unreadable > 0) {
            // Every snapshot there is is damaged: that is not "no backups" (exit 4, as every version damaged is).
            ctx.err()
                    .println("No backup in " + session.where() + " can be listed: " + unreadable
                            + " snapshot(s) are damaged; 'ballast check' names each with the command that removes it.");
            return ExitCodes.INTEGRITY;
        }
        if (names.isEmpty()) {
            ctx.out().println("No backups in " + session.where() + ".");
            return ExitCodes.OK;
        }
        int damaged = 0;
        for (String name : names) {
            ctx.out().println(name);
            boolean latestShown = false;
            List<Row> rows = new ArrayList<>();
            for (VersionEntry v : Manifests.versions(repo.metadata(), name)) {
                String detail;
                Manifest m = null;
                // "(latest)" marks what --manifest-version latest selects: the newest complete, intact one.
                boolean latest = false;
                try {
                    m = Manifests.read(repo.metadata(), name, v.versionId());
                    latest = !latestShown && m.complete();
                    latestShown |= latest;
                    detail = String.format(
                            "%s %12s  %s%s%s",
                            Summary.countColumn(m.files().size(), "file"),
                            Summary.mib(m.totalBytes()),
                            shown(m.source()),
                            m.complete()
                                    ? m.missing() == 0
                                            ? ""
                                            : "  " + m.missing() + " not stored (in no earlier backup either)"
                                    : "  INCOMPLETE (" + m.notStored().size() + " not stored)",
                            m.stale().isEmpty() ? "" : "  " + m.stale().size() + " stale (not stored by this run)");
                } catch (ObjectNotFoundException e) {
                    detail = " removed";
                } catch (BackupException e) {
                    damaged++;
                    detail = Manifests.damaged(e)
                            ? " DAMAGED (" + Errors.printable(Manifests.why(e)) + ")"
                            : " unreadable manifest (" + Errors.printable(e.getMessage()) + ")";
                }
                rows.add(new Row(
                        String.format(
                                "  %s  %-40s %s",
                                Manifests.shortId(v.versionId()),
                                v.versionId(),
                                SnapshotTime.format(SnapshotTime.instant(m, v))),
                        shown(m == null ? null : m.host()),
                        detail + (latest ? "  (latest)" : "")));
            }
            // The host column as wide as its widest name, as restic's snapshots sizes its columns.
            int hostWidth = rows.stream().mapToInt(r -> r.host().length()).max().orElse(1);
            for (Row r : rows) {
                ctx.out()
                        .println(r.start() + "  " + r.host()
                                + " ".repeat(hostWidth - r.host().length()) + " " + r.rest());
            }
        }
        if (damaged > 0) {
            ctx.err()
                    .println("Warning: " + damaged
                            + " manifest version(s) are damaged and cannot be restored; restore and "
                            + "backup pass over them and use the newest intact one.");
        }
        return ExitCodes.OK;
    }

    /** One version's line: short ID, version ID and time; the host; the rest. */
    private record Row(String start, String host, String rest) {}

    /** A recorded source path or host as messages print names, or "-" for a snapshot that does not record it. */
    static String shown(@Nullable String recorded) {
        return recorded == null ? "-" : Errors.printable(recorded);
    }
}
