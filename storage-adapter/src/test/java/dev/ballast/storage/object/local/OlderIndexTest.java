package dev.ballast.storage.object.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.testkit.LeakCheck;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * An older copy of {@code index.db} put in place of the current one (a store directory restored from a
 * day-old copy of just that file): before, readers showed the older state as the current one and the
 * next writer deleted the pack files the older index did not name, losing what the newer versions
 * held. The index is now compared with the journal's newest committed change, and such an index is
 * refused by readers and writers alike until a rebuild brings it up to date, without bringing back
 * what was removed since.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@ExtendWith(LeakCheck.class)
class OlderIndexTest {

    @TempDir
    Path dir;

    Path root() {
        return dir.resolve("store");
    }

    static final LocalStoreConfig SMALL_PACKS =
            LocalStoreConfig.builder().packSize(64 * 1024).build();

    Path index() {
        return root().resolve(LocalObjectStore.INDEX_FILE);
    }

    List<Path> packFiles() throws Exception {
        try (Stream<Path> files = Files.list(root().resolve(Packs.PACKS))) {
            return files.sorted().toList();
        }
    }

    /**
     * A store whose index was copied aside after a first round of writes, then written to again: new
     * versions filling a second pack file, and a version of the first round removed for good. Returns
     * what a reader saw before the copy was put back.
     */
    List<IndexRebuildTest.Seen> olderIndexPutBack() throws Exception {
        try (LocalObjectStore store = LocalObjectStore.open(root(), SMALL_PACKS)) {
            for (int i = 0; i < 10; i++) {
                store.put("old/" + i, ObjectContent.ofBytes(IndexRebuildTest.random(i, 3000)));
            }
        }
        Path copy = dir.resolve("index.db.copy");
        Files.copy(index(), copy);
        List<IndexRebuildTest.Seen> current;
        try (LocalObjectStore store = LocalObjectStore.open(root(), SMALL_PACKS)) {
            for (int i = 0; i < 30; i++) {
                store.put("new/" + i, ObjectContent.ofBytes(IndexRebuildTest.random(100 + i, 3000)));
            }
            assertThat(store.deleteVersion(
                            "old/0", store.versions("old/0").get(0).versionId()))
                    .isTrue();
            current = IndexRebuildTest.everything(store);
        }
        assertThat(packFiles()).hasSizeGreaterThan(1);
        Files.copy(copy, index(), StandardCopyOption.REPLACE_EXISTING);
        return current;
    }

    @Test
    void anOlderIndexIsRefusedAndItsWriterDeletesNothing() throws Exception {
        olderIndexPutBack();
        List<Path> packs = packFiles();

        assertThatThrownBy(() -> IndexRebuildTest.reader(root()).close())
                .isInstanceOf(IntegrityException.class)
                .hasMessageContaining("is older than its journal: it lacks the removal of version ")
                .hasMessageContaining("rebuild it from the journal");
        assertThatThrownBy(() -> LocalObjectStore.open(root(), SMALL_PACKS).close())
                .isInstanceOf(IntegrityException.class)
                .hasMessageContaining("is older than its journal");

        assertThat(packFiles()).isEqualTo(packs);
    }

    @Test
    void aRebuildBringsTheIndexUpToDateWithoutBringingBackWhatWasRemoved() throws Exception {
        List<IndexRebuildTest.Seen> current = olderIndexPutBack();

        IndexRebuild report = LocalObjectStore.rebuildIndex(root());

        assertThat(report.changed()).isTrue();
        assertThat(report.contentMissing()).isEmpty();
        try (LocalObjectStore store = IndexRebuildTest.reader(root())) {
            assertThat(IndexRebuildTest.everything(store)).isEqualTo(current);
        }
        try (LocalObjectStore store = LocalObjectStore.open(root(), SMALL_PACKS)) {
            store.put("after", ObjectContent.ofBytes(IndexRebuildTest.random(7, 100)));
        }
        assertThat(LocalObjectStore.rebuildIndex(root()).changed()).isFalse();
    }

