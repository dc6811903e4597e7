package dev.ballast.storage.object.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The index records the journal position it reached, so that a journal shorter than the index (a newest
 * journal file cut short by hand, or {@code journal/} restored from an older copy) is told from an older
 * index (a tester's: both were called an older index, and the rebuild brought back, as lost, the versions
 * the missing journal frames had removed on purpose); and the journal files every writer adds are folded
 * into one, at any step of which a kill leaves a store that opens and loses nothing.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@ExtendWith(LeakCheck.class)
class JournalPositionTest {

    @TempDir
    Path dir;

    static final LocalStoreConfig SMALL_PACKS =
            LocalStoreConfig.builder().packSize(64 * 1024).build();

    Path root() {
        return dir.resolve("store");
    }

    Path journal() {
        return root().resolve(Journal.DIR);
    }

    /** "kept", then a run marker written and removed for good and its pack compacted away, as a prune's. */
    List<IndexRebuildTest.Seen> keptAndAMarkerRemovedOnPurpose() throws Exception {
        try (LocalObjectStore store = LocalObjectStore.open(root(), SMALL_PACKS)) {
            store.put("kept", ObjectContent.ofBytes(IndexRebuildTest.random(1, 3000)));
        }
        try (LocalObjectStore store = LocalObjectStore.open(root(), SMALL_PACKS)) {
            store.put("marker", ObjectContent.ofBytes(IndexRebuildTest.random(2, 3000)));
            assertThat(store.deleteVersion(
                            "marker", store.versions("marker").get(0).versionId()))
                    .isTrue();
            store.compact();
            return IndexRebuildTest.everything(store);
        }
    }

    void assertAShorterJournalIsRepairedKeepingTheIndex(List<IndexRebuildTest.Seen> current) throws Exception {
        assertThatThrownBy(() -> IndexRebuildTest.reader(root()).close())
                .isInstanceOf(IntegrityException.class)
                .hasMessageContaining("ends before its index")
                .hasMessageNotContaining("older than its journal");
        assertThatThrownBy(() -> LocalObjectStore.open(root(), SMALL_PACKS).close())
                .isInstanceOf(IntegrityException.class)
                .hasMessageContaining("ends before its index");

        IndexRebuild report = LocalObjectStore.rebuildIndex(root());

        assertThat(report.journalShorter()).isTrue();
        assertThat(report.changed()).isFalse();
        assertThat(report.contentMissing()).isEmpty();
        assertThat(report.unrecovered()).isEmpty();
        try (LocalObjectStore store = IndexRebuildTest.reader(root())) {
            assertThat(IndexRebuildTest.everything(store)).isEqualTo(current);
        }
        // The journal written anew rebuilds the index as it is.
        Files.delete(root().resolve(LocalObjectStore.INDEX_FILE));
        assertThat(LocalObjectStore.rebuildIndex(root()).contentMissing()).isEmpty();
        try (LocalObjectStore store = LocalObjectStore.open(root(), SMALL_PACKS)) {
            assertThat(IndexRebuildTest.everything(store)).isEqualTo(current);
            store.put("after", ObjectContent.ofBytes(IndexRebuildTest.random(3, 100)));
        }
        assertThat(LocalObjectStore.rebuildIndex(root()).changed()).isFalse();
    }

    @Test
    void aNewestJournalFileCutInsideACommittedFrameIsAShorterJournalAndRepairKeepsTheIndex() throws Exception {
        List<IndexRebuildTest.Seen> current = keptAndAMarkerRemovedOnPurpose();
        Path newest = JournalFiles.files(journal()).lastEntry().getValue();
        JournalFiles.FileContents contents = JournalFiles.read(newest);
        assertThat(contents.frames()).anyMatch(f -> f.type() == Journal.REMOVE);
        try (RandomAccessFile f = new RandomAccessFile(newest.toFile(), "rw")) {
            f.setLength(f.length() - 17 - 40); // past the COMMIT marker, into the frames of the removal
        }

        assertAShorterJournalIsRepairedKeepingTheIndex(current);
    }

