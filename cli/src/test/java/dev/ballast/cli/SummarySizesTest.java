package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Sizes and rates in the unit that shows them (a README-only newcomer's backup of a small folder said
 * "0.0 MiB in 0.3 s (0.0 MiB/s)", and {@code list} "303 files 0.0 MiB").
 */
class SummarySizesTest {
    @Test
    void aSizeIsShownInTheUnitThatShowsIt() {
        assertThat(Summary.size(0)).isEqualTo("0 bytes");
        assertThat(Summary.size(1)).isEqualTo("1 byte");
        assertThat(Summary.size(1023)).isEqualTo("1023 bytes");
        assertThat(Summary.size(5632)).isEqualTo("5.5 KiB");
        assertThat(Summary.size(8L << 20)).isEqualTo("8.0 MiB");
        assertThat(Summary.size(3L << 30)).isEqualTo("3.0 GiB");
    }

    @Test
    void aRateIsShownInTheUnitThatShowsIt() {
        assertThat(Summary.rate(97L << 20, Duration.ofSeconds(1))).isEqualTo("97.0 MiB/s");
        assertThat(Summary.rate(5632, Duration.ofMillis(300))).isEqualTo("18.3 KiB/s");
        assertThat(Summary.rate(30, Duration.ofMillis(100))).isEqualTo("300 bytes/s");
        assertThat(Summary.rate(0, Duration.ZERO)).isEqualTo("0 bytes/s");
    }
}
