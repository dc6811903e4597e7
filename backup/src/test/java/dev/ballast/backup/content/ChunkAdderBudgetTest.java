package dev.ballast.backup.content;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.keys.MasterKey;
import dev.ballast.backup.pack.BlobRepository;
import dev.ballast.backup.pack.Chunker;
import dev.ballast.backup.pack.PackOptions;
import dev.ballast.test.FakeObjectStore;
import org.junit.jupiter.api.Test;

/** The copies of large chunks waiting to be hashed follow the heap: one largest chunk waiting and half of one kept on 128 MiB. */
class ChunkAdderBudgetTest {
    static final long MIB = 1024 * 1024;

    @Test
    void copiesWaitingAndKeptFollowTheHeap() {
        try (BlobRepository repo =
                        BlobRepository.open(new FakeObjectStore(), MasterKey.generate(), PackOptions.defaults());
                ChunkAdder small = new ChunkAdder(repo, 128 * MIB);
                ChunkAdder large = new ChunkAdder(repo, 4096 * MIB)) {
            assertThat(small.budgetBytes()).isEqualTo(Chunker.MAX_SIZE);
            assertThat(small.spareLimit()).isEqualTo(Chunker.MAX_SIZE / 2);
            assertThat(large.budgetBytes()).isEqualTo(ChunkAdder.BUDGET_BYTES);
            assertThat(large.spareLimit()).isEqualTo(ChunkAdder.SPARE_BYTES);
        }
    }
}
