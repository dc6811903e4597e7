package dev.ballast.cli;

import dev.ballast.backup.Futures;
import dev.ballast.backup.Messages;
import dev.ballast.backup.content.PackedContent;
import dev.ballast.backup.keys.CipherWarmUp;
import dev.ballast.backup.restore.RestoreRunner;
import dev.ballast.backup.restore.RestoreSelection;
import dev.ballast.backup.retention.PackedRepair;
import dev.ballast.backup.run.RestoreLock;
import dev.ballast.backup.snapshot.DamagedVersions;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.Manifests;
import dev.ballast.backup.snapshot.SnapshotTime;
import dev.ballast.backup.tree.Attributes;
import dev.ballast.backup.tree.Glob;
import dev.ballast.backup.tree.Names;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "restore",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        description = "Restore backup NAME into TARGET-DIR: the newest complete backup (a damaged manifest is "
                + "passed over for the newest intact one, and files the run could not store are listed as stale), or the "
                + "one given by --manifest-version. Every file is written under a temporary name, checked while it is "
                + "written (in an encrypted repository each chunk against its ID and the file against its size; in "
                + "a store of the earlier format its SHA-256 against the manifest), then renamed into place; "
                + "--transfers files at a time. "
                + "Before it reports complete, the restore syncs what it wrote to disk (sync -f, once per file "
                + "system; where that cannot run, each file before its rename). Manifest paths that are "
                + "absolute, contain '..' or would land outside TARGET-DIR are refused. An existing file that "
                + "differs from the backup is never replaced unless --overwrite is given; identical ones are "
                + "left as they are. Modes, mtimes, directories (empty ones too), hard links and symbolic links are "
                + "restored as recorded; owners too when run as root. PATH arguments and --include/--exclude "
                + "restore a part: each PATH is a file or directory of the backup (with everything under it), "
                + "patterns are restic's, matched against the path in the backup with a leading '/'.")
final class RestoreCommand extends BallastCommand {
    @Parameters(index = "0", paramLabel = "NAME", description = "The backup name ('ballast list' shows them).")
    String name;

    @Parameters(index = "1", paramLabel = "TARGET-DIR", description = "Where to restore; created if missing.")
    Path target;

    @Parameters(
            index = "2..*",
            paramLabel = "PATH",
            arity = "0..*",
            description = "Restore only these files or directories of the backup (paths as 'ballast ls NAME' and the "
                    + "manifest name them, e.g. 'docs/2026'), kept at their path under TARGET-DIR.")
    List<String> paths = new ArrayList<>();

    @Option(
            names = {"-i", "--include"},
            paramLabel = "PATTERN",
            description = "Restore only what matches PATTERN (repeatable), e.g. '*.jpg', '/docs', 'src/**/*.java'.")
    List<String> includes = new ArrayList<>();

    @Option(
            names = {"-e", "--exclude"},
            paramLabel = "PATTERN",
            description =
                    "Do not restore what matches PATTERN (repeatable); a directory matched leaves out all under it.")
    List<String> excludes = new ArrayList<>();

    @Option(
            names = "--manifest-version",
            paramLabel = "ID",
            description = "Restore this manifest version instead of the newest complete one: " + Manifests.VERSION_HELP)
    String manifestVersion;

    @Option(names = "--overwrite", description = "Replace existing files that differ from the backup.")
    boolean overwrite;

    @Mixin
    TransferOptions transferOptions;

    RestoreCommand(CliContext ctx) {
        super(ctx);
    }

    /** The part of the chosen manifest to restore; refuses a PATH that names nothing, or an empty selection. */
    private RestoreSelection.Selected select(RestoreSelection selection, Manifests.Versioned chosen) {
        return selection.selectOrRefuse(name, chosen);
    }

    static List<Glob> globs(String option, List<String> patterns) {
        List<Glob> globs = new ArrayList<>();
        for (String p : patterns) {
            try {
                globs.add(Glob.parse(p));
            } catch (IllegalArgumentException e) {
                throw new CliFailure(
                        ExitCodes.USAGE,
                        option + " '" + p + "' is not a usable pattern: " + e.getMessage()
                                + "; pass a pattern such as '*.jpg', 'docs' or '/docs/2026'.");
            }
        }
        return globs;
    }

