package dev.ballast.cli;

import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.StorageException;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ReadOptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

/**
 * Restores the files of one manifest into a target directory. Every path is checked before
 * anything is written ({@link SafePaths}); every file is written to a temporary name in its
 * directory, its SHA-256 verified against the manifest while the bytes stream in, flushed to disk,
 * then renamed into place atomically, so a reader never sees a half-written or unverified file.
 * An existing file is kept when it already matches, and never replaced when it differs unless
 * {@code overwrite} is set. Not thread-safe; one instance per run.
 */
final class RestoreRunner {

  /** What a restore did. */
  record Result(int restored, int alreadyPresent, long bytes, List<BackupRunner.Failure> failed,
      StorageUnavailableException unavailable, int degradedReads, boolean cancelled, Duration elapsed) {
    boolean ok() {
      return failed.isEmpty() && unavailable == null && !cancelled;
    }
  }

  private final ObjectStore store;
  private final Manifest manifest;
  private final Path target;
  private final boolean overwrite;
  private final Cancellation cancellation;
  private final Function<Manifest, Progress> progressFactory;

  RestoreRunner(ObjectStore store, Manifest manifest, Path target, boolean overwrite, Cancellation cancellation,
      Function<Manifest, Progress> progressFactory) {
    this.store = Objects.requireNonNull(store, "store");
    this.manifest = Objects.requireNonNull(manifest, "manifest");
    this.target = Objects.requireNonNull(target, "target").toAbsolutePath().normalize();
    this.overwrite = overwrite;
    this.cancellation = Objects.requireNonNull(cancellation, "cancellation");
    this.progressFactory = Objects.requireNonNull(progressFactory, "progressFactory");
  }

  Result run() throws IOException {
    long start = System.nanoTime();
    // Every path first: one unsafe path refuses the whole manifest before a byte is written.
    List<Path> destinations = new ArrayList<>();
    for (ManifestEntry e : manifest.files()) {
      destinations.add(SafePaths.resolveInside(target, e.path()));
    }
    List<String> conflicts = new ArrayList<>();
    List<Boolean> present = new ArrayList<>();
    for (int i = 0; i < destinations.size(); i++) {
      Path dest = destinations.get(i);
      ManifestEntry e = manifest.files().get(i);
      boolean same = false;
      if (Files.exists(dest, LinkOption.NOFOLLOW_LINKS)) {
        same = Files.isRegularFile(dest, LinkOption.NOFOLLOW_LINKS) && Files.size(dest) == e.size()
            && Sha256.ofFile(dest, n -> { }).equals(e.sha256());
        if (!same && !overwrite) {
          conflicts.add(e.path());
        }
      }
      present.add(same);
    }
    if (!conflicts.isEmpty()) {
      throw new CliFailure(ExitCodes.CONFLICT, "Restore into '" + target + "' refused: " + conflicts.size()
          + " existing file(s) differ from the backup (first: '" + conflicts.get(0) + "'); nothing was written. "
          + "Restore into an empty directory or rerun with --overwrite to replace them.");
    }
    Files.createDirectories(target);
    Path realTarget = target.toRealPath();

    int restored = 0;
    int already = 0;
    int degraded = 0;
    long bytes = 0;
    List<BackupRunner.Failure> failed = new ArrayList<>();
    StorageUnavailableException unavailable = null;
    try (Progress progress = progressFactory.apply(manifest)) {
      for (int i = 0; i < destinations.size(); i++) {
        ManifestEntry e = manifest.files().get(i);
        if (unavailable != null || cancellation.cancelled()) {
          failed.add(new BackupRunner.Failure(e.path(), "not attempted"));
          continue;
        }
        if (present.get(i)) {
          already++;
          progress.addBytes(e.size());
          progress.fileDone();
          continue;
        }
        try {
          degraded += restoreOne(e, destinations.get(i), realTarget, progress) ? 1 : 0;
          restored++;
          bytes += e.size();
        } catch (Interrupted ex) {
          failed.add(new BackupRunner.Failure(e.path(), "interrupted before it was complete; nothing was written for it"));
        } catch (StorageUnavailableException ex) {
          unavailable = ex;
          failed.add(new BackupRunner.Failure(e.path(), "the store became unavailable"));
        } catch (StorageException ex) {
          failed.add(new BackupRunner.Failure(e.path(), ex.getMessage()));
        } catch (IOException ex) {
          failed.add(new BackupRunner.Failure(e.path(), "it could not be written (" + Errors.describeIo(ex) + ")"));
        }
        progress.fileDone();
      }
    }
    return new Result(restored, already, bytes, failed, unavailable, degraded, cancellation.cancelled(),
        Duration.ofNanos(System.nanoTime() - start));
  }

  /** Restores one file; returns whether the bytes came from the last-known-good cache. */
  private boolean restoreOne(ManifestEntry e, Path dest, Path realTarget, Progress progress) throws IOException {
    Path dir = dest.getParent();
    Files.createDirectories(dir);
    // A directory inside the target may be a symbolic link planted to redirect the write elsewhere.
    if (!dir.toRealPath().startsWith(realTarget)) {
      throw new IOException("its directory resolves outside the target directory; it was not written");
    }
    Path tmp = dir.resolve("." + dest.getFileName() + ".ballast-" + Long.toHexString(ThreadLocalRandom.current().nextLong()));
    String key = Manifest.objectKey(manifest.name(), e.path());
    boolean degraded;
    try (ObjectRead read = store.get(key, ReadOptions.version(e.versionId()));
        InputStream in = read.stream();
        FileChannel channel = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        OutputStream out = java.nio.channels.Channels.newOutputStream(channel)) {
      degraded = read.degraded();
      String sha = Sha256.copy(in, out, n -> {
        progress.addBytes(n);
        // Ctrl-C stops a large file at once: the process may not outlive the shutdown hook's wait,
        // and a temporary file must not be left behind in the target.
        if (cancellation.cancelled()) {
          throw new Interrupted();
        }
      });
      if (!sha.equals(e.sha256())) {
        throw new IntegrityException(key, "'" + e.path() + "' read as SHA-256 " + sha + " but the manifest records "
            + e.sha256() + "; it was not written");
      }
      out.flush();
      channel.force(true);
    } catch (IOException | RuntimeException ex) {
      Files.deleteIfExists(tmp);
      throw ex;
    }
    Files.setLastModifiedTime(tmp, FileTime.from(e.mtime()));
    try {
      Files.move(tmp, dest, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException ex) {
      Files.move(tmp, dest, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException ex) {
      Files.deleteIfExists(tmp);
      throw ex;
    }
    return degraded;
  }

  /** Cancellation noticed while a file's bytes were being written. */
  private static final class Interrupted extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Interrupted() {
      super("interrupted", null, false, false);
    }
  }
}
