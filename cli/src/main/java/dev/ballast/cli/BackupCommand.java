package dev.ballast.cli;

import dev.ballast.backup.Messages;
import dev.ballast.backup.content.PendingContent;
import dev.ballast.backup.retention.PackedPrune;
import dev.ballast.backup.run.BackupRunner;
import dev.ballast.backup.run.NameClash;
import dev.ballast.backup.run.RunMarker;
import dev.ballast.backup.snapshot.Manifests;
import dev.ballast.backup.tree.BackupFilter;
import dev.ballast.backup.tree.Glob;
import dev.ballast.backup.tree.Names;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "backup",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        description = "Back up DIR (its files, directories and links), then write a new snapshot of the backup NAME."
                + " A backup into an empty store first makes it an encrypted"
                + " repository (as 'ballast init' does; the password from --password-file, --password-command,"
                + " $BALLAST_PASSWORD, $BALLAST_PASSWORD_FILE, $BALLAST_PASSWORD_COMMAND or the terminal), whose files are cut into chunks, deduplicated, compressed,"
                + " sealed and packed; a store of the earlier, unencrypted format keeps it (each file the objects"
                + " NAME/<relative path>, the manifest NAME/.ballast-manifest.json). A file whose size, modification time, ctime and inode match the previous "
                + "manifest is not read again (--checksum reads and compares every file); one whose bytes match "
                + "is not stored again. The manifest also records each file's mode and owner, every directory "
                + "(empty ones too) with its mode, owner and mtime, hard links, and symbolic links as links, not "
                + "followed (unless --follow-symlinks is given).")
final class BackupCommand extends BallastCommand {
    @Parameters(index = "0", paramLabel = "DIR", description = "The directory to back up.")
    Path dir;

    @Option(names = "--name", paramLabel = "NAME", description = "Backup name (default: the directory's base name).")
    String name;

    @Option(
            names = "--follow-symlinks",
            description = "Back up what symbolic links point to instead of storing the links themselves; a link to a"
                    + " directory above it (a loop) is not followed and is listed as skipped.")
    boolean followSymlinks;

    @Option(
            names = {"-x", "--one-file-system"},
            description = "Do not cross into other file systems (restic's -x): a directory that is another file"
                    + " system's mount point, or on one through a followed link, is stored empty and listed as"
                    + " skipped.")
    boolean oneFileSystem;

    @Option(
            names = {"-e", "--exclude"},
            paramLabel = "PATTERN",
            description = "Leave out files and directories matching PATTERN (repeatable), as restic: '*.tmp', "
                    + "'node_modules', '/cache' (anchored at DIR), 'a/**/b'; a leading '!' takes a path back in.")
    List<String> excludes = new java.util.ArrayList<>();

    @Option(
            names = "--exclude-file",
            paramLabel = "FILE",
            description = "Read exclude patterns from FILE, one a line; empty lines and lines starting with '#' are "
                    + "ignored (repeatable). A .ballastignore file in any directory of DIR is read the same way, for the "
                    + "paths below it.")
    List<Path> excludeFiles = new java.util.ArrayList<>();

    @Option(
            names = "--exclude-caches",
            description = "Leave out the content of directories tagged as caches with a "
                    + "CACHEDIR.TAG file (https://bford.info/cachedir/); the directory and its tag are kept.")
    boolean excludeCaches;

    @Option(
            names = "--checksum",
            description = "Read and hash every file instead of trusting an unchanged size, "
                    + "modification time, ctime and inode; only files whose SHA-256 differs are stored.")
    boolean checksum;

    @Option(
            names = NewStore.NO_ENCRYPTION_OPTION,
            description = "Into an empty store, write the earlier, unencrypted format instead of making it an"
                    + " encrypted repository: file contents, file names and backup names are then in clear for"
                    + " whoever can read the store's directory or bucket, and no password is asked. Refused (exit 2) on"
                    + " an encrypted repository; on a store already of the earlier format it changes nothing.")
    boolean insecureNoEncryption;

    @Mixin
    TransferOptions transferOptions;

    BackupCommand(CliContext ctx) {
        super(ctx);
    }