    /**
     * A restore never writes into the local store it reads: a target inside the store, or a backup
     * entry that would land in it (the store lies inside the target), is refused before anything is
     * written. Replacing the store's {@code index.db} with a backed-up file of that name would lose
     * every backup in it.
     */
    private void refuseWritingIntoTheStore(Manifest m, @Nullable Path storeDirectory) {
        if (storeDirectory == null) {
            return;
        }
        Path store = realOrAbsolute(storeDirectory);
        Path into = realOrAbsolute(target);
        if (into.startsWith(store)) {
            throw new CliFailure(
                    ExitCodes.USAGE,
                    "'" + target + "' lies inside the local store this restore reads (" + store
                            + "); pass a directory outside it.");
        }
        if (!store.startsWith(into)) {
            return;
        }
        String inside = Names.relative(into, store);
        List<String> all = new ArrayList<>();
        m.files().forEach(e -> all.add(e.path()));
        m.tree().directories().forEach(d -> all.add(d.path()));
        m.tree().symlinks().forEach(l -> all.add(l.path()));
        m.tree().hardLinks().forEach(l -> all.add(l.path()));
        for (String path : all) {
            if (path.equals(inside) || path.startsWith(inside + "/")) {
                throw new CliFailure(
                        ExitCodes.USAGE,
                        "'" + path + "' would be written into the local store this restore reads (" + store
                                + "); restore into another directory, or leave it out with --exclude '/" + inside
                                + "'.");
            }
        }
    }

