package dev.ballast.backup.pack;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The pack writer's memory follows the heap it runs in: a command held to {@code -Xmx128m} (the CLI's
 * large-file test) keeps one 16 MiB pack in flight and one largest chunk waiting to be encoded; a heap
 * of 512 MiB or more keeps the defaults.
 */
class HeapBoundedWriterTest {
    static final long MIB = 1024 * 1024;

    @Test
    void aSmallHeapHoldsOnePackInFlightAndOneLargestChunkWaitingToBeEncoded() {
        assertThat(PackWriter.packsInFlight(PackOptions.defaults(), 128 * MIB)).isEqualTo(1);
        assertThat(PackWriter.encodeBudgetKib(128 * MIB) * 1024L).isEqualTo(Chunker.MAX_SIZE);
        assertThat(PackWriter.packsInFlight(PackOptions.defaults(), 64 * MIB)).isEqualTo(1);
        assertThat(PackWriter.encodeBudgetKib(64 * MIB) * 1024L).isEqualTo(Chunker.MAX_SIZE);
    }

    @Test
    void aHeapOfHalfAGibibyteOrMoreKeepsTheDefaults() {
        assertThat(PackWriter.packsInFlight(PackOptions.defaults(), 256 * MIB)).isEqualTo(2);
        assertThat(PackWriter.packsInFlight(PackOptions.defaults(), 512 * MIB))
                .isEqualTo(PackOptions.defaults().packsInFlight());
        assertThat(PackWriter.packsInFlight(PackOptions.defaults(), 8192 * MIB))
                .isEqualTo(PackOptions.defaults().packsInFlight());
        assertThat(PackWriter.encodeBudgetKib(512 * MIB)).isEqualTo(PackWriter.ENCODE_BUDGET_KIB);
        // smaller packs: more of them fit the same share
        assertThat(PackWriter.packsInFlight(PackOptions.defaults().withPackSize(1024 * 1024), 128 * MIB))
                .isEqualTo(PackOptions.defaults().packsInFlight());
    }
}