    @Test
    void aJournalRestoredFromAnOlderCopyIsAShorterJournalAndRepairKeepsTheIndex() throws Exception {
        twoKeys("kept", "forgotten");
        Path copy = dir.resolve("journal-copy");
        copyTree(journal(), copy);
        List<IndexRebuildTest.Seen> current;
        try (LocalObjectStore store = LocalObjectStore.open(root(), SMALL_PACKS)) {
            store.deleteVersion("forgotten", store.versions("forgotten").get(0).versionId());
            store.compact();
            current = IndexRebuildTest.everything(store);
        }
        deleteTree(journal());
        copyTree(copy, journal());

        assertAShorterJournalIsRepairedKeepingTheIndex(current);
    }

    @Test
    void anOlderIndexIsStillRefusedAsOlderAndRebuiltWithoutWhatWasRemoved() throws Exception {
        twoKeys("a", "b");
        Path copy = dir.resolve("index.db.copy");
        Files.copy(root().resolve(LocalObjectStore.INDEX_FILE), copy);
        List<IndexRebuildTest.Seen> current = removedInManyRuns("b", 20);
        Files.copy(copy, root().resolve(LocalObjectStore.INDEX_FILE), StandardCopyOption.REPLACE_EXISTING);

        assertThatThrownBy(() -> IndexRebuildTest.reader(root()).close())
                .isInstanceOf(IntegrityException.class)
                .hasMessageContaining("is older than its journal");
        IndexRebuild report = LocalObjectStore.rebuildIndex(root());
        assertThat(report.journalShorter()).isFalse();
        assertThat(report.contentMissing()).isEmpty();
        try (LocalObjectStore store = IndexRebuildTest.reader(root())) {
            assertThat(IndexRebuildTest.everything(store)).isEqualTo(current);
        }
    }

    void twoKeys(String first, String second) {
        try (LocalObjectStore store = LocalObjectStore.open(root(), SMALL_PACKS)) {
            store.put(first, ObjectContent.ofBytes(IndexRebuildTest.random(1, 3000)));
            store.put(second, ObjectContent.ofBytes(IndexRebuildTest.random(2, 3000)));
        }
    }

    /** Removes {@code key} for good, then opens the store {@code runs} times, each writing and removing a marker. */
    List<IndexRebuildTest.Seen> removedInManyRuns(String key, int runs) throws Exception {
        try (LocalObjectStore store = LocalObjectStore.open(root(), SMALL_PACKS)) {
            store.deleteVersion(key, store.versions(key).get(0).versionId());
            store.compact();
        }
        for (int run = 0; run < runs; run++) {
            try (LocalObjectStore store = LocalObjectStore.open(root(), SMALL_PACKS)) {
                store.put("run/" + run, ObjectContent.ofBytes(IndexRebuildTest.random(100 + run, 500)));
            }
        }
        try (LocalObjectStore store = IndexRebuildTest.reader(root())) {
            return IndexRebuildTest.everything(store);
        }
    }

    @Test
    void journalFilesAreFoldedSoTheyDoNotAccumulate() throws Exception {
        twoKeys("a", "b");
        List<IndexRebuildTest.Seen> current = removedInManyRuns("b", 40);

        assertThat(JournalFiles.files(journal())).hasSizeLessThanOrEqualTo(JournalFold.FOLD_AT + 1);
        Files.delete(root().resolve(LocalObjectStore.INDEX_FILE));
        IndexRebuild report = LocalObjectStore.rebuildIndex(root());
        assertThat(report.contentMissing()).isEmpty();
        assertThat(report.journalDamage()).isEmpty();
        try (LocalObjectStore store = IndexRebuildTest.reader(root())) {
            assertThat(IndexRebuildTest.everything(store)).isEqualTo(current);
        }
    }

