package dev.ballast.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "backup", sortOptions = false, mixinStandardHelpOptions = true,
    description = "Back up every regular file under DIR as the objects NAME/<relative path>, then write a new "
        + "version of the manifest NAME/.ballast-manifest.json (path, size, SHA-256, version ID, "
        + "modification time). A file whose size, modification time, ctime and inode match the previous "
        + "manifest is not read again (--checksum reads and compares every file); one whose bytes match "
        + "is not stored again. Symbolic links are not followed (each one skipped is reported) unless "
        + "--follow-symlinks is given.")
final class BackupCommand extends BallastCommand {
  @Parameters(index = "0", paramLabel = "DIR", description = "The directory to back up.")
  Path dir;

  @Option(names = "--name", paramLabel = "NAME", description = "Backup name (default: the directory's base name).")
  String name;

  @Option(names = "--follow-symlinks", description = "Back up what symbolic links point to instead of skipping them.")
  boolean followSymlinks;

  @Option(names = "--checksum", description = "Read and hash every file instead of trusting an unchanged size, "
      + "modification time, ctime and inode; only files whose SHA-256 differs are stored.")
  boolean checksum;

  @Mixin
  TransferOptions transferOptions;

  BackupCommand(CliContext ctx) {
    super(ctx);
  }

  @Override
  public Integer call() throws Exception {
    if (!Files.exists(dir)) {
      throw new CliFailure(ExitCodes.USAGE, "'" + dir + "' does not exist; pass the directory to back up.");
    }
    if (!Files.isDirectory(dir)) {
      throw new CliFailure(ExitCodes.USAGE, "'" + dir + "' is not a directory; pass the directory to back up, "
          + "not a file in it.");
    }
    Path source = dir.toRealPath();
    String backupName = name != null ? name
        : source.getFileName() == null ? null : source.getFileName().toString();
    if (backupName == null) {
      throw new CliFailure(ExitCodes.USAGE, "The directory '" + source + "' has no base name to use as the backup "
          + "name; pass --name NAME.");
    }
    Manifests.checkName(backupName);
    BackupRunner.Settings settings = new BackupRunner.Settings(followSymlinks, transferOptions.transfers, checksum);
    new Transfers(settings.transfers(), 1).close(); // refuses a bad --transfers before the store is opened
    try (StoreSession session = StoreSession.open(common, ctx, StoreSession.Access.WRITE)) {
      ctx.out().println("Backing up " + source + " as '" + backupName + "' to " + session.where());
      if (!session.objects().confirmsWrites()) {
        ctx.err().println("Note: " + session.where() + " validates neither Content-MD5 nor SHA-256 checksums, so"
            + " every new version is read back and hashed to confirm what it stores.");
      }
      BackupRunner runner = new BackupRunner(session.objects(), backupName, source, settings,
          ctx.cancellation(), ctx.clock(), ctx.err(),
          () -> Progress.create("backup " + backupName, 0, 0, ctx.terminal(), ctx.out(),
              ctx.progressInterval().toSeconds()),
          ctx.manifestGrace(), ctx.onFileStored());
      BackupRunner.Result r = Errors.translate(session.where(), null, runner::run);
      return report(backupName, r, session);
    }
  }

  private int report(String backupName, BackupRunner.Result r, StoreSession session) {
    for (String s : r.skipped()) {
      ctx.err().println("Skipped: " + Errors.printable(s));
    }
    String totals = r.stored() + " files stored, " + r.unchanged() + " unchanged, " + Summary.mib(r.bytesUploaded())
        + " uploaded of " + Summary.mib(r.bytesTotal()) + " in " + Summary.duration(r.elapsed()) + " ("
        + Summary.rate(r.bytesUploaded(), r.elapsed()) + ")" + counters(session) + ".";
    if (r.ok()) {
      if (r.stored() == 0 && r.unchanged() == 0) {
        ctx.out().println("The directory holds no regular files to back up: the backup records an empty tree.");
      } else if (r.stored() == 0) {
        ctx.out().println("Nothing to upload: all " + r.unchanged() + " files are unchanged since the last backup.");
      }
      ctx.out().println("Backup '" + backupName + "' complete: " + totals + " Manifest version "
          + r.manifestVersionId() + ".");
      return ExitCodes.OK;
    }
    ctx.out().println("Backup '" + backupName + "' INCOMPLETE: " + totals);
    for (BackupRunner.Failure f : r.failed()) {
      ctx.err().println("Not stored: " + Errors.printable(f.path()) + " (" + Errors.printable(f.reason()) + ")");
    }
    for (String p : r.notAttempted()) {
      ctx.err().println("Not stored: " + Errors.printable(p) + " (not attempted)");
    }
    int notStored = r.failed().size() + r.notAttempted().size();
    List<String> first = r.failed().stream().map(BackupRunner.Failure::path).map(Errors::printable).limit(3).toList();
    if (first.isEmpty()) {
      first = r.notAttempted().stream().map(Errors::printable).limit(3).toList();
    }
    String what = r.cancelled() ? "it was interrupted"
        : r.unavailable() != null ? session.where() + " became unavailable (" + Errors.rootMessage(r.unavailable()) + ")"
        : notStored > 0 ? "some files could not be stored"
        : "its manifest could not be written (" + r.manifestProblem() + ")";
    String manifest = r.manifestVersionId() == null
        ? "no manifest was written for this run, so restore still uses the previous complete backup"
        : r.manifestComplete() ? "manifest version " + r.manifestVersionId() + " was written"
        : "its manifest was written marked incomplete (version " + r.manifestVersionId()
            + "), which restore skips unless given --manifest-version";
    ctx.err().println("Backup '" + backupName + "' did not complete because " + what + ": " + r.stored() + " files "
        + "stored and confirmed, " + notStored + " not stored" + (first.isEmpty() ? "" : " (first: " + String.join(", ", first) + ")")
        + "; " + manifest + ". Run the backup again once the cause is fixed: unchanged files are not uploaded twice.");
    if (r.cancelled()) {
      return ExitCodes.INTERRUPTED;
    }
    if (r.unavailable() != null || (notStored == 0 && r.manifestVersionId() == null)) {
      return ExitCodes.UNAVAILABLE;
    }
    return ExitCodes.INCOMPLETE;
  }
}
