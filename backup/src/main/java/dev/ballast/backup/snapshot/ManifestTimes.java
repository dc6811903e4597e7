package dev.ballast.backup.snapshot;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * The manifest's instants as ISO-8601 UTC strings ({@code 2026-11-30T07:41:21.048279458Z}, exactly
 * {@link Instant#toString()}), written and read without {@code DateTimeFormatter}: a manifest holds
 * three instants per file, and the formatter's general parser made reading a 20,000-file manifest
 * take most of an unchanged backup. Anything but the plain form (other years, offsets) goes through
 * {@link Instant#parse}.
 */
public final class ManifestTimes {
    private ManifestTimes() {}

    /** {@link Instant#toString()}, faster. */
    public static String format(Instant t) {
        long seconds = t.getEpochSecond();
        LocalDateTime d = LocalDateTime.ofEpochSecond(seconds, t.getNano(), ZoneOffset.UTC);
        if (d.getYear() < 0 || d.getYear() > 9999) {
            return t.toString();
        }
        char[] c = new char[30];
        int i = digits(c, 0, d.getYear(), 4);
        c[i++] = '-';
        i = digits(c, i, d.getMonthValue(), 2);
        c[i++] = '-';
        i = digits(c, i, d.getDayOfMonth(), 2);
        c[i++] = 'T';
        i = digits(c, i, d.getHour(), 2);
        c[i++] = ':';
        i = digits(c, i, d.getMinute(), 2);
        c[i++] = ':';
        i = digits(c, i, d.getSecond(), 2);
        int nano = t.getNano();
        if (nano > 0) {
            c[i++] = '.';
            if (nano % 1_000_000 == 0) {
                i = digits(c, i, nano / 1_000_000, 3);
            } else if (nano % 1000 == 0) {
                i = digits(c, i, nano / 1000, 6);
            } else {
                i = digits(c, i, nano, 9);
            }
        }
        c[i++] = 'Z';
        return new String(c, 0, i);
    }

    /** {@link Instant#parse}, faster for {@code yyyy-MM-ddTHH:mm:ss[.f{1,9}]Z}. */
    public static Instant parse(String s) {
        int n = s.length();
        if (n < 20
                || n > 30
                || s.charAt(4) != '-'
                || s.charAt(7) != '-'
                || s.charAt(10) != 'T'
                || s.charAt(13) != ':'
                || s.charAt(16) != ':'
                || s.charAt(n - 1) != 'Z'
                || (n > 20 && (s.charAt(19) != '.' || n == 21))) {
            return Instant.parse(s);
        }
        int year = number(s, 0, 4);
        int month = number(s, 5, 2);
        int day = number(s, 8, 2);
        int hour = number(s, 11, 2);
        int minute = number(s, 14, 2);
        int second = number(s, 17, 2);
        int nano = 0;
        if (n > 20) {
            int fraction = n - 21;
            nano = number(s, 20, fraction);
            for (int k = fraction; k < 9; k++) {
                nano *= 10;
            }
        }
        if (year < 0
                || month < 0
                || day < 0
                || hour < 0
                || hour > 23
                || minute < 0
                || minute > 59
                || second < 0
                || second > 59
                || nano < 0) {
            return Instant.parse(s);
        }
        long epochDay = LocalDate.of(year, month, day).toEpochDay();
        return Instant.ofEpochSecond(epochDay * 86_400 + hour * 3600L + minute * 60L + second, nano);
    }

    /** The decimal number in {@code s[from, from + len)}, or -1 if a character is not a digit. */
    private static int number(String s, int from, int len) {
        int v = 0;
        for (int k = from; k < from + len; k++) {
            char ch = s.charAt(k);
            if (ch < '0' || ch > '9') {
                return -1;
            }
            v = v * 10 + (ch - '0');
        }
        return v;
    }

    private static int digits(char[] c, int at, int value, int width) {
        for (int k = at + width - 1; k >= at; k--) {
            c[k] = (char) ('0' + value % 10);
            value /= 10;
        }
        return at + width;
    }
}