    @Override
    public Integer call() throws Exception {
        if (dir.toString().isEmpty()) {
            // Path.of("") is the current directory: an empty variable in a script ("backup $SRC") would
            // otherwise back up wherever the script happens to run.
            throw new CliFailure(
                    ExitCodes.USAGE, "DIR is empty; pass the directory to back up ('.' for the current directory).");
        }
        if (!Files.exists(dir)) {
            throw new CliFailure(ExitCodes.USAGE, "'" + dir + "' does not exist; pass the directory to back up.");
        }
        if (!Files.isDirectory(dir)) {
            throw new CliFailure(
                    ExitCodes.USAGE,
                    "'" + dir + "' is not a directory; pass the directory to back up, " + "not a file in it.");
        }
        Path source = dir.toRealPath();
        // The name is the base name of DIR as given (a symbolic link's own name, not its target's).
        Path given = dir.toAbsolutePath().normalize();
        String backupName = name != null
                ? name
                : given.getFileName() == null ? null : given.getFileName().toString();
        if (backupName == null) {
            throw new CliFailure(
                    ExitCodes.USAGE,
                    "The directory '" + source + "' has no base name to use as the backup "
                            + "name; pass --name NAME.");
        }
        Manifests.checkName(backupName);
        transferOptions.check(ctx.out()); // a bad --transfers refused before the store is opened
        BackupRunner.Settings settings = new BackupRunner.Settings(
                followSymlinks, transferOptions.transfers, checksum, patterns(), excludeCaches, oneFileSystem);
        try (StoreSession session = NewStore.openForBackup(common, ctx, insecureNoEncryption);
                Repository repo = Repository.of(session)) {
            if (name == null) {
                // A name clash is refused before the run is announced.
                Errors.translate(session.where(), null, () -> {
                    NameClash.refuseOtherSource(repo.metadata(), backupName, source);
                    return null;
                });
            }
            ctx.out().println("Backing up " + source + " as '" + backupName + "' to " + session.where());
            if (!repo.packed() && !session.objects().confirmsWrites()) {
                ctx.err()
                        .println("Note: " + session.where() + " validates neither Content-MD5 nor SHA-256 checksums, so"
                                + " every new version is read back and hashed to confirm what it stores.");
            }
            BackupRunner runner = new BackupRunner(
                            repo.metadata(),
                            backupName,
                            source,
                            settings,
                            ctx.cancellation(),
                            ctx.clock(),
                            ctx.err()::println,
                            () -> Progress.create(
                                    "backup " + backupName,
                                    0,
                                    0,
                                    ctx.terminal(),
                                    ctx.out(),
                                    ctx.progressInterval().toSeconds()),
                            ctx.manifestGrace(),
                            ctx.onFileStored())
                    .skippingStore(session.localDirectory());
            if (name == null) {
                runner.nameFromDirectory();
            }
            BackupRunner.Result r;
            // The run's marker keeps 'prune' away from this name until the run has written its manifest.
            try (RunMarker marker = Errors.translate(
                    session.where(), null, () -> RunMarker.start(repo.metadata(), backupName, ctx.clock()))) {
                if (repo.packed()) {
                    // Only now, with the marker written, is a running prune looked for and the index read.
                    Errors.translate(session.where(), null, () -> {
                        PackedPrune.requireNoPrune(repo.sealed(), ctx.clock().instant());
                        return null;
                    });
                    // Read while the tree is walked and the previous snapshot read: what it finds wrong is
                    // thrown by the run, translated as before.
                    runner.packedInto(PendingContent.borrowing(() -> repo.content(transferOptions.transfers)));
                }
                r = Errors.translate(session.where(), null, runner.guardedBy(marker)::run);
                if (r.unavailable() != null) {
                    marker.abandon();
                }
            }
            if (runner.excluded() > 0) {
                ctx.out()
                        .println(runner.excluded() + " files and directories excluded (--exclude, --exclude-file, "
                                + BackupFilter.IGNORE_FILE + ", --exclude-caches).");
            }
            return report(backupName, source, r, session);
        }
    }

    private static String repaired(BackupRunner.Result r) {
        return r.repaired() == 0
                ? ""
                : " Stored a good copy of " + r.repaired() + " version(s) verify had found damaged; "
                        + "older backups naming them now read the good copy.";
    }

