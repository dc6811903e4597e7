package dev.ballast.backup.restore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ballast.backup.Cancellation;
import dev.ballast.backup.ProgressCounter;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.backup.snapshot.ManifestTree;
import dev.ballast.backup.tree.FileStat;
import dev.ballast.backup.tree.PosixAttrs;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.test.FakeObjectStore;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file of the target that holds the backup's bytes but shares its inode with another name (a fault
 * tester's finding): the restore called it "already present" and gave the shared inode the backup's
 * owner, mode and mtime, so a private key restored over an earlier restore that had it hard-linked to a
 * public file stayed world-readable, and a root restore into a tree hard-linked to files outside it
 * changed those files. Such a file is now written anew and renamed over the name.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
@ExtendWith(LeakCheck.class)
class RestoreSharedInodeTest {
    static final Instant MTIME = Instant.parse("2001-01-01T00:00:00Z");
    static final Instant OUTSIDE_MTIME = Instant.parse("2000-06-01T00:00:00Z");

    @TempDir
    Path dir;

    final FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime());

    ManifestEntry stored(String path, String content, int mode) {
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        ObjectVersion v = store.put(Manifest.objectKey("n", path), ObjectContent.ofBytes(bytes));
        return new ManifestEntry(path, bytes.length, v.sha256(), v.versionId(), MTIME)
                .withAttrs(new PosixAttrs(mode, 0, 0));
    }

    RestoreRunner.Result restore(Manifest m, Path target) throws IOException {
        return new RestoreRunner(store, m, target, false, 4, new Cancellation(), x -> new ProgressCounter(0, 0)).run();
    }

    /** A manifest of {@code file} and a hard link to it at {@code link}. */
    static Manifest linked(ManifestEntry file, String link) {
        return new Manifest(
                1,
                "n",
                MTIME,
                true,
                List.of(file),
                List.of(),
                new ManifestTree(List.of(), List.of(), List.of(new ManifestTree.HardLink(link, file.path()))));
    }

    static String mode(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }

    static int links(Path p) throws IOException {
        return (Integer) Files.getAttribute(p, "unix:nlink");
    }

    @Test
    void aFileHardLinkedToOneOutsideTheTargetIsWrittenAnewAndTheOutsideFileKeepsItsAttributes() throws IOException {
        assumeTrue(FileStat.UNIX);
        Path outside = Files.createDirectories(dir.resolve("outside")).resolve("secret");
        Files.writeString(outside, "same");
        Files.setPosixFilePermissions(outside, PosixFilePermissions.fromString("rw-------"));
        Files.setLastModifiedTime(outside, FileTime.from(OUTSIDE_MTIME));
        Path target = Files.createDirectories(dir.resolve("t"));
        Files.createLink(target.resolve("f"), outside);
        Manifest m = linked(stored("f", "same", 0644), "hard");

        RestoreRunner.Result r = restore(m, target);

        assertThat(r.ok()).isTrue();
        assertThat(r.restored()).isEqualTo(1);
        assertThat(r.alreadyPresent()).isZero();
        assertThat(mode(outside)).isEqualTo("rw-------");
        assertThat(Files.getLastModifiedTime(outside).toInstant()).isEqualTo(OUTSIDE_MTIME);
        assertThat(links(outside)).isEqualTo(1);
        assertThat(Files.isSameFile(target.resolve("f"), outside)).isFalse();
        assertThat(Files.isSameFile(target.resolve("hard"), target.resolve("f")))
                .isTrue();
        assertThat(links(target.resolve("f"))).isEqualTo(2);
        assertThat(target.resolve("f")).hasContent("same");
        assertThat(mode(target.resolve("f"))).isEqualTo("rw-r--r--");
    }

    @Test
    void filesTheTargetHoldsLinkedButTheBackupHoldsApartEachGetTheirOwnMode() throws IOException {
        assumeTrue(FileStat.UNIX);
        // Field case: an earlier version had key and pub hard-linked; the newest holds them apart, key 0600.
        Path target = Files.createDirectories(dir.resolve("t"));
        Files.writeString(target.resolve("key"), "same");
        Files.createLink(target.resolve("pub"), target.resolve("key"));
        Manifest m = new Manifest(
                1, "n", MTIME, true, List.of(stored("key", "same", 0600), stored("pub", "same", 0644)), List.of());

        RestoreRunner.Result r = restore(m, target);

        assertThat(r.ok()).isTrue();
        assertThat(mode(target.resolve("key"))).isEqualTo("rw-------");
        assertThat(mode(target.resolve("pub"))).isEqualTo("rw-r--r--");
        assertThat(Files.isSameFile(target.resolve("key"), target.resolve("pub")))
                .isFalse();
        assertThat(links(target.resolve("key"))).isEqualTo(1);
    }

    @Test
    void aHardLinkGroupTheTargetAlreadyHoldsAsTheBackupDoesIsAlreadyPresent() throws IOException {
        assumeTrue(FileStat.UNIX);
        Path target = Files.createDirectories(dir.resolve("t"));
        Files.writeString(target.resolve("a"), "same");
        Files.createLink(target.resolve("b"), target.resolve("a"));
        Manifest m = linked(stored("a", "same", 0640), "b");

        RestoreRunner.Result r = restore(m, target);

        assertThat(r.ok()).isTrue();
        assertThat(r.alreadyPresent()).isEqualTo(1);
        assertThat(r.restored()).isZero();
        assertThat(Files.isSameFile(target.resolve("a"), target.resolve("b"))).isTrue();
        assertThat(mode(target.resolve("b"))).isEqualTo("rw-r-----");
    }
}
