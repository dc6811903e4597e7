package dev.ballast.http.retry;

import java.time.Clock;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Reads an {@code HTTP-date} (RFC 9110 §5.6.7) the way browsers and curl do: every form real servers
 * send, not only the one the RFC prefers.
 *
 * <ul>
 *   <li>The three forms of RFC 9110 §5.6.7: IMF-fixdate ({@code Sun, 06 Nov 1994 08:49:37 GMT}),
 *       obsolete RFC 850 ({@code Sunday, 06-Nov-94 08:49:37 GMT}) and ANSI C asctime
 *       ({@code Sun Nov  6 08:49:37 1994}).</li>
 *   <li>The variations servers produce and browsers accept (the date algorithm of RFC 6265
 *       §5.1.1, which browsers use for every date, and curl's {@code Curl_getdate}): a one-digit day
 *       ({@code Tue, 1 Dec 2026 18:39:01 GMT}, what {@code DateTimeFormatter.RFC_1123_DATE_TIME}
 *       writes on the 1st to 9th of a month), any letter case, extra or missing whitespace and
 *       commas, a missing or wrong weekday (never cross-checked, as RFC 9110 §5.6.7 asks), full
 *       month names, one-digit hours, minutes and seconds, a missing seconds field, tokens in any
 *       order (the day before or after the month).</li>
 *   <li>Zones: {@code GMT}, {@code UTC}, {@code UT}, {@code Z}, none at all (taken as GMT, which
 *       RFC 9110 requires), a numeric offset ({@code +0000}, {@code -0500}, {@code +05:30}) and the
 *       North American names of RFC 5322 §4.3 ({@code EST}, {@code PDT} …). Another alphabetic
 *       token is ignored, as RFC 6265 ignores what it does not recognise.</li>
 *   <li>Years: four digits, or two digits read by RFC 9110 §5.6.7's rule for the RFC 850 form, in
 *       any form: a year that would be more than 50 years in the future is the most recent past
 *       year with the same last two digits. RFC 6265 §5.1.1 maps 70–99 to 1970–1999 instead; the two
 *       rules differ only for years more than 43 years ahead, and HTTP's own rule is the one for an
 *       HTTP header.</li>
 *   <li>Second 60 (a leap second, which RFC 9110 allows) is the first second of the next minute, so
 *       the instant is never earlier than the one the server named.</li>
 * </ul>
 *
 * A date that has no time, no day, no month or no year, a field out of range, or an impossible date
 * (30 February) is not understood: empty. Stateless and thread-safe.
 */
final class HttpDate {

    private static final String[] MONTHS = {
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"
    };

    private static final String[] FULL_MONTHS = {
        "january", "february", "march", "april", "may", "june",
        "july", "august", "september", "october", "november", "december"
    };

    /** RFC 5322 §4.3 obsolete zones, in hours from UTC. */
    private static final Map<String, Integer> ZONES = Map.ofEntries(
            Map.entry("gmt", 0),
            Map.entry("utc", 0),
            Map.entry("ut", 0),
            Map.entry("z", 0),
            Map.entry("est", -5),
            Map.entry("edt", -4),
            Map.entry("cst", -6),
            Map.entry("cdt", -5),
            Map.entry("mst", -7),
            Map.entry("mdt", -6),
            Map.entry("pst", -8),
            Map.entry("pdt", -7));

    /** Longer than any date a server sends: a header longer than this is not a date. */
    private static final int MAX_LENGTH = 128;

    private HttpDate() {}

    /**
     * Parses an HTTP-date.
     *
     * @param value the text, surrounding whitespace allowed
     * @param clock the wall clock that resolves a two-digit year
     * @return the instant, or empty when the text is not a date
     */
    static Optional<Instant> parse(String value, Clock clock) {
        if (value.length() > MAX_LENGTH) {
            return Optional.empty();
        }
        Fields f = new Fields();
        int i = 0;
        int n = value.length();
        while (i < n) {
            char c = value.charAt(i);
            if (isDelimiter(c)) {
                i++;
                continue;
            }
            int start = i;
            if ((c == '+' || c == '-') && isZoneSign(value, i)) {
                // A numeric zone: a sign, then digits and at most one colon.
                i++;
                while (i < n && (isDigit(value.charAt(i)) || value.charAt(i) == ':')) {
                    i++;
                }
            } else {
                while (i < n && !isDelimiter(value.charAt(i)) && value.charAt(i) != '-' && value.charAt(i) != '+') {
                    i++;
                }
                if (i == start) {
                    i++; // a lone sign
                    continue;
                }
            }
            if (!f.accept(value.substring(start, i))) {
                return Optional.empty();
            }
        }
        return f.instant(clock);
    }

    private static boolean isDelimiter(char c) {
        return c == ' ' || c == '\t' || c == ',';
    }

    /**
     * Whether the sign at {@code i} starts a numeric zone ({@code +0000}, {@code -05:30}): after a
     * delimiter, the start, or a zone name ({@code GMT+0100}), and followed by {@code hhmm} or
     * {@code hh:mm}. The hyphens of {@code 06-Nov-94} and {@code 06-Nov-1994} are not.
     */
    private static boolean isZoneSign(String value, int i) {
        boolean afterDelimiter = i == 0 || isDelimiter(value.charAt(i - 1));
        boolean afterZoneName = i >= 3
                && ZONES.containsKey(value.substring(i - 3, i).toLowerCase(Locale.ROOT))
                && (i == 3 || isDelimiter(value.charAt(i - 4)));
        if (!afterDelimiter && !afterZoneName) {
            return false;
        }
        int end = i + 1;
        while (end < value.length() && (isDigit(value.charAt(end)) || value.charAt(end) == ':')) {
            end++;
        }
        String rest = value.substring(i + 1, end);
        return rest.matches("\\d{4}|\\d{2}:\\d{2}");
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    /** The fields found so far; each is taken from the first token that can be it (RFC 6265 §5.1.1). */
    private static final class Fields {
        int hour = -1;
        int minute;
        int second;
        int day = -1;
        int month = -1;
        int year = -1;
        boolean twoDigitYear;
        int offsetSeconds;
        boolean zoneSeen;

        /** Takes one token; false when it makes the text no date at all. */
        boolean accept(String token) {
            char first = token.charAt(0);
            if (first == '+' || first == '-') {
                return zone(numericOffset(token));
            }
            if (token.indexOf(':') >= 0) {
                return hour < 0 && time(token);
            }
            if (isDigit(first)) {
                if (!allDigits(token)) {
                    return false; // "12h", "1st": not a date token we know
                }
                if (day < 0 && token.length() <= 2) {
                    day = Integer.parseInt(token);
                    return true;
                }
                if (year < 0 && (token.length() == 2 || token.length() == 4)) {
                    year = Integer.parseInt(token);
                    twoDigitYear = token.length() == 2;
                    return true;
                }
                return false;
            }
            String lower = token.toLowerCase(Locale.ROOT);
            if (month < 0 && lower.length() >= 3) {
                String prefix = lower.substring(0, 3);
                for (int m = 0; m < MONTHS.length; m++) {
                    if (MONTHS[m].equals(prefix) && isMonthName(lower, m)) {
                        month = m + 1;
                        return true;
                    }
                }
            }
            Integer zone = ZONES.get(lower);
            if (zone != null) {
                return zone(zone * 3600);
            }
            // A weekday, or a word we do not know: ignored, as RFC 6265 §5.1.1 ignores it.
            return true;
        }

        private static boolean isMonthName(String lower, int m) {
            if (lower.length() == 3) {
                return true;
            }
            return FULL_MONTHS[m].equals(lower) || "sept".equals(lower);
        }

        private boolean time(String token) {
            String[] parts = token.split(":", -1);
            if (parts.length < 2 || parts.length > 3) {
                return false;
            }
            int[] values = new int[3];
            for (int k = 0; k < parts.length; k++) {
                if (parts[k].isEmpty() || parts[k].length() > 2 || !allDigits(parts[k])) {
                    return false;
                }
                values[k] = Integer.parseInt(parts[k]);
            }
            hour = values[0];
            minute = values[1];
            second = values[2];
            return true;
        }

        /**
         * A zone; a second one is accepted only when it agrees with the first ({@code GMT+0000}), since
         * two different offsets leave the instant unknown.
         */
        private boolean zone(int seconds) {
            if (seconds == Integer.MIN_VALUE || zoneSeen && seconds != offsetSeconds) {
                return false;
            }
            zoneSeen = true;
            offsetSeconds = seconds;
            return true;
        }

        /** The offset of {@code +hhmm} or {@code -hh:mm} in seconds, or {@code Integer.MIN_VALUE}. */
        private static int numericOffset(String token) {
            String digits = token.substring(1).replace(":", "");
            int hours = Integer.parseInt(digits.substring(0, 2));
            int minutes = Integer.parseInt(digits.substring(2));
            if (hours > 14 || minutes > 59) {
                return Integer.MIN_VALUE;
            }
            int seconds = hours * 3600 + minutes * 60;
            return token.charAt(0) == '-' ? -seconds : seconds;
        }

        Optional<Instant> instant(Clock clock) {
            if (hour < 0 || day < 0 || month < 0 || year < 0) {
                return Optional.empty();
            }
            if (hour > 23 || minute > 59 || second > 60 || day < 1 || day > 31) {
                return Optional.empty();
            }
            int fullYear = twoDigitYear ? twoDigitYear(year, clock) : year;
            if (fullYear < 1601) {
                return Optional.empty(); // RFC 6265 §5.1.1
            }
            try {
                // A leap second (RFC 9110 allows 60) is the next minute's first: never earlier than asked.
                int leap = second == 60 ? 1 : 0;
                return Optional.of(LocalDateTime.of(fullYear, month, day, hour, minute, second - leap)
                        .toInstant(ZoneOffset.UTC)
                        .plusSeconds(leap - offsetSeconds));
            } catch (DateTimeException e) {
                return Optional.empty(); // 31 April, 29 February of a common year
            }
        }
    }

    private static boolean allDigits(String s) {
        for (int k = 0; k < s.length(); k++) {
            if (!isDigit(s.charAt(k))) {
                return false;
            }
        }
        return !s.isEmpty();
    }

    /**
     * RFC 9110 §5.6.7: a two-digit year that appears to be more than 50 years in the future is the
     * most recent past year with the same last two digits.
     */
    static int twoDigitYear(int twoDigits, Clock clock) {
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
