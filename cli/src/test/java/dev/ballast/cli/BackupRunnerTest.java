package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectVersion;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class BackupRunnerTest {
  static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-29T12:00:00Z"), ZoneOffset.UTC);

  @TempDir
  Path src;

  final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
  final PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);

  @BeforeEach
  void tree() throws IOException {
    Files.createDirectories(src.resolve("a b/ü+x"));
    Files.writeString(src.resolve("a b/ü+x/f.txt"), "hello");
    Files.write(src.resolve("empty"), new byte[0]);
    Files.writeString(src.resolve("z.txt"), "zzz");
  }

  BackupRunner.Result backup(InMemoryObjectStore store, Cancellation cancel, Consumer<String> onStored) {
    return new BackupRunner(store, "n", src, false, cancel, CLOCK, err,
        files -> Progress.create("t", files.size(), 0, false, err, 3600), Duration.ofSeconds(5), onStored).run();
  }

  Manifest manifest(InMemoryObjectStore store) {
    return Manifest.parse(store.get(Manifest.key("n")).readAllBytes(), "test");
  }

  @Test
  void unchangedMeansSameSizeAndSameSha256() {
    ManifestEntry prev = new ManifestEntry("a", 5, "b".repeat(64), "v1", Instant.EPOCH);
    assertThat(BackupRunner.unchanged(prev, 5, "b".repeat(64))).isTrue();
    assertThat(BackupRunner.unchanged(prev, 6, "b".repeat(64))).isFalse();
    assertThat(BackupRunner.unchanged(prev, 5, "c".repeat(64))).isFalse();
    assertThat(BackupRunner.unchanged(null, 5, "b".repeat(64))).isFalse();
  }

  @Test
  void firstRunStoresEveryFileAndWritesACompleteManifest() {
    InMemoryObjectStore store = new InMemoryObjectStore(true);
    BackupRunner.Result r = backup(store, new Cancellation(), p -> { });
    assertThat(r.ok()).isTrue();
    assertThat(r.stored()).isEqualTo(3);
    assertThat(store.puts).containsExactly("n/a b/ü+x/f.txt", "n/empty", "n/z.txt", "n/.ballast-manifest.json");
    Manifest m = manifest(store);
    assertThat(m.complete()).isTrue();
    assertThat(m.files()).extracting(ManifestEntry::path).containsExactly("a b/ü+x/f.txt", "empty", "z.txt");
    assertThat(m.files().get(0).sha256()).isEqualTo(InMemoryObjectStore.sha256("hello".getBytes(StandardCharsets.UTF_8)));
    assertThat(m.files().get(0).versionId()).isEqualTo(store.versions("n/a b/ü+x/f.txt").get(0).versionId());
  }

  @Test
  void secondRunUploadsNothingButAManifestVersion() {
    InMemoryObjectStore store = new InMemoryObjectStore(true);
    backup(store, new Cancellation(), p -> { });
    store.puts.clear();
    BackupRunner.Result r = backup(store, new Cancellation(), p -> { });
    assertThat(r.ok()).isTrue();
    assertThat(r.stored()).isZero();
    assertThat(r.unchanged()).isEqualTo(3);
    assertThat(store.puts).containsExactly("n/.ballast-manifest.json");
    assertThat(store.versions(Manifest.key("n"))).hasSize(2);
  }

  @Test
  void onlyAChangedFileIsUploadedAgain() throws IOException {
    InMemoryObjectStore store = new InMemoryObjectStore(true);
    backup(store, new Cancellation(), p -> { });
    Files.writeString(src.resolve("z.txt"), "zzZ");
    store.puts.clear();
    BackupRunner.Result r = backup(store, new Cancellation(), p -> { });
    assertThat(r.stored()).isEqualTo(1);
    assertThat(store.puts).containsExactly("n/z.txt", "n/.ballast-manifest.json");
  }

  @Test
  void readsBackEachUploadWhenTheStoreDoesNotValidateChecksums() {
    InMemoryObjectStore store = new InMemoryObjectStore(false);
    backup(store, new Cancellation(), p -> { });
    assertThat(store.gets).contains("n/a b/ü+x/f.txt", "n/empty", "n/z.txt");
    InMemoryObjectStore validating = new InMemoryObjectStore(true);
    backup(validating, new Cancellation(), p -> { });
    assertThat(validating.gets).doesNotContain("n/z.txt");
  }

  @Test
  void symlinksAreSkippedAndReported() throws IOException {
    Files.createSymbolicLink(src.resolve("link"), src.resolve("z.txt"));
    InMemoryObjectStore store = new InMemoryObjectStore(true);
    BackupRunner.Result r = backup(store, new Cancellation(), p -> { });
    assertThat(r.skipped()).singleElement().asString().startsWith("link (symbolic link");
    assertThat(store.puts).doesNotContain("n/link");
    assertThat(r.ok()).isTrue();
  }

  @Test
  void aStoreThatDiesMidRunLeavesNoCompleteManifest() {
    InMemoryObjectStore store = new InMemoryObjectStore(true) {
      int puts;

      @Override
      public synchronized ObjectVersion put(String key, ObjectContent content) {
        if (++puts > 1) {
          throw new StorageUnavailableException(key, "down", new IOException("Connection refused"));
        }
        return super.put(key, content);
      }
    };
    List<String> stored = new ArrayList<>();
    BackupRunner.Result r = backup(store, new Cancellation(), stored::add);
    assertThat(r.ok()).isFalse();
    assertThat(r.unavailable()).isNotNull();
    assertThat(stored).containsExactly("a b/ü+x/f.txt");
    assertThat(r.failed()).extracting(BackupRunner.Failure::path).containsExactly("empty");
    assertThat(r.notAttempted()).containsExactly("z.txt");
    assertThat(r.manifestVersionId()).isNull();
    assertThat(store.versions(Manifest.key("n"))).isEmpty();
  }

  @Test
  void cancellingStopsAfterTheCurrentFileAndMarksTheManifestIncomplete() {
    InMemoryObjectStore store = new InMemoryObjectStore(true);
    Cancellation cancel = new Cancellation();
    BackupRunner.Result r = backup(store, cancel, p -> cancel.cancel());
    assertThat(r.cancelled()).isTrue();
    assertThat(r.stored()).isEqualTo(1);
    assertThat(r.notAttempted()).containsExactly("empty", "z.txt");
    Manifest m = manifest(store);
    assertThat(m.complete()).isFalse();
    assertThat(m.files()).extracting(ManifestEntry::path).containsExactly("a b/ü+x/f.txt");
    assertThat(m.notStored()).containsExactly("empty", "z.txt");
  }

  @Test
  void namesThatAreNotValidUtf8OrHoldControlCharactersAreReportedNotStoredAndNeverCollide() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue("UTF-8".equalsIgnoreCase(System.getProperty("sun.jnu.encoding")),
        "file names are decoded as UTF-8");
    // Two names differing only in bytes that are not UTF-8 decode to the same string (U+FFFD); Java
    // cannot create them, the shell can.
    Process p = new ProcessBuilder("/bin/sh", "-c",
        "printf one > \"$(printf 'x\\377')\"; printf two > \"$(printf 'x\\376')\"; printf 3 > \"$(printf 'nl\\nname')\"")
        .directory(src.toFile()).inheritIO().start();
    assertThat(p.waitFor()).isZero();
    InMemoryObjectStore store = new InMemoryObjectStore(true);
    BackupRunner.Result r = backup(store, new Cancellation(), x -> { });

    assertThat(r.ok()).isFalse();
    assertThat(r.failed()).extracting(BackupRunner.Failure::path)
        .containsExactlyInAnyOrder("x\uFFFD", "x\uFFFD", "nl\nname");
    assertThat(r.failed()).extracting(BackupRunner.Failure::reason)
        .anySatisfy(reason -> assertThat(reason).contains("not valid UTF-8"))
        .anySatisfy(reason -> assertThat(reason).contains("control character"));
    assertThat(store.puts).noneMatch(k -> k.contains("\uFFFD") || k.contains("\n"));
    Manifest m = manifest(store);
    assertThat(m.complete()).isFalse();
    assertThat(m.files()).extracting(ManifestEntry::path).containsExactly("a b/ü+x/f.txt", "empty", "z.txt");
  }
}
