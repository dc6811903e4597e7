package dev.ballast.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "backup", sortOptions = false, mixinStandardHelpOptions = true,
    description = "Back up every regular file under DIR as the objects NAME/<relative path>, then write a new "
        + "version of the manifest NAME/.ballast-manifest.json (path, size, SHA-256, version ID, "
        + "modification time). Files whose size and SHA-256 match the previous manifest are not "
        + "uploaded again. Symbolic links are not followed (each one skipped is reported) unless "
        + "--follow-symlinks is given.")
final class BackupCommand extends BallastCommand {
  @Parameters(index = "0", paramLabel = "DIR", description = "The directory to back up.")
  Path dir;

  @Option(names = "--name", paramLabel = "NAME", description = "Backup name (default: the directory's base name).")
  String name;

  @Option(names = "--follow-symlinks", description = "Back up what symbolic links point to instead of skipping them.")
  boolean followSymlinks;

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
    try (StoreSession session = StoreSession.open(common, ctx)) {
      ctx.out().println("Backing up " + source + " as '" + backupName + "' to " + session.where() + ", bucket '"
          + common.bucket + "'");
      BackupRunner runner = new BackupRunner(session.objects(), backupName, source, followSymlinks,
          ctx.cancellation(), ctx.clock(), ctx.err(),
          files -> Progress.create("backup " + backupName, files.size(),
              files.stream().mapToLong(BackupRunner.SourceFile::size).sum(), ctx.terminal(), ctx.out(),
              ctx.progressInterval().toSeconds()),
          ctx.manifestGrace(), ctx.onFileStored());
      BackupRunner.Result r = Errors.translate(session.where(), common.bucket, runner::run);
      return report(backupName, r, session);
    }
  }

  private int report(String backupName, BackupRunner.Result r, StoreSession session) {
    for (String s : r.skipped()) {
      ctx.err().println("Skipped: " + Errors.printable(s));
    }
    String totals = r.stored() + " files stored, " + r.unchanged() + " unchanged, " + Summary.mib(r.bytesUploaded())
        + " uploaded of " + Summary.mib(r.bytesTotal()) + " in " + Summary.duration(r.elapsed()) + " ("
        + Summary.rate(r.bytesUploaded(), r.elapsed()) + "); " + counters(session) + ".";
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