    /** The --exclude and --exclude-file patterns, each checked. */
    private List<Glob> patterns() {
        List<Glob> globs = new java.util.ArrayList<>();
        for (String e : excludes) {
            try {
                globs.add(Glob.parse(e));
            } catch (IllegalArgumentException ex) {
                throw new CliFailure(
                        ExitCodes.USAGE,
                        "--exclude '" + e + "' is not a usable pattern: " + ex.getMessage()
                                + "; pass a pattern such as '*.tmp', 'cache' or '/build'.");
            }
        }
        for (Path file : excludeFiles) {
            try {
                globs.addAll(BackupFilter.readPatterns(file));
            } catch (java.io.IOException ex) {
                throw new CliFailure(
                        ExitCodes.USAGE,
                        "--exclude-file '" + file + "' cannot be read (" + Errors.describeIo(ex)
                                + "); pass a file of patterns, one a line.",
                        ex);
            } catch (IllegalArgumentException ex) {
                throw new CliFailure(
                        ExitCodes.USAGE, "--exclude-file " + ex.getMessage() + "; fix the line or remove it.");
            }
        }
        return globs;
    }

    /**
     * What a backup did not store, its directories apart: "2 files", "1 file and 1 directory" (a tester
     * read "2 file(s) not stored (first: closed, secret)" where {@code closed} was a directory it could
     * not read).
     */
    static String notStoredCount(List<BackupRunner.Failure> failed, Path source) {
        long dirs = failed.stream()
                .filter(f -> Files.isDirectory(Names.resolve(source, f.path()), LinkOption.NOFOLLOW_LINKS))
                .count();
        long files = failed.size() - dirs;
        String directories = dirs + (dirs == 1 ? " directory" : " directories");
        return dirs == 0
                ? Summary.count(files, "file")
                : files == 0 ? directories : Summary.count(files, "file") + " and " + directories;
    }

