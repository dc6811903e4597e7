package dev.ballast.cli;

import java.io.PrintStream;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Lists the files of one backup, as {@code restic ls} lists a snapshot: one line per file with its
 * size in bytes, its modification time (UTC) and its path, in the manifest's order (sorted by path).
 */
@Command(name = "ls", sortOptions = false, mixinStandardHelpOptions = true,
    description = "List the files of the newest complete backup of NAME (or of --manifest-version): size in bytes, "
        + "modification time (UTC) and path, one file per line.")
final class LsCommand extends BallastCommand {
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss", Locale.ROOT).withZone(ZoneOffset.UTC);

  @Parameters(index = "0", paramLabel = "NAME", description = "The backup name.")
  String name;

  @Option(names = "--manifest-version", paramLabel = "ID", description = "List this manifest version.")
  String manifestVersion;

  LsCommand(CliContext ctx) {
    super(ctx);
  }

  @Override
  public Integer call() {
    Manifests.checkName(name);
    try (StoreSession session = StoreSession.open(common, ctx, StoreSession.Access.READ)) {
      Manifests.Versioned chosen = Errors.translate(session.where(), null,
          () -> Manifests.select(session.objects(), name, manifestVersion, session.where(), ctx.err()));
      Manifest m = chosen.manifest();
      PrintStream out = ctx.out();
      out.println("Backup '" + name + "', manifest version " + chosen.version().versionId() + " of "
          + TIME.format(m.createdAt()) + " UTC: " + m.files().size() + (m.files().size() == 1 ? " file, " : " files, ")
          + Summary.mib(m.totalBytes()));
      StringBuilder line = new StringBuilder(128);
      for (ManifestEntry e : m.files()) {
        line.setLength(0);
        String size = Long.toString(e.size());
        line.append(" ".repeat(Math.max(0, 12 - size.length()))).append(size).append("  ")
            .append(e.mtime() == null ? "                   " : TIME.format(e.mtime())).append("  ")
            .append(Errors.printable(e.path()));
        out.println(line);
      }
      return ExitCodes.OK;
    }
  }
}