    /** A copy of the index taken just before {@code change}, put back after it. */
    void olderBy(ThrowingChange change) throws Exception {
        Path copy = dir.resolve("index.db.before");
        Files.copy(index(), copy, StandardCopyOption.REPLACE_EXISTING);
        try (LocalObjectStore store = LocalObjectStore.open(root(), SMALL_PACKS)) {
            change.apply(store);
        }
        Files.copy(copy, index(), StandardCopyOption.REPLACE_EXISTING);
    }

    interface ThrowingChange {
        void apply(LocalObjectStore store) throws Exception;
    }

    /**
     * A compaction is the newest change (in the earlier format, a prune ends with one): the older index
     * names the pack it emptied and not the one it filled, which its writer deleted as an orphan, losing
     * the contents the compaction had moved there.
     */
    @Test
    void anIndexOlderThanACompactionIsRefusedAndThePackItFilledKept() throws Exception {
        try (LocalObjectStore store = LocalObjectStore.open(root(), SMALL_PACKS)) {
            for (int i = 0; i < 20; i++) {
                store.put("small/" + i, ObjectContent.ofBytes(IndexRebuildTest.random(i, 3000)));
            }
            for (int i = 1; i < 20; i++) {
                store.deleteVersion(
                        "small/" + i, store.versions("small/" + i).get(0).versionId());
            }
        }
        olderBy(store -> assertThat(store.compact().contentsMoved()).isPositive());
        List<Path> packs = packFiles();

        assertThatThrownBy(() -> LocalObjectStore.open(root(), SMALL_PACKS).close())
                .isInstanceOf(IntegrityException.class)
                .hasMessageContaining("lacks a content's move to pack");

        assertThat(packFiles()).isEqualTo(packs);
        assertThat(LocalObjectStore.rebuildIndex(root()).contentMissing()).isEmpty();
        try (LocalObjectStore store = IndexRebuildTest.reader(root())) {
            assertThat(IndexRebuildTest.everything(store)).hasSize(1);
        }
    }

    @Test
    void anIndexOlderThanARemovalIsRefused() throws Exception {
        try (LocalObjectStore store = LocalObjectStore.open(root(), SMALL_PACKS)) {
            store.put("a", ObjectContent.ofBytes(IndexRebuildTest.random(1, 100)));
            store.put("a", ObjectContent.ofBytes(IndexRebuildTest.random(2, 100)));
        }
        olderBy(store -> store.deleteVersion("a", store.versions("a").get(1).versionId()));

        assertThatThrownBy(() -> IndexRebuildTest.reader(root()).close())
                .isInstanceOf(IntegrityException.class)
                .hasMessageContaining("lacks the removal of version");
    }

    /**
     * Runs that leave nothing behind after the change the older index lacks (a tester's: five prunes with
     * nothing to delete, each writing and removing its run marker, hid the older index, and the next
     * prune deleted a pack the newest snapshot needed).
     */
    @Test
    void anIndexOlderThanManyRunsThatLeftNothingIsRefused() throws Exception {
        try (LocalObjectStore store = LocalObjectStore.open(root(), SMALL_PACKS)) {
            store.put("a", ObjectContent.ofBytes(IndexRebuildTest.random(1, 100)));
        }
        Path copy = dir.resolve("index.db.before");
        Files.copy(index(), copy);
        try (LocalObjectStore store = LocalObjectStore.open(root(), SMALL_PACKS)) {
            store.put("b", ObjectContent.ofBytes(IndexRebuildTest.random(2, 100)));
        }
        for (int run = 0; run < 12; run++) {
            try (LocalObjectStore store = LocalObjectStore.open(root(), SMALL_PACKS)) {
                store.put("marker", ObjectContent.ofBytes(IndexRebuildTest.random(3, 10)));
                store.deleteVersion("marker", store.versions("marker").get(0).versionId());
            }
        }
        Files.copy(copy, index(), StandardCopyOption.REPLACE_EXISTING);

        assertThatThrownBy(() -> IndexRebuildTest.reader(root()).close())
                .isInstanceOf(IntegrityException.class)
                .hasMessageContaining("is older than its journal");
    }