    private int report(String backupName, Path source, BackupRunner.Result r, StoreSession session) {
        for (String s : r.skipped()) {
            ctx.err().println("Skipped: " + Errors.printable(s));
        }
        String totals = Summary.count(r.stored(), "file") + " stored, " + r.unchanged() + " unchanged, "
                + (r.reused() > 0 ? r.reused() + " already stored by an interrupted run, " : "")
                // restic's "Added to the repository: 1.300 MiB (22.564 KiB stored)": the new data, then what it
                // takes in the store. "8.0 MiB uploaded" for a 1 GiB file of zeros whose one chunk was stored in
                // a few KiB misled a newcomer watching their bandwidth and bill.
                + Summary.size(r.bytesTotal()) + " in " + Summary.duration(r.elapsed()) + " ("
                + Summary.rate(r.bytesTotal(), r.elapsed()) + "), " + Summary.size(r.bytesUploaded()) + " new ("
                + Summary.size(r.bytesStored()) + " stored)" + counters(session) + ".";
        if (r.ok()) {
            if (r.stored() == 0 && r.unchanged() == 0) {
                ctx.out().println("The directory holds no regular files to back up: the backup records an empty tree.");
            } else if (r.stored() == 0 && r.reused() == 0) {
                ctx.out()
                        .println("Nothing to upload: "
                                + (r.unchanged() == 1 ? "the one file is" : "all " + r.unchanged() + " files are")
                                + " unchanged since the last backup.");
            }
            ctx.out()
                    .println("Backup '" + backupName + "' complete: " + totals + " Snapshot "
                            + Manifests.label(r.manifestVersionId()) + " saved." + repaired(r));
            return ExitCodes.OK;
        }
        java.util.Set<String> stalePaths = new java.util.HashSet<>();
        r.stale().forEach(s -> stalePaths.add(s.path()));
        for (BackupRunner.Failure f : r.failed()) {
            ctx.err()
                    .println("Not stored: " + Errors.printable(f.path()) + " (" + Errors.printable(f.reason()) + ")"
                            + (stalePaths.contains(f.path())
                                    ? "; the snapshot keeps its previous version, marked stale"
                                    : ""));
        }
        if (r.manifestComplete()
                && r.manifestVersionId() != null
                && r.notAttempted().isEmpty()) {
            // Every file was attempted: the run is a snapshot; what it could not store is listed above.
            String notStored = notStoredCount(r.failed(), source);
            ctx.out()
                    .println("Backup '" + backupName + "' complete except "
                            + notStored + " not stored: " + totals + " Snapshot "
                            + Manifests.label(r.manifestVersionId()) + " saved." + repaired(r));
            ctx.err()
                    .println(notStored + " of '" + backupName + "' "
                            + (r.failed().size() == 1 ? "was" : "were")
                            + " not stored (first: "
                            + String.join(
                                    ", ",
                                    r.failed().stream()
                                            .map(BackupRunner.Failure::path)
                                            .map(Errors::printable)
                                            .limit(3)
                                            .toList())
                            + "); manifest version " + Manifests.label(r.manifestVersionId())
                            + " is a restorable snapshot of everything else"
                            + (r.stale().isEmpty()
                                    ? ""
                                    : ", in which " + r.stale().size() + " file(s) keep the version an earlier backup "
                                            + "stored (stale)")
                            + ". Back up again once the cause is fixed.");
            return ExitCodes.INCOMPLETE;
        }
        ctx.out().println("Backup '" + backupName + "' INCOMPLETE: " + totals);
        if (!r.cancelled()) {
            // Named one per line when the store failed; after Ctrl-C they are only counted below.
            for (String p : r.notAttempted()) {
                ctx.err().println("Not stored: " + Errors.printable(p) + " (not attempted)");
            }
        }
        int notStored = r.failed().size() + r.notAttempted().size();
        List<String> first = r.failed().stream()
                .map(BackupRunner.Failure::path)
                .map(Errors::printable)
                .limit(3)
                .toList();
        if (first.isEmpty()) {
            first = r.notAttempted().stream().map(Errors::printable).limit(3).toList();
        }
        String what = r.cancelled()
                ? "it was interrupted"
                : r.unavailable() != null && Errors.outOfSpace(r.unavailable())
                        ? "the store is out of space (" + session.where() + ": " + Errors.rootMessage(r.unavailable())
                                + "); free space there or use another store"
                        : r.unavailable() != null && Messages.outOfFileDescriptors(r.unavailable())
                                ? "this process ran out of file descriptors (" + Errors.rootMessage(r.unavailable())
                                        + "): raise the limit of open files (ulimit -n) or pass fewer --transfers"
                                : r.unavailable() != null
                                        ? session.where() + " became unavailable ("
                                                + Errors.rootMessage(r.unavailable()) + ")"
                                        : r.storeFailed() != null
                                                ? session.where() + " failed to write what it was given ("
                                                        + Errors.printable(r.storeFailed()) + ")"
                                                : notStored > 0
                                                        ? "some files could not be stored"
                                                        : "its manifest could not be written (" + r.manifestProblem()
                                                                + ")";
        String manifest = r.manifestVersionId() == null
                ? "no manifest was written for this run, so restore still uses the previous complete backup"
                : r.manifestComplete()
                        ? "manifest version " + Manifests.label(r.manifestVersionId()) + " was written"
                        : "its manifest was written marked incomplete (version "
                                + Manifests.label(r.manifestVersionId())
                                + "), which restore skips unless given --manifest-version "
                                + Manifests.shortId(r.manifestVersionId());
        ctx.err()
                .println("Backup '" + backupName + "' did not complete because " + what + ": "
                        + dev.ballast.backup.Messages.count(r.stored(), "file") + " stored and confirmed, " + notStored
                        + " not stored"
                        + (first.isEmpty() ? "" : " (first: " + String.join(", ", first) + ")")
                        + "; " + manifest + ". Run the backup again"
                        + (r.cancelled() ? " to finish it" : " once the cause is fixed")
                        + ": unchanged files are not uploaded twice.");
        if (r.cancelled()) {
            return ExitCodes.INTERRUPTED;
        }
        if (r.unavailable() != null || r.storeFailed() != null || (notStored == 0 && r.manifestVersionId() == null)) {
            return ExitCodes.UNAVAILABLE;
        }
        return ExitCodes.INCOMPLETE;
    }
}