    /** {@code p} with its existing part's symbolic links resolved (the rest need not exist yet). */
    private static Path realOrAbsolute(Path p) {
        Path abs = p.toAbsolutePath().normalize();
        Path existing = abs;
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            return abs;
        }
        try {
            return existing.toRealPath().resolve(existing.relativize(abs));
        } catch (java.io.IOException e) {
            return abs;
        }
    }

    @Override
    public Integer call() throws Exception {
        name = Manifests.checkExistingName(name);
        RestoreSelection selection =
                new RestoreSelection(paths, globs("--include", includes), globs("--exclude", excludes));
        if (target.toString().isBlank()) {
            throw new CliFailure(
                    ExitCodes.USAGE,
                    "TARGET-DIR is empty; pass the directory to restore into (it is created if missing).");
        }
        if (Files.exists(target, LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(target)) {
            throw new CliFailure(
                    ExitCodes.USAGE,
                    "'" + target + "' exists and is not a directory; pass a directory to " + "restore into.");
        }
        Path existing = target.toAbsolutePath();
        while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
            existing = existing.getParent();
        }
        if (existing != null && !Files.isDirectory(existing)) {
            throw new CliFailure(
                    ExitCodes.USAGE,
                    "'" + target + "' cannot be created because '" + existing
                            + "' is not a directory; pass a directory to restore into.");
        }
        transferOptions.check(ctx.out()); // a bad --transfers refused before the store is opened
        CipherWarmUp.start(); // a restore opens file content in bulk: its ciphers compile while the key is derived
        try (StoreSession session = StoreSession.open(common, ctx, StoreSession.Access.READ);
                Repository repo = Repository.of(session);
                // A prune or repair does not delete packs while this restore reads them (restic's shared lock).
                RestoreLock prunesWait = repo.packed()
                        ? Errors.translate(
                                session.where(),
                                null,
                                () -> RestoreLock.forReading(repo.sealed(), ctx.clock(), "restore"))
                        : RestoreLock.shared(null)) {
            // The index is read while the snapshot is chosen and read: on S3, three requests and the
            // index's decoding that no longer wait for the snapshot's (about 0.3 s from Ceph RGW).
            CompletableFuture<PackedContent> index = repo.packed() ? loadIndex(repo) : null;
            // So is the record of damaged versions: on S3 a request (a 404, mostly) that no longer follows the
            // snapshot's. Its warning, if any, is printed where it was before.
            List<String> damagedNotes = new java.util.concurrent.CopyOnWriteArrayList<>();
            CompletableFuture<DamagedVersions> damaged = startedThread(
                    "ballast-damaged-read", () -> DamagedVersions.load(repo.metadata(), name, damagedNotes::add));
            try {
                return restore(session, repo, selection, index, damaged, damagedNotes);
            } finally {
                // A restore that ended before it needed these (no such backup, say) does not wait for a slow
                // store's answer: a second at most, then the repository's close closes whatever the reads open.
                for (CompletableFuture<?> read : java.util.Arrays.asList(index, damaged)) {
                    if (read != null) {
                        try {
                            read.exceptionally(e -> null).get(1, java.util.concurrent.TimeUnit.SECONDS);
                        } catch (java.util.concurrent.TimeoutException stillReading) {
                            // left to end on its own (a daemon thread)
                        }
                    }
                }
            }
        }
    }

    /** Starts reading the repository's index on a thread of its own. */
    private CompletableFuture<PackedContent> loadIndex(Repository repo) {
        return startedThread("ballast-index-load", () -> repo.content(transferOptions.transfers));
    }

    /** {@code work} on a daemon thread of its own named {@code name}, started now; its result or failure. */
    private static <T> CompletableFuture<T> startedThread(String name, java.util.function.Supplier<T> work) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread t = new Thread(
                () -> {
                    try {
                        result.complete(work.get());
                    } catch (RuntimeException | Error e) {
                        result.completeExceptionally(e);
                    }
                },
                name);
        t.setDaemon(true);
        t.start();
        return result;
    }

    private Integer restore(
            StoreSession session,
            Repository repo,
            RestoreSelection selection,
            @Nullable CompletableFuture<PackedContent> index,
            CompletableFuture<DamagedVersions> damagedRead,
            List<String> damagedNotes)
            throws Exception {
        Manifests.Versioned chosen = Errors.translate(
                session.where(),
                null,
                () -> Manifests.select(repo.metadata(), name, manifestVersion, session.where(), ctx.err()::println));
        RestoreSelection.Selected selected = select(selection, chosen);
        Manifest m = selected.manifest();
        refuseWritingIntoTheStore(m, session.localDirectory());
        ctx.out()
                .println("Restoring '" + name + "' (manifest version "
                        + Manifests.label(chosen.version().versionId()) + " of "
                        + SnapshotTime.of(m) + ", " + m.files().size() + (selection.all() ? "" : " selected")
                        + (m.files().size() == 1 ? " file, " : " files, ") + Summary.size(m.totalBytes()) + ") into "
                        + target.toAbsolutePath());
        DamagedVersions damaged = Errors.translate(session.where(), null, () -> Futures.join(damagedRead));
        damagedNotes.forEach(ctx.err()::println);
        RestoreRunner runner = new RestoreRunner(
                        repo.metadata(),
                        m,
                        target,
                        overwrite,
                        transferOptions.transfers,
                        ctx.cancellation(),
                        x -> Progress.create(
                                "restore " + name,
                                x.files().size(),
                                x.totalBytes(),
                                ctx.terminal(),
                                ctx.out(),
                                ctx.progressInterval().toSeconds()),
                        damaged)
                .recordingTemporariesIn(ctx.cacheDir().resolve("restores"))
                .writingAs(selected.writtenAs());
        PackedContent packed = null;
        if (repo.packed()) {
            PackedContent content = Errors.translate(session.where(), null, () -> Futures.join(index));
            Errors.translate(session.where(), null, () -> PackedRepair.damageNotes(content, m))
                    .forEach(ctx.err()::println);
            runner.readingFrom(content);
            packed = content;
        }
        java.util.Set<String> unnamedAtStart = packed == null ? java.util.Set.of() : packed.unindexedPacksRead();
        RestoreRunner.Result r = runner.run();
        if (packed != null) {
            PackedRepair.readNotes(packed, unnamedAtStart).forEach(ctx.err()::println);
        }
        String inexact = inexactTimes(m);
        if (inexact != null) {
            ctx.err().println(inexact);
        }
        // A backup of links alone restored them all and said "0 files restored": say what else is in place
        // (after the files already present: a rerun that found the links there said "(and 2 symbolic links)"
        // right after "0 files restored", as if it had made them).
        String totals = Summary.count(r.restored(), "file") + " restored, " + r.alreadyPresent() + " already present"
                + (r.ok() ? links(m.tree()) : "") + ", "
                + Summary.size(r.bytes()) + " in " + Summary.duration(r.elapsed()) + " ("
                + Summary.rate(r.bytes(), r.elapsed())
                + ")" + counters(session) + ".";
        if (r.ok()) {
            ctx.out()
                    .println("Restore of '" + name + "' complete: " + totals
                            + (r.restored() == 0
                                    // nothing read from the store: a file already in the target was kept
                                    // because its size and SHA-256 (hashed from the disk) are the backup's
                                    ? (r.alreadyPresent() == 0
                                            ? ""
                                            : " No file needed writing: each was already there with the"
                                                    + " backup's size and SHA-256.")
                                    : repo.packed()
                                            // format 3: each chunk is checked against its ID (a keyed SHA-256)
                                            // as it is opened, and each file's length; the file is not hashed
                                            // again (docs/backup-format.md, the manifest's sha256)
                                            ? " Every chunk matched its ID and every file its size."
                                            : " Every SHA-256 matched."));
            if (chosen.olderThanNewest()) {
                ctx.err().println(olderBackupUsed("Restored", name, chosen));
                return ExitCodes.OLDER_BACKUP_USED;
            }
            return ExitCodes.OK;
        }
        ctx.out().println("Restore of '" + name + "' INCOMPLETE: " + totals);
        // After Ctrl-C the files left unattempted, and once the target's file system took no more writes the
        // files not written for it, are counted in the summary, not listed one per line.
        r.failed().stream()
                .filter(f -> !r.cancelled() || !RestoreRunner.NOT_ATTEMPTED.equals(f.reason()))
                .filter(f -> !RestoreRunner.TARGET_UNWRITABLE.equals(f.reason()))
                .forEach(f -> ctx.err()
                        .println("Not restored: " + Errors.printable(f.path()) + " (" + Errors.printable(f.reason())
                                + ")"));
        String why = r.cancelled()
                ? "it was interrupted"
                : r.unavailable() != null && Messages.outOfFileDescriptors(r.unavailable())
                        ? "this process ran out of file descriptors (" + Errors.rootMessage(r.unavailable())
                                + "): raise the limit of open files (ulimit -n) or pass fewer --transfers"
                        : r.unavailable() != null
                                ? session.where() + " became unavailable (" + Errors.rootMessage(r.unavailable()) + ")"
                                : r.unwritable() != null
                                        ? r.unwritable()
                                        : r.damagedCopies() > 0
                                                ? (r.damagedCopies() == 1
                                                                ? "1 stored copy is"
                                                                : r.damagedCopies() + " stored copies are")
                                                        + " damaged or missing ("
                                                        + (Repository.masterKey(session) != null
                                                                ? r.missingChunks() == r.damagedCopies()
                                                                        ? VerifyCommand.missingChunksAdvice(
                                                                                "missing",
                                                                                olderOffer(
                                                                                        session, repo, chosen, selected,
                                                                                        r, packed))
                                                                        : VerifyCommand.packedDamageAdvice(name)
                                                                : "'ballast verify " + name
                                                                        + " --repair SOURCE-DIR' stores good copies from the source")
                                                        + ")"
                                                : "some files could not be restored";
        if (r.notPlaced() != null && r.failed().isEmpty() && !r.cancelled() && r.unwritable() == null) {
            // every file restored, in the hidden directory the sentence names, not at the target
            ctx.err().println(Errors.printable(r.notPlaced()));
            return ExitCodes.INCOMPLETE;
        }
        // After Ctrl-C during the end sync every file may be in place: then none is listed.
        String notRestored = r.failed().isEmpty()
                ? ""
                : ": " + notRestoredCount(r, m, selected.writtenAs()) + " not restored (first: "
                        + Errors.printable(r.failed().get(0).path()) + ")";
        ctx.err()
                .println("Restore of '" + name + "' into '" + target + "' did not complete because " + why
                        + notRestored + "; " + restoredClause(r.restored()) + ". Run the restore again"
                        + (r.cancelled() ? " to finish it." : " once the cause is fixed."));
        if (r.notPlaced() != null) {
            ctx.err().println(Errors.printable(r.notPlaced()));
        }
        return r.cancelled()
                ? ExitCodes.INTERRUPTED
                : r.unavailable() != null
                        ? ExitCodes.UNAVAILABLE
                        : r.damagedCopies() > 0 ? ExitCodes.INTEGRITY : ExitCodes.INCOMPLETE;
    }

    /**
     * The note a restore prints when the backup holds modification times the JVM cannot set exactly (a
     * fraction of a second before 1970, a time after 2262-04-11; {@link Attributes#settableExactly}), or
     * null when it holds none: a fault tester found a file of 2400-01-01 restored as 2262-04-11 by a
     * restore that said nothing of it.
     */
    static @Nullable String inexactTimes(Manifest m) {
        long files = m.files().stream()
                .filter(e -> !Attributes.settableExactly(e.mtime()))
                .count();
        long dirs = m.tree().directories().stream()
                .filter(d -> !Attributes.settableExactly(d.mtime()))
                .count();
        if (files + dirs == 0) {
            return null;
        }
        String directories = dirs + (dirs == 1 ? " directory" : " directories");
        String what = files > 0 && dirs > 0
                ? Summary.count(files, "file") + " and " + directories
                : files > 0 ? Summary.count(files, "file") : directories;
        return "Note: " + what + " of the backup " + (files + dirs == 1 ? "has" : "have")
                + " a modification time the JVM cannot set exactly (a fraction of a second before 1970, or a"
                + " time after 2262-04-11 23:47:16 UTC): each was given the nearest one it can set, the whole"
                + " second before 1970 and 2262-04-11 23:47:16 UTC after that.";
    }

    /**
     * What an incomplete restore says of the files it did restore: that they are complete and verified,
     * or that there are none (a tester's: "files already restored are complete" when none were).
     */
    static String restoredClause(int restored) {
        return restored == 0
                ? "nothing was restored"
                : restored == 1
                        ? "the 1 file restored is complete and verified"
                        : "the " + restored + " files restored are complete and verified";
    }

    /**
     * An older snapshot of the name that holds other copies of the files this restore found chunks of missing
     * ({@link OlderCopies#offer}), as a clause of the advice; empty when there is none.
     */
    private String olderOffer(
            StoreSession session,
            Repository repo,
            Manifests.Versioned chosen,
            RestoreSelection.Selected selected,
            RestoreRunner.Result r,
            @Nullable PackedContent packed) {
        if (packed == null) {
            return "";
        }
        java.util.Map<String, dev.ballast.backup.snapshot.ManifestEntry> byShownPath = new java.util.HashMap<>();
        selected.manifest()
                .files()
                .forEach(e -> byShownPath.put(selected.writtenAs().getOrDefault(e.path(), e.path()), e));
        List<dev.ballast.backup.snapshot.ManifestEntry> lacking = r.failed().stream()
                .filter(f -> f.reason().startsWith(RestoreRunner.CHUNK_MISSING))
                .map(f -> byShownPath.get(f.path()))
                .filter(java.util.Objects::nonNull)
                .toList();
        return OlderCopies.offer(repo.metadata(), session.objects(), name, chosen, lacking, packed);
    }

    /**
     * The one line that ends a restore or verify which used an older backup because the newest
     * manifest version is damaged (exit {@link ExitCodes#OLDER_BACKUP_USED}).
     */
    static String olderBackupUsed(String verb, String name, Manifests.Versioned chosen) {
        return verb + " an older backup of '" + name + "' (manifest version "
                + Manifests.label(chosen.version().versionId()) + " of "
                + SnapshotTime.of(chosen.manifest()) + ") because the newest, manifest version "
                + Manifests.label(chosen.passedOver().get(0)) + ", is damaged (exit " + ExitCodes.OLDER_BACKUP_USED
                + "); back the source up again to make a new restore point.";
    }

    /** {@code " (and 1 hard link, 2 symbolic links in place)"} for the links {@code tree} holds, or empty. */
    private static String links(dev.ballast.backup.snapshot.ManifestTree tree) {
        java.util.List<String> parts = new java.util.ArrayList<>();
        if (!tree.hardLinks().isEmpty()) {
            parts.add(Summary.count(tree.hardLinks().size(), "hard link"));
        }
        if (!tree.symlinks().isEmpty()) {
            parts.add(Summary.count(tree.symlinks().size(), "symbolic link"));
        }
        return parts.isEmpty() ? "" : " (and " + String.join(", ", parts) + " in place)";
    }

    /**
     * How many entries were not restored, files apart from directories and links, so that with the
     * files restored and already present they add up to the backup's files ("4 files and 2 directories
     * or links"; a tester's summary counted 9 files not restored where 6 files and 3 directories were).
     */
    static String notRestoredCount(RestoreRunner.Result r, Manifest m, java.util.Map<String, String> writtenAs) {
        java.util.Set<String> files = new java.util.HashSet<>();
        m.files().forEach(e -> files.add(writtenAs.getOrDefault(e.path(), e.path())));
        long fileCount =
                r.failed().stream().filter(f -> files.contains(f.path())).count();
        long others = r.failed().size() - fileCount;
        return others == 0
                ? Summary.count(fileCount, "file")
                : (fileCount == 0 ? "" : Summary.count(fileCount, "file") + " and ")
                        + others
                        + (others == 1 ? " directory or link" : " directories or links");
    }
}
