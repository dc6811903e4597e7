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
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "verify", sortOptions = false, mixinStandardHelpOptions = true,
    description = "Re-read every object of the newest complete backup of NAME (or of --manifest-version) from "
        + "the store, never from a cache, and check its SHA-256 against the manifest; --transfers objects at a time. "
        + "--read-data-subset reads only part of them and checks that every other one is present with its size, "
        + "from one listing of the store.")
final class VerifyCommand extends BallastCommand {
  @Parameters(index = "0", paramLabel = "NAME", description = "The backup name.")
  String name;

  @Option(names = "--manifest-version", paramLabel = "ID", description = "Verify this manifest version.")
  String manifestVersion;

  @Option(names = "--read-data-subset", paramLabel = "SUBSET",
      description = "Read only a subset, as restic's check: n/t (the n-th of t fixed groups; 1/t to t/t read "
          + "everything once), x% (a random x percent of the files) or a size such as 500M (random files up to it).")
  String readDataSubset;

  @Mixin
  TransferOptions transferOptions;

  VerifyCommand(CliContext ctx) {
    super(ctx);
  }

  @Override
  public Integer call() {
    Manifests.checkName(name);
    DataSubset subset;
    try {
      subset = readDataSubset == null ? null : DataSubset.parse(readDataSubset);
    } catch (IllegalArgumentException e) {
      throw new CliFailure(ExitCodes.USAGE, "--read-data-subset " + e.getMessage() + ".");
    }
    new Transfers(transferOptions.transfers, 1).close(); // refuses a bad --transfers before the store is opened
    try (StoreSession session = StoreSession.open(common, ctx, StoreSession.Access.READ)) {
      Manifests.Versioned chosen = Errors.translate(session.where(), null,
          () -> Manifests.select(session.objects(), name, manifestVersion, session.where(), ctx.err()));
      Manifest m = chosen.manifest();
      long start = System.nanoTime();
      List<String> bad = Collections.synchronizedList(new ArrayList<>());
      List<ManifestEntry> toRead = subset == null ? m.files() : subset.select(m.files(), new java.security.SecureRandom());
      List<String> absent = subset == null ? List.of()
          : Errors.translate(session.where(), null, () -> missingOrResized(session, m, toRead));
      long readBytes = toRead.stream().mapToLong(ManifestEntry::size).sum();
      List<String> unreadable = Collections.synchronizedList(new ArrayList<>());
      AtomicReference<StorageUnavailableException> unavailable = new AtomicReference<>();
      AtomicLong bytes = new AtomicLong();
      try (Progress progress = Progress.create("verify " + name, toRead.size(), readBytes, ctx.terminal(),
              ctx.out(), ctx.progressInterval().toSeconds());
          Transfers pool = new Transfers(transferOptions.transfers, transferOptions.transfers)) {
        for (ManifestEntry e : toRead) {
          if (unavailable.get() != null || ctx.cancellation().cancelled()) {
            unreadable.add(e.path());
            continue;
          }
          pool.submit(done -> {
            try {
              switch (verify(session, e, progress)) {
                case MATCHES -> bytes.addAndGet(e.size());
                case DAMAGED -> bad.add(e.path());
              }
            } catch (StorageUnavailableException ex) {
              unavailable.compareAndSet(null, ex);
              unreadable.add(e.path());
            } catch (StorageException | IOException ex) {
              unreadable.add(Errors.printable(e.path() + " (" + ex.getMessage() + ")"));
            } finally {
              progress.fileDone();
              done.run();
            }
          });
        }
        pool.awaitAll();
      }
      Collections.sort(bad);
      Collections.sort(unreadable);
      java.time.Duration elapsed = java.time.Duration.ofNanos(System.nanoTime() - start);
      bad.forEach(p -> ctx.err().println("SHA-256 mismatch: " + p));
      absent.forEach(p -> ctx.err().println("Damaged: " + p));
      unreadable.forEach(p -> ctx.err().println("Not verified: " + p));
      String totals = (m.files().size() - bad.size() - absent.size() - unreadable.size()) + " of " + m.files().size()
          + " files verified" + (subset == null ? "" : " (subset " + subset + ": " + toRead.size() + " read, the other "
          + (m.files().size() - toRead.size()) + " checked present with their size)") + ", " + Summary.mib(bytes.get()) + " in " + Summary.duration(elapsed) + " ("
          + Summary.rate(bytes.get(), elapsed) + ")" + counters(session) + ".";
      if (bad.isEmpty() && absent.isEmpty() && unreadable.isEmpty()) {
        ctx.out().println("Verify of '" + name + "' (manifest version " + chosen.version().versionId() + ") OK: " + totals);
        return ExitCodes.OK;
      }
      ctx.out().println("Verify of '" + name + "' FAILED: " + totals);
      ctx.err().println("Backup '" + name + "' has " + (bad.size() + absent.size()) + " damaged and " + unreadable.size()
          + " unreadable files" + (unavailable.get() != null ? " because " + session.where() + " became unavailable" : "")
          + "; back up the source again, or restore an older --manifest-version.");
      return !bad.isEmpty() || !absent.isEmpty() ? ExitCodes.INTEGRITY : unavailable.get() != null ? ExitCodes.UNAVAILABLE
          : ExitCodes.INCOMPLETE;
    }
  }

