package dev.ballast.cli;

import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.StorageException;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ReadOptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "verify", sortOptions = false, mixinStandardHelpOptions = true,
    description = "Re-read every object of the newest complete backup of NAME (or of --manifest-version) from "
        + "the store, never from a cache, and check its SHA-256 against the manifest.")
final class VerifyCommand extends BallastCommand {
  @Parameters(index = "0", paramLabel = "NAME", description = "The backup name.")
  String name;

  @Option(names = "--manifest-version", paramLabel = "ID", description = "Verify this manifest version.")
  String manifestVersion;

  VerifyCommand(CliContext ctx) {
    super(ctx);
  }

  @Override
  public Integer call() {
    Manifests.checkName(name);
    try (StoreSession session = StoreSession.open(common, ctx)) {
      Manifests.Versioned chosen = Errors.translate(session.where(), common.bucket,
          () -> Manifests.select(session.objects(), name, manifestVersion, session.where(), ctx.err()));
      Manifest m = chosen.manifest();
      long start = System.nanoTime();
      List<String> bad = new ArrayList<>();
      List<String> unreadable = new ArrayList<>();
      StorageUnavailableException unavailable = null;
      long bytes = 0;
      try (Progress progress = Progress.create("verify " + name, m.files().size(), m.totalBytes(), ctx.terminal(),
          ctx.out(), ctx.progressInterval().toSeconds())) {
        for (ManifestEntry e : m.files()) {
          if (unavailable != null || ctx.cancellation().cancelled()) {
            unreadable.add(e.path());
            continue;
          }
          String key = Manifest.objectKey(name, e.path());
          try (ObjectRead read = session.objects().get(key, ReadOptions.version(e.versionId()).withAllowCache(false));
              InputStream in = read.stream()) {
            String sha = Sha256.copy(in, OutputStream.nullOutputStream(), progress::addBytes);
            if (!sha.equals(e.sha256())) {
              bad.add(e.path());
            }
            bytes += e.size();
          } catch (IntegrityException ex) {
            bad.add(e.path());
          } catch (StorageUnavailableException ex) {
            unavailable = ex;
            unreadable.add(e.path());
          } catch (StorageException | IOException ex) {
            unreadable.add(Errors.printable(e.path() + " (" + ex.getMessage() + ")"));
          }
          progress.fileDone();
        }
      }
      java.time.Duration elapsed = java.time.Duration.ofNanos(System.nanoTime() - start);
      bad.forEach(p -> ctx.err().println("SHA-256 mismatch: " + p));
      unreadable.forEach(p -> ctx.err().println("Not verified: " + p));
      String totals = (m.files().size() - bad.size() - unreadable.size()) + " of " + m.files().size()
          + " files verified, " + Summary.mib(bytes) + " in " + Summary.duration(elapsed) + " ("
          + Summary.rate(bytes, elapsed) + "); " + counters(session) + ".";
      if (bad.isEmpty() && unreadable.isEmpty()) {
        ctx.out().println("Verify of '" + name + "' (manifest version " + chosen.version().versionId() + ") OK: " + totals);
        return ExitCodes.OK;
      }
      ctx.out().println("Verify of '" + name + "' FAILED: " + totals);
      ctx.err().println("Backup '" + name + "' has " + bad.size() + " damaged and " + unreadable.size()
          + " unreadable files" + (unavailable != null ? " because " + session.where() + " became unavailable" : "")
          + "; back up the source again, or restore an older --manifest-version.");
      return !bad.isEmpty() ? ExitCodes.INTEGRITY : unavailable != null ? ExitCodes.UNAVAILABLE : ExitCodes.INCOMPLETE;
    }
  }
}
