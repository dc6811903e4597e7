package dev.ballast.http.retry;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.http.HttpHeaders;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Reads the {@code Retry-After} response header (RFC 9110 §10.2.3): how long the server asks the
 * client to wait before the next request. The rule throughout: a wait the server asked for is never
 * shortened, so what a server plausibly meant is read as it meant it rather than dropped.
 *
 * <p>{@code delay-seconds}: ASCII digits, with surrounding whitespace and leading zeros; a value
 * longer than a {@code long} holds is clamped (below). Beyond RFC 9110's grammar, a decimal fraction
 * ({@code 1.5}) is read as that many seconds rather than ignored, and a list of numbers (two
 * {@code Retry-After} fields an intermediary joined with a comma) as the largest.
 *
 * <p>{@code HTTP-date}: RFC 9110 §5.6.7's three forms, IMF-fixdate
 * ({@code Sun, 06 Nov 1994 08:49:37 GMT}), RFC 850 ({@code Sunday, 06-Nov-94 08:49:37 GMT}) and
 * asctime ({@code Sun Nov  6 08:49:37 1994}), and the variations browsers and curl accept: a
 * one-digit day ({@code Tue, 1 Dec 2026 18:39:01 GMT}, as Java's
 * {@code DateTimeFormatter.RFC_1123_DATE_TIME} writes it), any case, extra whitespace, no weekday,
 * numeric zones ({@code +0000}), two-digit years (see {@code HttpDate} in this package for the whole
 * list). A date becomes a delay against the injected {@link Clock}. When the response also carries a
 * {@code Date} header (RFC 9110 §6.6.1, the server's clock when it answered), {@link #from} takes the
 * longer of "the date less now" and "the date less the server's {@code Date}": a client whose clock
 * runs ahead of the server's would otherwise wait less than the server asked.
 *
 * <p>A missing header, {@code 0}, a negative number, text that is neither form, and a date that is
 * not in the future all mean "no server-imposed wait": the result is empty, never an error, because a
 * malformed header must not fail a request that could otherwise be retried. Several
 * {@code Retry-After} fields: the longest wait any of them asks for.
 *
 * <p>Delays longer than {@link Backoff#MAX_CAP} (about 292 years) are clamped to it, so the result can
 * always be converted to nanoseconds.
 *
 * <p>Stateless and thread-safe; the wall time is the caller's {@link Clock}.
 */
public final class RetryAfter {

    /** The header name, {@value}. */
    public static final String HEADER_NAME = "Retry-After";

    /** The {@code Date} response header (RFC 9110 §6.6.1), {@value}. */
    static final String DATE_HEADER_NAME = "Date";

    private static final Pattern DELAY_SECONDS = Pattern.compile("\\d+(\\.\\d*)?");
    private static final Pattern NUMBER_LIST = Pattern.compile("\\d+(\\.\\d*)?(\\s*,\\s*\\d+(\\.\\d*)?)+");
    private static final BigDecimal MAX_SECONDS = BigDecimal.valueOf(Backoff.MAX_CAP.getSeconds());

    private RetryAfter() {}

    /**
     * Parses a {@code Retry-After} value.
     *
     * @param headerValue the header's value, or {@code null} when the header is absent
     * @param clock       the wall clock an HTTP-date is measured against
     * @return the positive delay the server asks for, or empty when it asks for none or the value is
     *         not understood
     * @throws NullPointerException if {@code clock} is {@code null}
     */
    public static Optional<Duration> parse(@Nullable String headerValue, Clock clock) {
        return parse(headerValue, clock, null);
    }

    /**
     * Reads every {@code Retry-After} field of a response and parses each with
     * {@link #parse(String, Clock)}, an HTTP-date measured also against the response's {@code Date}
     * field when it has one (the longer wait wins).
     *
     * @param headers the response headers
     * @param clock   the wall clock an HTTP-date is measured against
     * @return the longest positive delay the server asks for, or empty
     * @throws NullPointerException if an argument is {@code null}
     */
    public static Optional<Duration> from(HttpHeaders headers, Clock clock) {
        Objects.requireNonNull(headers, "headers");
        Objects.requireNonNull(clock, "clock");
        Optional<Duration> longest = Optional.empty();
        @Nullable Instant serverNow = null;
        boolean serverNowRead = false;
        for (String value : headers.allValues(HEADER_NAME)) {
            if (!serverNowRead && !isNumeric(value)) {
                serverNow = headers.firstValue(DATE_HEADER_NAME)
                        .flatMap(date -> HttpDate.parse(date, clock))
                        .orElse(null);
                serverNowRead = true;
            }
            Optional<Duration> delay = parse(value, clock, serverNow);
            if (delay.isPresent() && (longest.isEmpty() || delay.get().compareTo(longest.get()) > 0)) {
                longest = delay;
            }
        }
        return longest;
    }

    private static boolean isNumeric(String value) {
        String v = value.strip();
        return !v.isEmpty() && Character.isDigit(v.charAt(0));
    }

    private static Optional<Duration> parse(@Nullable String headerValue, Clock clock, @Nullable Instant serverNow) {
        Objects.requireNonNull(clock, "clock");
        if (headerValue == null) {
            return Optional.empty();
        }
        String value = headerValue.strip();
        if (DELAY_SECONDS.matcher(value).matches()) {
            return positive(delaySeconds(value));
        }
        if (NUMBER_LIST.matcher(value).matches()) {
            Duration longest = Duration.ZERO;
            for (String part : value.split(",")) {
                Duration d = delaySeconds(part.strip());
                longest = d.compareTo(longest) > 0 ? d : longest;
            }
            return positive(longest);
        }
        Optional<Instant> date = HttpDate.parse(value, clock);
        if (date.isEmpty()) {
            return Optional.empty();
        }
        Duration delay = between(clock.instant(), date.get());
        if (serverNow != null) {
            Duration byServerClock = between(serverNow, date.get());
            if (byServerClock.compareTo(delay) > 0) {
                delay = byServerClock;
            }
        }
        return positive(delay);
    }

    /** Whole or fractional seconds, clamped to {@link Backoff#MAX_CAP}; never rounded down below a nanosecond. */
    private static Duration delaySeconds(String number) {
        // More digits than a long holds is still valid delay-seconds syntax: clamp, do not fail.
        BigDecimal seconds = new BigDecimal(number.endsWith(".") ? number + "0" : number);
        if (seconds.compareTo(MAX_SECONDS) >= 0) {
            return Backoff.MAX_CAP;
        }
        BigDecimal nanos = seconds.movePointRight(9).setScale(0, RoundingMode.CEILING);
        return Duration.ofSeconds(0, nanos.longValueExact());
    }

    private static Duration between(Instant now, Instant date) {
        Duration delay = Duration.between(now, date);
        return delay.compareTo(Backoff.MAX_CAP) > 0 ? Backoff.MAX_CAP : delay;
    }

    private static Optional<Duration> positive(Duration delay) {
        return delay.isNegative() || delay.isZero() ? Optional.empty() : Optional.of(delay);
    }
}
