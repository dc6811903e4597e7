package dev.ballast.cli;

import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.StorageException;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.ReadOptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One backup run of a directory into {@code NAME/} of an {@link ObjectStore}: walks the tree, skips
 * files whose size and SHA-256 match the previous manifest, uploads the rest (files above the
 * store's multipart threshold as multipart uploads), confirms each upload's SHA-256, and writes a
 * new manifest version. Not thread-safe; one instance per run.
 *
 * <p>Checksum confirmation never relies on a guarantee the capability probe found missing: when
 * the store validates {@code x-amz-checksum-sha256} on upload the returned SHA-256 is compared with
 * the local one; otherwise the new version is read back and hashed.
 */
final class BackupRunner {

  /** A file found in the source tree. */
  record SourceFile(String path, Path file, long size, Instant mtime) {}

  /** A file the run did not store, with the reason. */
  record Failure(String path, String reason) {}

  /** What a run did. */
  record Result(
      int stored,
      int unchanged,
      long bytesUploaded,
      long bytesTotal,
      List<String> skipped,
      List<Failure> failed,
      List<String> notAttempted,
      String manifestVersionId,
      boolean manifestComplete,
      String manifestProblem,
      StorageUnavailableException unavailable,
      boolean cancelled,
      Duration elapsed) {

    boolean ok() {
      return failed.isEmpty() && notAttempted.isEmpty() && unavailable == null && !cancelled
          && manifestVersionId != null && manifestComplete;
    }
  }

  /** How the JVM decodes file names (from the locale; UTF-8 under a UTF-8 locale). */
  private static final String NAME_ENCODING = System.getProperty("sun.jnu.encoding", "UTF-8");

  private final ObjectStore store;
  private final String name;
  private final Path source;
  private final boolean followSymlinks;
  private final Cancellation cancellation;
  private final Clock clock;
  private final PrintStream err;
  private final Function<List<SourceFile>, Progress> progressFactory;
  private final Duration manifestGrace;
  private final Consumer<String> onStored;

  BackupRunner(ObjectStore store, String name, Path source, boolean followSymlinks, Cancellation cancellation,
      Clock clock, PrintStream err, Function<List<SourceFile>, Progress> progressFactory, Duration manifestGrace,
      Consumer<String> onStored) {
    this.store = Objects.requireNonNull(store, "store");
    this.name = Objects.requireNonNull(name, "name");
    this.source = Objects.requireNonNull(source, "source");
    this.followSymlinks = followSymlinks;
    this.cancellation = Objects.requireNonNull(cancellation, "cancellation");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.err = Objects.requireNonNull(err, "err");
    this.progressFactory = Objects.requireNonNull(progressFactory, "progressFactory");
    this.manifestGrace = Objects.requireNonNull(manifestGrace, "manifestGrace");
    this.onStored = Objects.requireNonNull(onStored, "onStored");
  }

  /** Decides whether {@code previous} already holds the content of a file of this size and hash. */
  static boolean unchanged(ManifestEntry previous, long size, String sha256) {
    return previous != null && previous.size() == size && previous.sha256().equals(sha256);
  }

  Result run() {
    long start = System.nanoTime();
    Instant createdAt = clock.instant();
    List<String> skipped = new ArrayList<>();
    List<Failure> failed = new ArrayList<>();
    List<SourceFile> files = walk(skipped, failed);
    Map<String, ManifestEntry> previous = previousEntries();

    List<ManifestEntry> entries = new ArrayList<>();
    List<String> notAttempted = new ArrayList<>();
    int stored = 0;
    int unchangedCount = 0;
    long uploaded = 0;
    long total = files.stream().mapToLong(SourceFile::size).sum();
    StorageUnavailableException unavailable = null;
    boolean readBack = !store.capabilities().additionalChecksums();

    try (Progress progress = progressFactory.apply(files)) {
      for (SourceFile f : files) {
        if (unavailable != null || cancellation.cancelled()) {
          notAttempted.add(f.path());
          continue;
        }
        try {
          String sha = Sha256.ofFile(f.file(), progress::addBytes);
          long size = Files.size(f.file());
          ManifestEntry before = previous.get(f.path());
          if (unchanged(before, size, sha)) {
            entries.add(new ManifestEntry(f.path(), size, sha, before.versionId(), f.mtime()));
            unchangedCount++;
          } else {
            ObjectVersion v = store.put(Manifest.objectKey(name, f.path()), ObjectContent.ofFile(f.file()));
            confirm(f, v, sha, size, readBack);
            entries.add(new ManifestEntry(f.path(), size, sha, v.versionId(), f.mtime()));
            stored++;
            uploaded += size;
            onStored.accept(f.path());
          }
        } catch (StorageUnavailableException e) {
          unavailable = e;
          failed.add(new Failure(f.path(), "the store became unavailable"));
        } catch (ChangedWhileReading e) {
          failed.add(new Failure(f.path(), e.getMessage()));
        } catch (IOException | UncheckedIOException e) {
          failed.add(new Failure(f.path(), "it could not be read (" + Errors.describeIo(e) + ")"));
        } catch (IntegrityException e) {
          failed.add(new Failure(f.path(), "its stored copy did not match its SHA-256 (" + e.getMessage() + ")"));
        } catch (StorageException | IllegalArgumentException e) {
          failed.add(new Failure(f.path(), e.getMessage()));
        }
        progress.fileDone();
      }
    }

    boolean complete = failed.isEmpty() && notAttempted.isEmpty() && unavailable == null && !cancellation.cancelled();
    List<String> notStored = new ArrayList<>();
    failed.forEach(x -> notStored.add(x.path()));
    notStored.addAll(notAttempted);
    Manifest manifest = new Manifest(Manifest.FORMAT_VERSION, name, createdAt, complete, entries, notStored);
    String manifestVersion = null;
    String manifestProblem = null;
    try {
      manifestVersion = writeManifest(manifest, complete);
    } catch (StorageUnavailableException e) {
      manifestProblem = "the store was unavailable";
      unavailable = unavailable == null ? e : unavailable;
    } catch (TimeoutException e) {
      manifestProblem = "the store did not answer within " + Summary.duration(manifestGrace);
    } catch (RuntimeException e) {
      manifestProblem = e.getMessage();
    }
    return new Result(stored, unchangedCount, uploaded, total, skipped, failed, notAttempted, manifestVersion,
        complete, manifestProblem, unavailable, cancellation.cancelled(),
        Duration.ofNanos(System.nanoTime() - start));
  }

  /**
   * Writes the manifest. A complete run waits as long as the store takes; an incomplete one (the
   * store may be down) waits at most the grace period, so a dead endpoint cannot hold the command.
   */
  private String writeManifest(Manifest manifest, boolean complete) throws TimeoutException {
    byte[] json = manifest.toJson();
    CompletableFuture<String> write = CompletableFuture.supplyAsync(
        () -> store.put(Manifest.key(name), ObjectContent.ofBytes(json)).versionId(), daemonExecutor());
    try {
      return complete ? write.join() : write.get(manifestGrace.toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.CompletionException | java.util.concurrent.ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TimeoutException("interrupted");
    }
  }

  private static java.util.concurrent.Executor daemonExecutor() {
    return r -> {
      Thread t = new Thread(r, "ballast-manifest-write");
      t.setDaemon(true);
      t.start();
    };
  }

  private void confirm(SourceFile f, ObjectVersion v, String sha, long size, boolean readBack) throws IOException {
    if (!v.sha256().equals(sha) || v.size() != size) {
      throw new ChangedWhileReading("it changed while it was being backed up (SHA-256 or size differ "
          + "between reading and uploading); run the backup again");
    }
    if (readBack) {
      ReadOptions options = ReadOptions.version(v.versionId()).withAllowCache(false);
      try (ObjectRead read = store.get(v.key(), options); InputStream in = read.stream()) {
        String stored = Sha256.copy(in, OutputStream.nullOutputStream(), n -> { });
        if (!stored.equals(sha)) {
          throw new IntegrityException(v.key(), "read back SHA-256 " + stored + " but uploaded " + sha);
        }
      }
    }
  }

  private Map<String, ManifestEntry> previousEntries() {
    Map<String, ManifestEntry> map = new HashMap<>();
    String key = Manifest.key(name);
    try (ObjectRead read = store.get(key, ReadOptions.latest().withAllowCache(false))) {
      Manifest m = Manifest.parse(read.readAllBytes(), "'" + key + "' version " + read.version().versionId());
      m.files().forEach(e -> map.put(e.path(), e));
    } catch (ObjectNotFoundException e) {
      // first backup of this name
    } catch (CliFailure e) {
      err.println("Warning: the previous manifest of '" + name + "' is unusable, so every file is uploaded again: "
          + e.getMessage());
    }
    return map;
  }

  private List<SourceFile> walk(List<String> skipped, List<Failure> failed) {
    List<SourceFile> files = new ArrayList<>();
    Set<FileVisitOption> options = followSymlinks ? EnumSet.of(FileVisitOption.FOLLOW_LINKS) : EnumSet.noneOf(FileVisitOption.class);
    try {
      Files.walkFileTree(source, options, Integer.MAX_VALUE, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
          String rel = relative(file);
          if (attrs.isSymbolicLink()) {
            skipped.add(rel + " (symbolic link, not followed; use --follow-symlinks)");
          } else if (!attrs.isRegularFile()) {
            skipped.add(rel + " (not a regular file)");
          } else if (rel.equals(Manifest.FILE_NAME)) {
            skipped.add(rel + " (reserved for the backup's manifest)");
          } else if (!source.resolve(rel).equals(file)) {
            // The name's bytes are not valid in the file-name encoding: its decoded form (with U+FFFD)
            // would name another file on restore and could collide with a sibling's key.
            failed.add(new Failure(rel, "its name is not valid " + NAME_ENCODING + ", so it cannot become an S3 key "
                + "that restores to the same name; rename it"));
          } else if (rel.chars().anyMatch(Character::isISOControl)) {
            failed.add(new Failure(rel, "its name contains a control character, which S3 keys cannot carry; rename it"));
          } else {
            files.add(new SourceFile(rel, file, attrs.size(), attrs.lastModifiedTime().toInstant()));
          }
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException e) {
          String why = e instanceof FileSystemLoopException ? "a symbolic link loop" : "it could not be read (" + Errors.describeIo(e) + ")";
          failed.add(new Failure(relative(file), why));
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    files.sort(Comparator.comparing(SourceFile::path));
    return files;
  }

  private String relative(Path file) {
    Path rel = source.relativize(file);
    StringBuilder sb = new StringBuilder();
    for (Path part : rel) {
      if (sb.length() > 0) {
        sb.append('/');
      }
      sb.append(part);
    }
    return sb.toString();
  }

  /** The file's bytes changed between hashing and uploading. */
  private static final class ChangedWhileReading extends IOException {
    private static final long serialVersionUID = 1L;

    ChangedWhileReading(String message) {
      super(message);
    }
  }
}