    /** A writer killed at each step of a fold (the failure injected there): the store opens and loses nothing. */
    @Test
    void aKillAtAnyStepOfAFoldLeavesAStoreThatOpensAndLosesNothing() throws Exception {
        List<String> steps = List.of("written", "renamed", "committed", "deleted 00000002.log", "end");
        for (String step : steps) {
            deleteTree(root());
            try (LocalObjectStore store = LocalObjectStore.open(root(), SMALL_PACKS)) {
                store.put("a", ObjectContent.ofBytes(IndexRebuildTest.random(1, 3000)));
                store.put("b", ObjectContent.ofBytes(IndexRebuildTest.random(2, 3000)));
            }
            Path older = dir.resolve("index.db.older");
            Files.copy(root().resolve(LocalObjectStore.INDEX_FILE), older, StandardCopyOption.REPLACE_EXISTING);
            List<IndexRebuildTest.Seen> current = removedInManyRuns("b", 4);
            Path index = root().resolve(LocalObjectStore.INDEX_FILE);

            VersionIndex writer = VersionIndex.openWriter(index, LocalStoreConfig.DEFAULT_INLINE_THRESHOLD, false);
            Journal journal = new Journal(root(), LocalStoreConfig.DEFAULT_INLINE_THRESHOLD);
            try {
                JournalFold.fold(root(), writer, journal, reached -> {
                    if (reached.equals(step)) {
                        throw new IOException("killed at " + step);
                    }
                });
                assertThat(step).isEqualTo("end");
            } catch (IOException killed) {
                assertThat(killed).hasMessage("killed at " + step);
            } finally {
                writer.closeQuietly(); // as a kill: no checkpoint, nothing cleaned up
                journal.close();
            }

            try (LocalObjectStore store = LocalObjectStore.open(root(), SMALL_PACKS)) {
                assertThat(IndexRebuildTest.everything(store)).as(step).isEqualTo(current);
            }
            assertThat(LocalObjectStore.rebuildIndex(root()).changed()).as(step).isFalse();
            Files.delete(index);
            assertThat(LocalObjectStore.rebuildIndex(root()).contentMissing())
                    .as(step)
                    .isEmpty();
            try (LocalObjectStore store = IndexRebuildTest.reader(root())) {
                assertThat(IndexRebuildTest.everything(store)).as(step).isEqualTo(current);
            }
            // An index older than the fold is still told as older, and rebuilt without what was removed.
            Files.copy(older, index, StandardCopyOption.REPLACE_EXISTING);
            assertThatThrownBy(() -> IndexRebuildTest.reader(root()).close())
                    .as(step)
                    .isInstanceOf(IntegrityException.class)
                    .hasMessageContaining("is older than its journal");
            assertThat(LocalObjectStore.rebuildIndex(root()).contentMissing())
                    .as(step)
                    .isEmpty();
            try (LocalObjectStore store = IndexRebuildTest.reader(root())) {
                assertThat(IndexRebuildTest.everything(store)).as(step).isEqualTo(current);
            }
        }
    }

    /**
     * A fold stopped by a full disk after SQLite ended its transaction itself (as a failed statement or COMMIT
     * may): the rollback after it failed with "cannot rollback - no transaction is active", which was reported
     * in place of the full disk. The fold's own failure is reported, and the store opens and loses nothing.
     */
    @Test
    void aFoldWhoseTransactionSqliteEndedReportsItsOwnFailure() throws Exception {
        twoKeys("a", "b");
        List<IndexRebuildTest.Seen> current;
        try (LocalObjectStore store = IndexRebuildTest.reader(root())) {
            current = IndexRebuildTest.everything(store);
        }
        Path index = root().resolve(LocalObjectStore.INDEX_FILE);
        VersionIndex writer = VersionIndex.openWriter(index, LocalStoreConfig.DEFAULT_INLINE_THRESHOLD, false);
        Journal journal = new Journal(root(), LocalStoreConfig.DEFAULT_INLINE_THRESHOLD);
        try {
            assertThatThrownBy(() -> JournalFold.fold(root(), writer, journal, reached -> {
                        if (reached.equals("renamed")) {
                            try (var s = writer.connection().createStatement()) {
                                s.execute("ROLLBACK"); // what SQLite does on its own after some errors
                            } catch (java.sql.SQLException e) {
                                throw new IOException(e);
                            }
                            throw new IOException("No space left on device");
                        }
                    }))
                    .isInstanceOf(IOException.class)
                    .hasMessage("No space left on device")
                    .hasNoSuppressedExceptions();
        } finally {
            writer.checkpointAndClose();
            journal.close();
        }
        try (LocalObjectStore store = LocalObjectStore.open(root(), SMALL_PACKS)) {
            assertThat(IndexRebuildTest.everything(store)).isEqualTo(current);
        }
    }

    static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : files.toList()) {
                Files.copy(f, to.resolve(from.relativize(f).toString()));
            }
        }
    }

    static void deleteTree(Path tree) throws IOException {
        if (!Files.exists(tree)) {
            return;
        }
        try (Stream<Path> files = Files.walk(tree)) {
            for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(f);
            }
        }
    }
}