  /**
   * The files not read whose version is missing from the store or has another size than the
   * manifest records, from one listing of {@code NAME/}: each as "path (why)".
   */
  private List<String> missingOrResized(StoreSession session, Manifest m, List<ManifestEntry> read) {
    java.util.Map<String, Long> sizes = new java.util.HashMap<>();
    for (dev.ballast.storage.object.VersionEntry v : session.objects().listVersions(name + "/")) {
      if (!v.deleteMarker()) {
        sizes.put(v.key() + "\n" + v.versionId(), v.size());
      }
    }
    java.util.Set<String> reading = new java.util.HashSet<>();
    read.forEach(e -> reading.add(e.path()));
    List<String> problems = new ArrayList<>();
    for (ManifestEntry e : m.files()) {
      if (reading.contains(e.path())) {
        continue;
      }
      Long size = sizes.get(Manifest.objectKey(name, e.path()) + "\n" + e.versionId());
      if (size == null) {
        problems.add(Errors.printable(e.path() + " (version " + e.versionId() + " is missing from the store)"));
      } else if (size != e.size()) {
        problems.add(Errors.printable(e.path() + " (stored with " + size + " bytes, the manifest records " + e.size()
            + ")"));
      }
    }
    return problems;
  }

  private enum Verdict { MATCHES, DAMAGED }

  /** One read buffer per transfer thread, not one per file. */
  private static final ThreadLocal<byte[]> BUFFERS = ThreadLocal.withInitial(() -> new byte[256 * 1024]);

  /**
   * Reads one object to its end. The store checks the bytes against the SHA-256 it recorded as they
   * stream, so only a version recorded without one (written by another program) is hashed here.
   */
  private Verdict verify(StoreSession session, ManifestEntry e, Progress progress) throws IOException {
    String key = Manifest.objectKey(name, e.path());
    try (ObjectRead read = session.objects().get(key, ReadOptions.version(e.versionId()).withAllowCache(false));
        InputStream in = read.stream()) {
      String recorded = read.version().sha256();
      if (!recorded.isEmpty() && !recorded.equals(e.sha256())) {
        return Verdict.DAMAGED;
      }
      if (recorded.isEmpty()) {
        return Sha256.copy(in, OutputStream.nullOutputStream(), progress::addBytes).equals(e.sha256())
            ? Verdict.MATCHES : Verdict.DAMAGED;
      }
      byte[] buffer = BUFFERS.get();
      int n;
      while ((n = in.read(buffer)) != -1) {
        progress.addBytes(n);
      }
      return Verdict.MATCHES;
    } catch (IntegrityException ex) {
      return Verdict.DAMAGED;
    }
  }
}
