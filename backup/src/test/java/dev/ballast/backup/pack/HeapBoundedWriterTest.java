package dev.ballast.backup.pack;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The pack writer's memory follows the heap it runs in: a command held to {@code -Xmx128m} (the CLI's
 * large-file test; a tester's backup of 100 MiB of random bytes ran out of heap with 16 MiB packs)
 * writes 4 MiB packs, two in flight, and keeps one largest chunk waiting to be encoded; a heap of
 * 512 MiB or more writes packs of the size the options name.
 */
class HeapBoundedWriterTest {
    static final long MIB = 1024 * 1024;

    @Test
    void aSmallHeapWritesSmallerPacksHoldsFewInFlightAndOneLargestChunkWaitingToBeEncoded() {
        assertThat(PackWriter.packSize(PackOptions.defaults(), 128 * MIB)).isEqualTo(4 * MIB);
        assertThat(PackWriter.packsInFlight(PackOptions.defaults(), 128 * MIB)).isEqualTo(2);
        assertThat(PackWriter.encodeBudgetKib(128 * MIB) * 1024L).isEqualTo(Chunker.MAX_SIZE);
        assertThat(PackWriter.packSize(PackOptions.defaults(), 16 * MIB)).isEqualTo(MIB);
        assertThat(PackWriter.packsInFlight(PackOptions.defaults(), 16 * MIB)).isEqualTo(1);
        assertThat(PackWriter.encodeBudgetKib(64 * MIB) * 1024L).isEqualTo(Chunker.MAX_SIZE);
    }

    @Test
    void aHeapOfHalfAGibibyteOrMoreWritesPacksOfTheSizeTheOptionsName() {
        assertThat(PackWriter.packSize(PackOptions.defaults(), 512 * MIB)).isEqualTo(PackOptions.DEFAULT_PACK_SIZE);
        assertThat(PackWriter.packSize(PackOptions.defaults(), 8192 * MIB)).isEqualTo(PackOptions.DEFAULT_PACK_SIZE);
        assertThat(PackWriter.packsInFlight(PackOptions.defaults(), 512 * MIB)).isEqualTo(2);
        assertThat(PackWriter.packsInFlight(PackOptions.defaults(), 1024 * MIB))
                .isEqualTo(PackOptions.defaults().packsInFlight());
        assertThat(PackWriter.packsInFlight(PackOptions.defaults(), 8192 * MIB))
                .isEqualTo(PackOptions.defaults().packsInFlight());
        assertThat(PackWriter.encodeBudgetKib(512 * MIB)).isEqualTo(PackWriter.ENCODE_BUDGET_KIB);
        // smaller packs asked for: more of them fit the same share
        assertThat(PackWriter.packsInFlight(PackOptions.defaults().withPackSize(1024 * 1024), 128 * MIB))
                .isEqualTo(PackOptions.defaults().packsInFlight());
        assertThat(PackWriter.packSize(PackOptions.defaults().withPackSize(1024 * 1024), 128 * MIB))
                .isEqualTo(MIB);
    }
}
