package dev.ballast.backup.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.DateTimeException;
import java.time.Instant;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ManifestTimesTest {

    @ParameterizedTest
    @ValueSource(
            strings = {
                "2026-11-30T07:41:21Z",
                "2026-11-30T07:41:21.048Z",
                "2026-11-30T07:41:21.048279Z",
                "2026-11-30T07:41:21.048279458Z",
                "1970-01-01T00:00:00Z",
                "1969-12-31T23:59:59.999999999Z",
                "0000-01-01T00:00:00Z",
                "9999-12-31T23:59:59.000000001Z",
                "2024-02-29T12:00:00.5Z",
                "+10000-01-01T00:00:00Z",
                "2026-11-30T08:41:21+01:00"
            })
    void readsAndWritesWhatInstantParseAndToStringDo(String text) {
        Instant expected = Instant.parse(text);

        assertThat(ManifestTimes.parse(text)).isEqualTo(expected);
        assertThat(ManifestTimes.format(expected)).isEqualTo(expected.toString());
    }

    @Test
    void randomInstantsRoundTripExactly() {
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 100_000; i++) {
            Instant t = Instant.ofEpochSecond(
                    random.nextLong(-62_135_596_800L, 253_402_300_799L),
                    random.nextInt(4) == 0 ? 0 : random.nextInt(1_000_000_000));
            assertThat(ManifestTimes.format(t)).isEqualTo(t.toString());
            assertThat(ManifestTimes.parse(t.toString())).isEqualTo(t);
        }
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "2026-13-30T07:41:21Z",
                "2026-02-30T07:41:21Z",
                "2026-11-30T25:00:00Z",
                "2026-11-30 07:41:21Z",
                "yesterday"
            })
    void refusesWhatInstantParseRefuses(String text) {
        assertThatThrownBy(() -> ManifestTimes.parse(text)).isInstanceOf(DateTimeException.class);
    }
}
