package dev.ballast.backup.pack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class MaxUnusedTest {
    @Test
    void aPercentageIsOfTheBytesThePacksHoldUnusedIncluded() {
        MaxUnused five = MaxUnused.parse("5%");
        assertThat(five).isEqualTo(MaxUnused.DEFAULT).hasToString("5%");
        assertThat(five.allows(5, 100)).isTrue();
        assertThat(five.allows(6, 100)).isFalse();
        assertThat(five.allows(0, 0)).isTrue();
        assertThat(MaxUnused.parse(" 2.5% ").allows(25, 1000)).isTrue();
        assertThat(MaxUnused.parse("2.5%").allows(26, 1000)).isFalse();
        assertThat(MaxUnused.parse("99.9%").allows(999, 1000)).isTrue();
        assertThat(MaxUnused.parse("0%").allows(1, 1L << 50)).isFalse();
        assertThat(MaxUnused.parse("0%").allows(0, 1L << 50)).isTrue();
    }

    @Test
    void aSizeIsBytesWithBinarySuffixesInEitherCase() {
        assertThat(MaxUnused.parse("0").allows(0, 10)).isTrue();
        assertThat(MaxUnused.parse("0").allows(1, 10)).isFalse();
        assertThat(MaxUnused.parse("1000")).isEqualTo(MaxUnused.bytes(1000));
        assertThat(MaxUnused.parse("1000b")).isEqualTo(MaxUnused.bytes(1000));
        assertThat(MaxUnused.parse("1k")).isEqualTo(MaxUnused.bytes(1024));
        assertThat(MaxUnused.parse("500M")).isEqualTo(MaxUnused.bytes(500L << 20));
        assertThat(MaxUnused.parse("2g")).isEqualTo(MaxUnused.bytes(2L << 30));
        assertThat(MaxUnused.parse("3T")).isEqualTo(MaxUnused.bytes(3L << 40)).hasToString("3T");
        assertThat(MaxUnused.parse("500M").allows(500L << 20, Long.MAX_VALUE)).isTrue();
        assertThat(MaxUnused.parse("500M").allows((500L << 20) + 1, Long.MAX_VALUE))
                .isFalse();
    }

    @Test
    void unlimitedAllowsAnything() {
        assertThat(MaxUnused.parse("unlimited")).isEqualTo(MaxUnused.UNLIMITED);
        assertThat(MaxUnused.parse("Unlimited").unlimited()).isTrue();
        assertThat(MaxUnused.UNLIMITED.allows(Long.MAX_VALUE, Long.MAX_VALUE)).isTrue();
        assertThat(MaxUnused.DEFAULT.unlimited()).isFalse();
    }

    @Test
    void anythingElseIsRefusedNamingTheInputAndTheFormsAccepted() {
        for (String bad : new String[] {
            "5x",
            "-1%",
            "150%",
            "100%",
            "-1",
            "",
            " ",
            "%",
            "5 %",
            "1.5",
            "1e3",
            "5KB",
            "5MiB",
            "1.5.5%",
            "unlimit",
            "99999999999999999999",
            "16777216T"
        }) {
            assertThatThrownBy(() -> MaxUnused.parse(bad))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("'" + bad + "' must be " + MaxUnused.FORMS);
        }
        assertThatThrownBy(() -> MaxUnused.percent(100)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MaxUnused.percent(-0.5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MaxUnused.percent(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MaxUnused.bytes(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(MaxUnused.percent(2.5)).hasToString("2.5%");
        assertThat(MaxUnused.percent(10)).hasToString("10%");
    }
}
