package dev.ballast.http.retry;

import java.net.http.HttpHeaders;
import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Reads the {@code Retry-After} response header (RFC 9110 §10.2.3): how long the server asks the
 * client to wait before the next request.
 *
 * <p>Both forms are accepted: {@code delay-seconds} (one or more ASCII digits) and an
 * {@code HTTP-date} (RFC 9110 §5.6.7) in its preferred IMF-fixdate form
 * ({@code Sun, 06 Nov 1994 08:49:37 GMT}) and the two obsolete forms recipients must still accept,
 * RFC 850 ({@code Sunday, 06-Nov-94 08:49:37 GMT}) and ANSI C asctime ({@code Sun Nov  6 08:49:37 1994}).
 * A date is turned into a delay against the injected {@link Clock}.
 *
 * <p>A missing header, {@code 0}, a negative or fractional number ({@code -5}, {@code 1.5}), text that
 * is neither form, and a date that is not in the future all mean "no server-imposed wait": the result
 * is empty, never an error, because a malformed header must not fail a request that could otherwise
 * be retried. Surrounding whitespace is ignored. The day name of a date is not cross-checked against
 * the date, as RFC 9110 §5.6.7 asks recipients to be tolerant of such producers.
 *
 * <p>Delays longer than {@link Backoff#MAX_CAP} (about 292 years) are clamped to it, so the result can
 * always be converted to nanoseconds.
 *
 * <p>Stateless and thread-safe; the wall time is the caller's {@link Clock}.
 */
public final class RetryAfter {

    /** The header name, {@value}. */
    public static final String HEADER_NAME = "Retry-After";

    private static final String DAY = "(Mon|Tue|Wed|Thu|Fri|Sat|Sun)";
    private static final String LONG_DAY = "(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)";
    private static final String MONTH = "(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)";
    private static final String TIME = "(\\d{2}):(\\d{2}):(\\d{2})";
    private static final List<String> MONTHS =
            List.of("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec");

    private static final Pattern DELAY_SECONDS = Pattern.compile("\\d+");
    /** IMF-fixdate: {@code Sun, 06 Nov 1994 08:49:37 GMT}. */
    private static final Pattern IMF_FIXDATE =
            Pattern.compile(DAY + ", (\\d{2}) " + MONTH + " (\\d{4}) " + TIME + " GMT");
    /** Obsolete RFC 850 date: {@code Sunday, 06-Nov-94 08:49:37 GMT}. */
    private static final Pattern RFC_850 =
            Pattern.compile(LONG_DAY + ", (\\d{2})-" + MONTH + "-(\\d{2}) " + TIME + " GMT");
    /** Obsolete asctime date: {@code Sun Nov  6 08:49:37 1994}. */
    private static final Pattern ASCTIME = Pattern.compile(DAY + " " + MONTH + " ([ \\d]\\d) " + TIME + " (\\d{4})");

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
        Objects.requireNonNull(clock, "clock");
        if (headerValue == null) {
            return Optional.empty();
        }
        String value = headerValue.strip();
        if (DELAY_SECONDS.matcher(value).matches()) {
            return positive(delaySeconds(value));
        }
        return httpDate(value, clock)
                .map(date -> between(clock.instant(), date))
                .flatMap(RetryAfter::positive);
    }

    /**
     * Reads the first {@code Retry-After} header of a response and parses it with
     * {@link #parse(String, Clock)}.
     *
     * @param headers the response headers
     * @param clock   the wall clock an HTTP-date is measured against
     * @return the positive delay the server asks for, or empty
     * @throws NullPointerException if an argument is {@code null}
     */
    public static Optional<Duration> from(HttpHeaders headers, Clock clock) {
        Objects.requireNonNull(headers, "headers");
        Objects.requireNonNull(clock, "clock");
        return parse(headers.firstValue(HEADER_NAME).orElse(null), clock);
    }

    private static Duration delaySeconds(String digits) {
        // More digits than a long holds is still valid delay-seconds syntax: clamp, do not fail.
        if (digits.length() > 18) {
            String significant = digits.replaceFirst("^0+(?=\\d)", "");
            if (significant.length() > 18) {
                return Backoff.MAX_CAP;
            }
            digits = significant;
        }
        long seconds = Long.parseLong(digits);
        return seconds > Backoff.MAX_CAP.getSeconds() ? Backoff.MAX_CAP : Duration.ofSeconds(seconds);
    }

    private static Duration between(Instant now, Instant date) {
        Duration delay = Duration.between(now, date);
        return delay.compareTo(Backoff.MAX_CAP) > 0 ? Backoff.MAX_CAP : delay;
    }

    private static Optional<Duration> positive(Duration delay) {
        return delay.isNegative() || delay.isZero() ? Optional.empty() : Optional.of(delay);
    }

    private static Optional<Instant> httpDate(String value, Clock clock) {
        try {
            Matcher m = IMF_FIXDATE.matcher(value);
            if (m.matches()) {
                return Optional.of(instant(Integer.parseInt(m.group(4)), m.group(3), m.group(2), m, 5));
            }
            m = RFC_850.matcher(value);
            if (m.matches()) {
                int year = rfc850Year(Integer.parseInt(m.group(4)), clock);
                return Optional.of(instant(year, m.group(3), m.group(2), m, 5));
            }
            m = ASCTIME.matcher(value);
            if (m.matches()) {
                return Optional.of(instant(
                        Integer.parseInt(m.group(7)), m.group(2), m.group(3).strip(), m, 4));
            }
        } catch (DateTimeException e) {
            // A syntactically valid but impossible date (31 Feb, 25:00) is "not understood".
            return Optional.empty();
        }
        return Optional.empty();
    }

    private static Instant instant(int year, String month, String day, Matcher m, int firstTimeGroup) {
        // RFC 9110 §5.6.7 allows second 60 (a leap second); java.time does not.
        int second = Math.min(59, Integer.parseInt(m.group(firstTimeGroup + 2)));
        return LocalDateTime.of(
                        year,
                        MONTHS.indexOf(month) + 1,
                        Integer.parseInt(day),
                        Integer.parseInt(m.group(firstTimeGroup)),
                        Integer.parseInt(m.group(firstTimeGroup + 1)),
                        second)
                .toInstant(ZoneOffset.UTC);
    }

    /**
     * RFC 9110 §5.6.7: a two-digit year that appears to be more than 50 years in the future is the
     * most recent past year with the same last two digits.
     */
    private static int rfc850Year(int twoDigits, Clock clock) {
        int currentYear = LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC).getYear();
        int year = currentYear - Math.floorMod(currentYear, 100) + twoDigits;
        if (year > currentYear + 50) {
            year -= 100;
        } else if (year <= currentYear - 50) {
            year += 100;
        }
        return year;
    }
}
