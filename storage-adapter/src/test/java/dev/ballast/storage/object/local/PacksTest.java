package dev.ballast.storage.object.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pack writer's rule that only a pack with a committed row is ever appended to. */
class PacksTest {

    @TempDir
    Path root;

    /** The index's view of the packs, as committed and rolled back transactions leave it. */
    static final class Catalogue implements Packs.Catalogue {
        final List<Long> committed = new ArrayList<>();
        final List<Long> inTransaction = new ArrayList<>();
        long highestEver;

        @Override
        public long newestPack() {
            return committed.isEmpty() ? 0 : committed.get(committed.size() - 1);
        }

        @Override
        public long nextPackId() {
            return highestEver + 1;
        }

        @Override
        public void addPack(long id) {
            inTransaction.add(id);
        }

        void commit() {
            committed.addAll(inTransaction);
            inTransaction.forEach(id -> highestEver = Math.max(highestEver, id));
            inTransaction.clear();
        }

        void rollback() {
            inTransaction.clear();
        }
    }

    @Test
    void aPackCreatedByABatchThatRolledBackIsNeverAppendedToAgain() throws Exception {
        Catalogue catalogue = new Catalogue();
        Packs packs = new Packs(root, 1024 * 1024);

        long first = packs.beginBatch(catalogue);
        packs.add(new byte[100]);
        packs.writeBatch();
        catalogue.rollback(); // the transaction naming the new pack failed
        packs.batchFailed();

        long second = packs.beginBatch(catalogue);
        assertThat(second)
                .as("a new pack, recorded in this batch's transaction")
                .isNotEqualTo(first);
        assertThat(catalogue.inTransaction).containsExactly(second);
        packs.add(new byte[50]);
        packs.writeBatch();
        packs.force();
        catalogue.commit();

        long third = packs.beginBatch(catalogue);
        assertThat(third).as("a pack with a committed row is appended to").isEqualTo(second);
        assertThat(packs.add(new byte[10])).as("after the bytes already there").isEqualTo(50);
        packs.close();
        assertThat(Files.size(packs.path(first))).isEqualTo(100);
    }

    @Test
    void aFailedBatchInAPackThatWasAlreadyRecordedGoesOnInThatPack() throws Exception {
        Catalogue catalogue = new Catalogue();
        Packs packs = new Packs(root, 1024 * 1024);
        long first = packs.beginBatch(catalogue);
        packs.add(new byte[100]);
        packs.writeBatch();
        catalogue.commit();

        assertThat(packs.beginBatch(catalogue)).isEqualTo(first);
        packs.add(new byte[30]);
        packs.writeBatch();
        catalogue.rollback();
        packs.batchFailed();

        assertThat(packs.beginBatch(catalogue)).isEqualTo(first);
        assertThat(packs.add(new byte[10]))
                .as("after the failed batch's bytes, which no row names")
                .isEqualTo(130);
        packs.close();
    }

    @Test
    void orphanRemovalDeletesOnlyPackFilesNoRowNamesWhateverTheirIdAndLeavesOtherFilesAlone() throws Exception {
        Packs packs = new Packs(root, 1024 * 1024);
        Files.createDirectories(root.resolve(Packs.PACKS));
        Path recorded = Files.write(packs.path(1), new byte[1]);
        Path large = Files.write(packs.path(0x1_0000_0000L), new byte[1]); // past eight hex digits
        Path orphan = Files.write(packs.path(7), new byte[1]);
        Path notes = Files.write(root.resolve(Packs.PACKS).resolve("notes.txt"), new byte[1]);

        assertThat(packs.removeOrphans(java.util.Set.of(1L, 0x1_0000_0000L))).isEqualTo(1);

        assertThat(orphan).doesNotExist();
        assertThat(recorded).exists();
        assertThat(large).exists();
        assertThat(notes).exists();
    }
}
