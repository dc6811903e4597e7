package dev.ballast.http.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.http.HttpHeaders;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@Timeout(10)
class RetryAfterTest {

    /** Sunday, 29 November 2026, noon UTC. */
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-29T12:00:00Z"), ZoneOffset.UTC);

    static Stream<Arguments> values() {
        Duration twoMinutes = Duration.ofSeconds(120);
        return Stream.of(
                row("120", Duration.ofSeconds(120)),
                row("1", Duration.ofSeconds(1)),
                row(" 30 ", Duration.ofSeconds(30)),
                row("\t30\t", Duration.ofSeconds(30)),
                row("007", Duration.ofSeconds(7)),
                row("0", null),
                row("000", null),
                row("-5", null),
                row("+5", null),
                // a fraction is a wait the server asked for: read, never rounded down
                row("1.5", Duration.ofMillis(1500)),
                row("2.", Duration.ofSeconds(2)),
                row("0.0000000001", Duration.ofNanos(1)),
                // two fields joined by an intermediary: the longer wait
                row("30, 120", Duration.ofSeconds(120)),
                row("1e3", null),
                row("abc", null),
                row("", null),
                row("   ", null),
                row("12 34", null),
                row("99999999999999999999999999", Backoff.MAX_CAP),
                row("9223372036854775807", Backoff.MAX_CAP),
                row("0000000000000000000000000042", Duration.ofSeconds(42)),
                // IMF-fixdate, RFC 9110 §5.6.7
                row("Sun, 29 Nov 2026 12:02:00 GMT", twoMinutes),
                row("Tue, 01 Dec 2026 12:00:00 GMT", Duration.ofDays(2)),
                row("Sun, 06 Nov 1994 08:49:37 GMT", null),
                row("Sun, 29 Nov 2026 12:00:00 GMT", null),
                row("Sun, 29 Nov 2026 11:59:59 GMT", null),
                row("Mon, 29 Nov 2026 12:02:00 GMT", twoMinutes),
                // a leap second is the next minute's first: never earlier than the server said
                row("Sun, 29 Nov 2026 12:01:60 GMT", twoMinutes),
                // one-digit day, as DateTimeFormatter.RFC_1123_DATE_TIME writes the 1st to the 9th
                row("Tue, 1 Dec 2026 12:00:00 GMT", Duration.ofDays(2)),
                row(
                        "Tue, 1 Dec 2026 18:39:01 GMT",
                        Duration.ofDays(2).plusHours(6).plusMinutes(39).plusSeconds(1)),
                // what browsers and curl accept
                row("sun, 29 nov 2026 12:02:00 gmt", twoMinutes),
                row("SUN, 29 NOV 2026 12:02:00 GMT", twoMinutes),
                row("Sun,  29  Nov  2026  12:02:00  GMT", twoMinutes),
                row("Sun,29 Nov 2026 12:02:00 GMT", twoMinutes),
                row("29 Nov 2026 12:02:00 GMT", twoMinutes),
                row("Sunday, 29 November 2026 12:02:00 GMT", twoMinutes),
                row("Sun, 29 Nov 2026 12:2:0 GMT", twoMinutes),
                row("Sun, 29 Nov 2026 12:02 GMT", twoMinutes),
                row("Sun, 29 Nov 2026 12:02:00", twoMinutes),
                row("Sun, 29 Nov 2026 12:02:00 UTC", twoMinutes),
                row("Sun, 29 Nov 2026 12:02:00 UT", twoMinutes),
                row("Sun, 29 Nov 2026 12:02:00 +0000", twoMinutes),
                row("Sun, 29 Nov 2026 12:02:00 GMT+0000", twoMinutes),
                row("Sun, 29 Nov 2026 13:02:00 +0100", twoMinutes),
                row("Sun, 29 Nov 2026 13:32:00 +01:30", twoMinutes),
                row("Sun, 29 Nov 2026 07:02:00 -0500", twoMinutes),
                row("Sun, 29 Nov 2026 07:02:00 EST", twoMinutes),
                row("Sun, 29 Nov 2026 04:02:00 PST", twoMinutes),
                row("Sun, 29 Nov 26 12:02:00 GMT", twoMinutes),
                row("Sun Nov 29 12:02:00 2026 GMT", twoMinutes),
                row("Sun, 9 Nov 2026 12:02:00 GMT", null),
                // obsolete RFC 850 form
                row("Sunday, 29-Nov-26 12:02:00 GMT", twoMinutes),
                row("Sunday, 29-Nov-2026 12:02:00 GMT", twoMinutes),
                row("Tuesday, 1-Dec-26 12:00:00 GMT", Duration.ofDays(2)),
                row("Sunday, 06-Nov-94 08:49:37 GMT", null),
                row(
                        "Friday, 01-Jan-76 00:00:00 GMT",
                        Duration.between(CLOCK.instant(), Instant.parse("2076-01-01T00:00:00Z"))),
                row("Tuesday, 01-Jan-77 00:00:00 GMT", null),
                // obsolete asctime form
                row("Sun Nov 29 12:02:00 2026", twoMinutes),
                row("Tue Dec  1 12:00:00 2026", Duration.ofDays(2)),
                row("Tue Dec 1 12:00:00 2026", Duration.ofDays(2)),
                row("Tue Dec 01 12:00:00 2026", Duration.ofDays(2)),
                row("Sun Nov  6 08:49:37 1994", null),
                // not understood
                row("Sun, 31 Feb 2027 00:00:00 GMT", null),
                row("Sun, 29 Nov 2026 25:00:00 GMT", null),
                row("Sun, 29 Nov 2026 12:60:00 GMT", null),
                row("Sun, 32 Nov 2026 12:02:00 GMT", null),
                row("Sun, 29 Nov 2026 12:02:00 +2500", null),
                row("Sun, 29 Nov 2026 12:02:00 GMT +0100", null),
                row("Sun, 29 Nov 12:02:00 GMT", null),
                row("Sun, 29 2026 12:02:00 GMT", null),
                row("Sun, 29 Nov 2026 GMT", null),
                row("Sun, 29 Nov 1500 12:02:00 GMT", null),
                row("Sun, 29 Nov 2026 12:02:00 GMT " + "x".repeat(200), null),
                row("2026-11-29T12:02:00Z", null));
    }

