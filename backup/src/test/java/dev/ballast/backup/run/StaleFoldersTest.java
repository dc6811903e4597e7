package dev.ballast.backup.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.Cancellation;
import dev.ballast.backup.ProgressCounter;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.backup.snapshot.ManifestTree;
import dev.ballast.backup.snapshot.Manifests;
import dev.ballast.storage.object.VersionEntry;
import dev.ballast.test.FakeObjectStore;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A folder that becomes unreadable between two backups (chmod 000, the backup run as its owner): the
 * second snapshot dropped the folder's directories, and restore said of the folder "its run could not
 * store it and no earlier backup had" it though the first backup had it. The second run's snapshot now
 * keeps the folder's directories and links from the first, and the folder is a stale entry naming that
 * backup. Tests run as root, who reads any folder, so the walk's failure for the folder is given as the
 * walk records it ({@link BackupRunner.Failure}, the message its IOException gives).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
@ExtendWith(LeakCheck.class)
class StaleFoldersTest {
    @TempDir
    Path src;

    private final List<String> notes = new ArrayList<>();

    @Test
    void aFolderThatCouldNotBeReadKeepsItsEntriesFromTheEarlierBackupAndIsNotCalledMissing() throws IOException {
        Files.createDirectories(src.resolve("sec/inner"));
        Files.createDirectories(src.resolve("pub"));
        Files.writeString(src.resolve("sec/a.txt"), "secret");
        Files.writeString(src.resolve("sec/inner/c.txt"), "inner");
        Files.createSymbolicLink(src.resolve("sec/link"), Path.of("a.txt"));
        Files.writeString(src.resolve("pub/p.txt"), "public");
        FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime());
        BackupRunner.Result first = new BackupRunner(
                        store,
                        "n",
                        src,
                        new BackupRunner.Settings(false, 1, false),
                        new Cancellation(),
                        BackupRunnerTest.CLOCK,
                        notes::add,
                        () -> new ProgressCounter(0, 0),
                        Duration.ofSeconds(5),
                        p -> {})
                .run();
        assertThat(first.ok()).as("%s", first).isTrue();
        String firstVersion = first.manifestVersionId();

        // The second run: 'sec' could not be listed; it found pub/ and pub/p.txt only.
        PreviousManifest previous = new PreviousManifest(store, "n", src, false, notes::add, null, null);
        List<ManifestEntry> listed = new ArrayList<>(previous.read().values().stream()
                .filter(e -> e.path().startsWith("pub/"))
                .toList());
        ManifestTree walked = new ManifestTree(
                List.of(new ManifestTree.Directory("pub", java.time.Instant.EPOCH, null)), List.of(), List.of());
        String why = "it could not be read (" + src.resolve("sec") + ": permission denied)";
        PreviousManifest.Kept kept =
                previous.keepPrevious(List.of(new BackupRunner.Failure("sec", why)), listed, walked);

        assertThat(kept.tree().directories())
                .extracting(ManifestTree.Directory::path)
                .containsExactly("pub", "sec", "sec/inner");
        assertThat(kept.tree().symlinks())
                .extracting(ManifestTree.Symlink::path)
                .containsExactly("sec/link");
        assertThat(listed).extracting(ManifestEntry::path).contains("sec/a.txt", "sec/inner/c.txt");
        assertThat(kept.stale())
                .extracting(Manifest.Stale::path)
                .containsExactly("sec", "sec/a.txt", "sec/inner/c.txt");

        Manifest second = new Manifest(
                Manifest.FORMAT_VERSION,
                "n",
                BackupRunnerTest.CLOCK.instant(),
                true,
                listed.stream()
                        .sorted(java.util.Comparator.comparing(ManifestEntry::path))
                        .toList(),
                List.of("sec"),
                kept.stale(),
                null,
                kept.tree(),
                src.toString(),
                null);
        List<String> restoreSays = new ArrayList<>();
        Manifests.noteStale(
                second,
                new VersionEntry(Manifest.key("n"), "v2", null, 0, java.time.Instant.EPOCH, true, false, null),
                restoreSays::add);

        assertThat(restoreSays).noneMatch(l -> l.contains("no earlier backup had"));
        assertThat(restoreSays)
                .anySatisfy(l -> assertThat(l)
                        .startsWith("Stale: sec/ (not stored by this run: " + why
                                + "; the snapshot keeps what is under it as backup " + Manifests.label(firstVersion)
                                + " of "));
    }
}
