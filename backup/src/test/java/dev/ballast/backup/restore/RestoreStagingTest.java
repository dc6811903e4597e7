package dev.ballast.backup.restore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.backup.BackupException;
import dev.ballast.backup.Cancellation;
import dev.ballast.backup.ProgressCounter;
import dev.ballast.backup.run.BackupRunner;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.backup.tree.Names;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.test.FakeObjectStore;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A restore into a target that does not exist yet, by a run that records its temporary names (as the
 * CLI's does): written in a staging directory beside the target and renamed once; a killed run's
 * staging directory is taken over by the next.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
@ExtendWith(LeakCheck.class)
class RestoreStagingTest {
    static final Instant MTIME = Instant.parse("2025-05-05T05:05:05Z");

    @TempDir
    Path dir;

    final FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime());

    ManifestEntry stored(String path, String content) {
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        ObjectVersion v = store.put(Manifest.objectKey("n", path), ObjectContent.ofBytes(bytes));
        return new ManifestEntry(path, bytes.length, v.sha256(), v.versionId(), MTIME);
    }

    static Manifest manifest(ManifestEntry... entries) {
        return new Manifest(1, "n", MTIME, true, List.of(entries), List.of());
    }

    Path records() throws IOException {
        return Files.createDirectories(dir.resolve("cache/restores"));
    }

    RestoreRunner.Result restore(FakeObjectStore from, Manifest m, Path target, boolean overwrite) throws IOException {
        return new RestoreRunner(from, m, target, overwrite, 2, new Cancellation(), x -> new ProgressCounter(0, 0))
                .recordingTemporariesIn(records())
                .run();
    }

    static List<String> names(Path p) throws IOException {
        try (Stream<Path> all = Files.list(p)) {
            return all.map(x -> x.getFileName().toString()).sorted().toList();
        }
    }

    static List<String> files(Path root) throws IOException {
        try (Stream<Path> all = Files.walk(root)) {
            return all.filter(Files::isRegularFile)
                    .map(p -> root.relativize(p).toString())
                    .sorted()
                    .toList();
        }
    }

    @Test
    void aNewTargetTakesItsNameOnlyOnceEveryFileIsWritten() throws IOException {
        Manifest m = manifest(stored("d/a.txt", "alpha"), stored("d/b.txt", "bravo"), stored("c.txt", "charlie"));
        Path parent = Files.createDirectories(dir.resolve("restores"));
        Path target = parent.resolve("out");
        List<String> seenWhileWriting = new ArrayList<>();
        FakeObjectStore watching = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime()) {
            @Override
            public ObjectRead get(String key, ReadOptions options) {
                synchronized (seenWhileWriting) {
                    seenWhileWriting.add(Files.exists(target) ? "target exists" : "no target");
                }
                return store.get(key, options);
            }
        };

        RestoreRunner.Result r = restore(watching, m, target, false);

        assertThat(r.ok()).isTrue();
        assertThat(r.restored()).isEqualTo(3);
        assertThat(seenWhileWriting).hasSize(3).containsOnly("no target");
        assertThat(target.resolve("d/a.txt")).hasContent("alpha");
        assertThat(target.resolve("d/b.txt")).hasContent("bravo");
        assertThat(target.resolve("c.txt")).hasContent("charlie");
        assertThat(Files.getLastModifiedTime(target.resolve("d/a.txt")).toInstant())
                .isEqualTo(MTIME);
        assertThat(names(parent)).as("nothing beside the target").containsExactly("out");
        assertThat(files(target)).containsExactly("c.txt", "d/a.txt", "d/b.txt");
        assertThat(names(records())).as("the run's record is gone").isEmpty();
    }

    @Test
    void aFileThatFailsItsCheckIsRemovedAndTheRestTakeTheTargetsName() throws IOException {
        Manifest m = manifest(stored("good.txt", "good"), stored("bad.txt", "payload"));
        store.rot(Manifest.objectKey("n", "bad.txt"));
        Path target = dir.resolve("out");

        RestoreRunner.Result r = restore(store, m, target, false);

        assertThat(r.ok()).isFalse();
        assertThat(r.failed()).extracting(BackupRunner.Failure::path).containsExactly("bad.txt");
        assertThat(files(target)).containsExactly("good.txt");
        assertThat(names(dir)).containsExactlyInAnyOrder("cache", "out");
    }

    @Test
    void aKilledRunsStagingDirectoryIsTakenOverKeepingWhatMatchesAndReplacingWhatDoesNot() throws IOException {
        Manifest m = manifest(stored("d/f.txt", "restored"), stored("g.txt", "also"), stored("h.txt", "third"));
        Path target = dir.resolve("out");
        // A run killed with kill -9 left its record and its staging directory: one file complete, one
        // cut short at its own name, one not begun, and a temporary file of a replacement in progress.
        String killed = "00112233aabbccdd";
        Files.write(
                records().resolve(killed), Names.bytes(target.toAbsolutePath().normalize()));
        Path staged = Files.createDirectories(dir.resolve(".ballast-" + killed + "-staging"));
        Files.createDirectories(staged.resolve("d"));
        Files.writeString(staged.resolve("d/f.txt"), "restored");
        Files.writeString(staged.resolve("g.txt"), "al");
        Files.writeString(staged.resolve(".ballast-" + killed + "-7"), "partial");

        RestoreRunner.Result r = restore(store, m, target, false);

        assertThat(r.ok()).as("%s", r.failed()).isTrue();
        assertThat(r.alreadyPresent()).isEqualTo(1);
        assertThat(r.restored()).isEqualTo(2);
        assertThat(target.resolve("d/f.txt")).hasContent("restored");
        assertThat(target.resolve("g.txt")).hasContent("also");
        assertThat(target.resolve("h.txt")).hasContent("third");
        assertThat(files(target)).containsExactly("d/f.txt", "g.txt", "h.txt");
        assertThat(names(dir)).containsExactlyInAnyOrder("cache", "out");
        assertThat(names(records())).as("both runs' records are gone").isEmpty();
    }

    @Test
    void aTargetCreatedByAnotherProgramMeanwhileIsNeverReplacedAndTheMessageSaysWhereTheTreeIs() throws IOException {
        Path target = dir.resolve("out");
        ManifestEntry a = stored("a.txt", "alpha");
        FakeObjectStore racing = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime()) {
            @Override
            public ObjectRead get(String key, ReadOptions options) {
                try {
                    Files.createDirectories(target);
                    Files.writeString(target.resolve("theirs.txt"), "another program's");
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
                return store.get(key, options);
            }
        };

        assertThatThrownBy(() -> restore(racing, manifest(a), target, false))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("'" + target.toAbsolutePath() + "' was created by something else")
                .hasMessageContaining(".ballast-")
                .hasMessageContaining("-staging");

        assertThat(files(target)).containsExactly("theirs.txt");
        Path staged;
        try (Stream<Path> beside = Files.list(dir)) {
            staged = beside.filter(p -> p.getFileName().toString().endsWith("-staging"))
                    .findFirst()
                    .orElseThrow();
        }
        assertThat(staged.resolve("a.txt")).hasContent("alpha");
        assertThat(names(records()))
                .as("the record stays, so the next run takes the tree over")
                .hasSize(1);
    }

    @Test
    void aRefusedManifestLeavesNoTargetAndNoStagingDirectory() throws IOException {
        ManifestEntry evil = new ManifestEntry("../escape.txt", 1, "0".repeat(64), "v", MTIME);
        Path target = dir.resolve("out");

        assertThatThrownBy(() -> restore(store, manifest(evil), target, false)).isInstanceOf(BackupException.class);

        assertThat(names(dir)).containsExactly("cache");
        assertThat(names(records())).isEmpty();
    }

    @Test
    void anExistingTargetIsWrittenInPlaceAsBefore() throws IOException {
        Path target = Files.createDirectories(dir.resolve("out"));
        Files.writeString(target.resolve("mine.txt"), "the user's");

        RestoreRunner.Result r = restore(store, manifest(stored("a.txt", "alpha")), target, false);

        assertThat(r.ok()).isTrue();
        assertThat(files(target)).containsExactly("a.txt", "mine.txt");
        assertThat(names(dir)).containsExactlyInAnyOrder("cache", "out");
    }
}