    /**
     * A named pipe in place of the newest journal file: its open would wait for a writer forever. It is never
     * opened: the journal ends there, before the index, and a rebuild moves it aside and writes the journal anew.
     */
    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aJournalFileThatIsAPipeHangsNoOpen() throws Exception {
        try (LocalObjectStore store = LocalObjectStore.open(root(), SMALL_PACKS)) {
            store.put("a", ObjectContent.ofBytes(IndexRebuildTest.random(1, 100)));
        }
        Path newest =
                JournalFiles.files(root().resolve(Journal.DIR)).lastEntry().getValue();
        Files.delete(newest);
        Process mkfifo = new ProcessBuilder("mkfifo", newest.toString()).start();
        assertThat(mkfifo.waitFor()).isZero();

        assertThatThrownBy(() -> IndexRebuildTest.reader(root()).close())
                .isInstanceOf(IntegrityException.class)
                .hasMessageContaining("ends before its index")
                .hasMessageContaining("is a FIFO or other special file");
        assertThatThrownBy(() -> LocalObjectStore.open(root(), SMALL_PACKS).close())
                .isInstanceOf(IntegrityException.class)
                .hasMessageContaining("ends before its index");

        IndexRebuild r = LocalObjectStore.rebuildIndex(root());
        assertThat(r.journalShorter()).isTrue();
        assertThat(r.movedAside()).singleElement().asString().contains("was a FIFO or other special file");
        assertThat(Files.isRegularFile(newest, java.nio.file.LinkOption.NOFOLLOW_LINKS) || !Files.exists(newest))
                .isTrue();
        IndexRebuildTest.reader(root()).close();
        try (LocalObjectStore store = LocalObjectStore.open(root(), SMALL_PACKS)) {
            store.put("b", ObjectContent.ofBytes(IndexRebuildTest.random(2, 100)));
            try (var read = store.get("a")) {
                assertThat(read.readAllBytes()).isEqualTo(IndexRebuildTest.random(1, 100));
            }
        }
    }

    /** A newest journal file longer than the end read of it (a large backup of the earlier format). */
    @Test
    void anIndexOlderThanALargeJournalFileIsRefused() throws Exception {
        try (LocalObjectStore store = LocalObjectStore.open(root(), SMALL_PACKS)) {
            store.put("first", ObjectContent.ofBytes(IndexRebuildTest.random(1, 100)));
        }
        String longName = "d/".repeat(400);
        olderBy(store -> {
            List<java.util.concurrent.CompletableFuture<?>> writes = new java.util.ArrayList<>();
            for (int i = 0; i < 500; i++) {
                writes.add(store.putAsync(longName + i, ObjectContent.ofBytes(IndexRebuildTest.random(i, 10))));
            }
            writes.forEach(java.util.concurrent.CompletableFuture::join);
        });
        try (Stream<Path> files = Files.list(root().resolve(Journal.DIR))) {
            assertThat(files.mapToLong(f -> f.toFile().length()).max().orElseThrow())
                    .isGreaterThan(OlderIndex.TAIL_BYTES);
        }

        assertThatThrownBy(() -> IndexRebuildTest.reader(root()).close())
                .isInstanceOf(IntegrityException.class)
                .hasMessageContaining("is older than its journal");
    }

    /**
     * A writer writing, removing and compacting while readers open: a change it commits between the
     * journal's reading and the index's is no older index.
     */
    @Test
    void readersOpenedWhileAWriterCommitsAreNotRefused() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        try (LocalObjectStore store = LocalObjectStore.open(root(), SMALL_PACKS)) {
            store.put("first", ObjectContent.ofBytes(IndexRebuildTest.random(1, 10)));
            Thread writer = new Thread(() -> {
                for (int i = 0; !stop.get(); i++) {
                    store.put("k/" + (i % 50), ObjectContent.ofBytes(IndexRebuildTest.random(i, 100)));
                    if (i % 97 == 0) {
                        store.compact();
                    }
                    if (i % 10 == 9) {
                        store.deleteVersion(
                                "k/" + (i % 50),
                                store.versions("k/" + (i % 50)).get(0).versionId());
                    }
                }
            });
            writer.start();
            try {
                for (int i = 0; i < 300; i++) {
                    IndexRebuildTest.reader(root()).close();
                }
            } finally {
                stop.set(true);
                writer.join();
            }
        }
    }
}
