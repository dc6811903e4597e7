package dev.ballast.storage.object.local;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store on a read-only disk, or on a disk filled to its last byte, is read as on any other disk
 * (issue 20, items 6 and 7): after a writer closed the store there is no {@code index.db-wal} nor
 * {@code -shm}, and SQLite cannot create them there ({@code SQLITE_CANTOPEN} read-only,
 * {@code SQLITE_IOERR_SHMSIZE} full). As root the disk is a tmpfs, remounted read-only or filled;
 * elsewhere the read-only case takes the write permission off the directory.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@ExtendWith(LeakCheck.class)
class ReadOnlyAndFullDiskTest {

    @TempDir
    Path dir;

    private final Disks disks = new Disks();

    @AfterEach
    void unmount() throws Exception {
        disks.close();
    }

    static byte[] random(long seed, int size) {
        byte[] b = new byte[size];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    private static byte[] read(LocalObjectStore store, String key) throws IOException {
        try (ObjectRead r = store.get(key)) {
            return r.readAllBytes();
        }
    }

    private static List<String> files(Path root) throws IOException {
        try (Stream<Path> s = Files.list(root)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** A store with a small and a large content, closed by its writer. */
    private Path storeWithTwoObjects(Path root) {
        try (LocalObjectStore store = LocalObjectStore.open(root)) {
            store.put("photos/small.txt", ObjectContent.ofBytes("small".getBytes(UTF_8)));
            store.put("photos/large.bin", ObjectContent.ofBytes(random(1, 200_000)));
        }
        return root;
    }

    private static LocalObjectStore reader(Path root) {
        return LocalObjectStore.open(
                root, LocalStoreConfig.builder().readOnly(true).build());
    }

    @Test
    void aStoreOnAReadOnlyDiskIsReadWithoutCreatingAFile() throws Exception {
        Path disk = dir.resolve("disk");
        disks.mountTmpfs(disk, "16m");
        Path root = storeWithTwoObjects(disk.resolve("store"));
        assertThat(files(root)).doesNotContain("index.db-wal", "index.db-shm");
        disks.makeReadOnly(disks.mounted(disk) ? disk : root);
        assertThat(Disks.cannotCreateFilesIn(root))
                .as("the test needs a directory where no file can be created")
                .isTrue();
        List<String> before = files(root);

        try (LocalObjectStore store = reader(root)) {
            assertThat(store.list("photos/")).containsExactly("photos/large.bin", "photos/small.txt");
            assertThat(read(store, "photos/small.txt")).isEqualTo("small".getBytes(UTF_8));
            assertThat(read(store, "photos/large.bin")).isEqualTo(random(1, 200_000));
            assertThat(store.versions("photos/small.txt")).hasSize(1);
        }
        assertThat(files(root)).isEqualTo(before);
    }

    @Test
    void aReadOnlyStoreWhoseWriterWasKilledBeforeItsCheckpointIsReadWithEveryCommittedVersion() throws Exception {
        Path disk = dir.resolve("disk");
        disks.mountTmpfs(disk, "16m");
        Path root = Files.createDirectories(disk.resolve("store"));
        Path running = dir.resolve("running");
        try (LocalObjectStore store = LocalObjectStore.open(running)) {
            store.put("a", ObjectContent.ofBytes("first".getBytes(UTF_8)));
            store.put("a", ObjectContent.ofBytes("second".getBytes(UTF_8)));
            // What a kill -9 leaves: the versions committed to the write-ahead log, not yet in index.db.
            assertThat(Files.size(running.resolve("index.db-wal"))).isPositive();
            try (Stream<Path> all = Files.walk(running)) {
                for (Path p : all.toList()) {
                    Path to = root.resolve(running.relativize(p).toString());
                    if (Files.isDirectory(p)) {
                        Files.createDirectories(to);
                    } else if (!p.getFileName().toString().endsWith("-shm")
                            && !p.getFileName().toString().equals("lock")) {
                        Files.copy(p, to);
                    }
                }
            }
        }
        disks.makeReadOnly(disks.mounted(disk) ? disk : root);
        assertThat(Disks.cannotCreateFilesIn(root)).isTrue();

        try (LocalObjectStore store = reader(root)) {
            assertThat(read(store, "a")).isEqualTo("second".getBytes(UTF_8));
            assertThat(store.versions("a")).hasSize(2);
        }
    }

    @Test
    void aStoreOnAFullDiskIsRead() throws Exception {
        Path disk = dir.resolve("disk");
        org.junit.jupiter.api.Assumptions.assumeTrue(
                disks.mountTmpfs(disk, "4m"), "a tmpfs can be mounted (root) to fill it");
        Path root = storeWithTwoObjects(disk.resolve("store"));
        Disks.fill(disk);
        assertThat(disk.toFile().getUsableSpace()).isZero();

        try (LocalObjectStore store = reader(root)) {
            assertThat(store.list("")).containsExactly("photos/large.bin", "photos/small.txt");
            assertThat(read(store, "photos/small.txt")).isEqualTo("small".getBytes(UTF_8));
            assertThat(read(store, "photos/large.bin")).isEqualTo(random(1, 200_000));
        }
    }

    /** Fills the disk under {@code disk} with versions of the store at {@code root}, then to the last byte. */
    private static List<String> filledWithVersions(Path disk, Path root) throws IOException {
        List<String> keys = new java.util.ArrayList<>();
        try (LocalObjectStore store = LocalObjectStore.open(root)) {
            for (int i = 0; ; i++) {
                try {
                    store.put("big/" + i, ObjectContent.ofBytes(random(i, 1024 * 1024)));
                    store.put("small/" + i, ObjectContent.ofBytes(random(-i, 10_000)));
                    keys.add("big/" + i);
                    keys.add("small/" + i);
                } catch (dev.ballast.storage.StorageUnavailableException full) {
                    assertThat(full).hasMessageContaining("out of space");
                    break;
                }
            }
        }
        Disks.fill(disk);
        assertThat(disk.toFile().getUsableSpace()).isZero();
        return keys;
    }

    @Test
    void versionsAreRemovedAndTheirSpaceGivenBackOnADiskFilledToTheLastByte() throws Exception {
        Path disk = dir.resolve("disk");
        org.junit.jupiter.api.Assumptions.assumeTrue(
                disks.mountTmpfs(disk, "24m"), "a tmpfs can be mounted (root) to fill it");
        Path root = disk.resolve("store");
        List<String> keys = filledWithVersions(disk, root);
        assertThat(keys).hasSizeGreaterThan(4);

        LocalStoreConfig removal = LocalStoreConfig.builder().forRemoval(true).build();
        try (LocalObjectStore store = LocalObjectStore.open(root, removal)) {
            for (String key : keys.subList(0, keys.size() - 2)) {
                for (var v : store.versions(key)) {
                    assertThat(store.deleteVersion(key, v.versionId())).isTrue();
                }
            }
            assertThat(store.compact().packsRemoved()).isPositive();
            assertThat(store.list("")).containsExactlyElementsOf(keys.subList(keys.size() - 2, keys.size()));
        }
        assertThat(disk.toFile().getUsableSpace()).isGreaterThan(8L * 1024 * 1024);
        // The reserve is back for the next time the disk fills, and the store takes writes again.
        assertThat(Files.size(root.resolve(SpaceReserve.FILE))).isEqualTo(SpaceReserve.BYTES);
        try (LocalObjectStore store = LocalObjectStore.open(root)) {
            store.put("after", ObjectContent.ofBytes(random(7, 2 * 1024 * 1024)));
            assertThat(read(store, keys.get(keys.size() - 2))).isEqualTo(random((keys.size() - 2) / 2, 1024 * 1024));
        }
    }

    @Test
    void aBackupWriterNeverUsesTheReserve() throws Exception {
        Path disk = dir.resolve("disk");
        org.junit.jupiter.api.Assumptions.assumeTrue(
                disks.mountTmpfs(disk, "16m"), "a tmpfs can be mounted (root) to fill it");
        Path root = disk.resolve("store");
        filledWithVersions(disk, root);

        // Refused when it opens (SQLite cannot grow its shared memory file) or when it writes.
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> {
                    try (LocalObjectStore store = LocalObjectStore.open(root)) {
                        store.put("more", ObjectContent.ofBytes(random(99, 1024 * 1024)));
                    }
                })
                .isInstanceOf(dev.ballast.storage.StorageUnavailableException.class);
        assertThat(Files.size(root.resolve(SpaceReserve.FILE))).isEqualTo(SpaceReserve.BYTES);
    }
}
