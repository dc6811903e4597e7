package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * A heap too small for the password's key derivation is refused before the derivation starts, in one
 * sentence with exit 2 (field case: {@code BALLAST_JAVA_OPTS=-Xmx64m ballast list} on a store opened
 * before, whose key is derived ahead, printed {@code Exception in thread "main"
 * java.lang.OutOfMemoryError: Java heap space} and exited 1 in 6 runs of 9).
 */
class HeapTooSmallTest {
    private static final int DEFAULT_KIB = 64 * 1024;

    @Test
    void aHeapWithoutRoomForTheDerivationBesideTheCommandIsRefusedInOneSentence() {
        long xmx64m = 63_766_528L; // Runtime.maxMemory() under -Xmx64m with the launcher's -Xmn32m
        assertThatThrownBy(() -> StoreSession.requireHeapFor(DEFAULT_KIB, xmx64m))
                .isInstanceOfSatisfying(
                        CliFailure.class, f -> assertThat(f.exitCode()).isEqualTo(ExitCodes.USAGE))
                .hasMessage("The Java heap is too small to derive the key from the password (Argon2id takes 64 MiB"
                        + " of memory): give the JVM a larger heap, at least -Xmx128m (in BALLAST_JAVA_OPTS), and"
                        + " run the command again.");
        long xmx72m = 72_155_136L; // ran out of heap in some runs
        assertThatThrownBy(() -> StoreSession.requireHeapFor(DEFAULT_KIB, xmx72m))
                .isInstanceOf(CliFailure.class);
    }

    @Test
    void aHeapThatHoldsTheDerivationAndTheCommandIsLetThrough() {
        long xmx80m = 80_543_744L; // never ran out in the runs measured
        assertThatCode(() -> StoreSession.requireHeapFor(DEFAULT_KIB, xmx80m)).doesNotThrowAnyException();
        assertThatCode(() -> StoreSession.requireHeapFor(DEFAULT_KIB, Long.MAX_VALUE))
                .doesNotThrowAnyException();
        // a key file of cheaper parameters needs less
        assertThatCode(() -> StoreSession.requireHeapFor(8 * 1024, 63_766_528L)).doesNotThrowAnyException();
    }

    @Test
    void theSentenceForAHeapThatRanOutNamesItsSizeAndWhatToGiveInstead() {
        assertThat(Ballast.heapRanOut(63_766_528L))
                .isEqualTo("The Java heap ran out of memory (at most 60 MiB): give the JVM a larger heap, at least"
                        + " -Xmx128m (in BALLAST_JAVA_OPTS), and run the command again.");
        assertThat(Ballast.heapRanOut(1L << 30))
                .isEqualTo("The Java heap ran out of memory (at most 1024 MiB): give the JVM a larger heap, more than"
                        + " -Xmx1024m (in BALLAST_JAVA_OPTS), and run the command again.");
    }
}