    private static Arguments row(String value, Duration expected) {
        return Arguments.of(value, Optional.ofNullable(expected));
    }

    @ParameterizedTest(name = "\"{0}\" -> {1}")
    @MethodSource("values")
    void parse(String value, Optional<Duration> expected) {
        assertThat(RetryAfter.parse(value, CLOCK)).isEqualTo(expected);
    }

    @Test
    void absentHeaderMeansNoWait() {
        assertThat(RetryAfter.parse(null, CLOCK)).isEmpty();
        assertThat(RetryAfter.from(HttpHeaders.of(Map.of(), (n, v) -> true), CLOCK))
                .isEmpty();
    }

    @Test
    void readsTheHeaderCaseInsensitively() {
        HttpHeaders headers = HttpHeaders.of(Map.of("retry-after", List.of("120")), (n, v) -> true);

        assertThat(RetryAfter.from(headers, CLOCK)).contains(Duration.ofSeconds(120));
    }

    @Test
    void aDateIsMeasuredAgainstTheClockToTheNanosecond() {
        Clock halfPast = Clock.fixed(Instant.parse("2026-11-29T12:00:00.250Z"), ZoneOffset.UTC);

        assertThat(RetryAfter.parse("Sun, 29 Nov 2026 12:00:01 GMT", halfPast)).contains(Duration.ofMillis(750));
    }

    @Test
    void aDateIsMeasuredAgainstTheServersDateTooSoAClockAheadOfTheServersNeverShortensTheWait() {
        // The client's clock is 5 s ahead of the server's: by its own clock only 115 s are left.
        Clock ahead = Clock.fixed(Instant.parse("2026-11-29T12:00:05Z"), ZoneOffset.UTC);
        HttpHeaders headers = HttpHeaders.of(
                Map.of(
                        "Retry-After", List.of("Sun, 29 Nov 2026 12:02:00 GMT"),
                        "Date", List.of("Sun, 29 Nov 2026 12:00:00 GMT")),
                (n, v) -> true);

        assertThat(RetryAfter.from(headers, ahead)).contains(Duration.ofSeconds(120));
    }

    @Test
    void aClockBehindTheServersWaitsByItsOwnClockWhichIsLonger() {
        Clock behind = Clock.fixed(Instant.parse("2026-11-29T11:59:55Z"), ZoneOffset.UTC);
        HttpHeaders headers = HttpHeaders.of(
                Map.of(
                        "Retry-After", List.of("Sun, 29 Nov 2026 12:02:00 GMT"),
                        "Date", List.of("Sun, 29 Nov 2026 12:00:00 GMT")),
                (n, v) -> true);

        assertThat(RetryAfter.from(headers, behind)).contains(Duration.ofSeconds(125));
    }

    @Test
    void anUnreadableDateHeaderLeavesTheWaitToTheLocalClock() {
        HttpHeaders headers = HttpHeaders.of(
                Map.of("Retry-After", List.of("Sun, 29 Nov 2026 12:02:00 GMT"), "Date", List.of("yesterday")),
                (n, v) -> true);

        assertThat(RetryAfter.from(headers, CLOCK)).contains(Duration.ofSeconds(120));
    }

    @Test
    void severalRetryAfterFieldsAskForTheLongestWaitAnyOfThemNames() {
        HttpHeaders headers = HttpHeaders.of(
                Map.of("Retry-After", List.of("30", "soon", "Sun, 29 Nov 2026 12:02:00 GMT", "60")), (n, v) -> true);

        assertThat(RetryAfter.from(headers, CLOCK)).contains(Duration.ofSeconds(120));
    }

    @Test
    void theClockIsRequired() {
        assertThatThrownBy(() -> RetryAfter.parse("1", null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("clock");
        assertThatThrownBy(() -> RetryAfter.from(null, CLOCK))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("headers");
    }
}
