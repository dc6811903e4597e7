package dev.ballast.backup.pack;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How much unused space {@link BlobRepository#prune} may leave in the packs it keeps, as restic's
 * {@code prune --max-unused}: the stored bytes of blobs no live blob needs there (dead blobs, and
 * copies of live blobs kept in another pack). The prune repacks packs that hold some of it until what
 * is left is within the limit. Three forms:
 *
 * <ul>
 *   <li>a percentage, from 0 to below 100 ({@code 5%}, the default; {@code 2.5%}): of the stored
 *       bytes of every blob the packs hold after the prune, live and unused;
 *   <li>a size in bytes ({@code 0}, {@code 1048576}), or with a suffix {@code k}, {@code m},
 *       {@code g} or {@code t} in either case, in units of 1024 ({@code 500M}, {@code 2g});
 *   <li>{@code unlimited}: no pack is repacked for its unused space (those holding nothing live are
 *       still deleted).
 * </ul>
 *
 * Only blobs are counted: pack headers are not, as in restic's figures. Immutable and thread-safe.
 */
public final class MaxUnused {
    private static final Pattern PERCENT = Pattern.compile("(\\d+(?:\\.\\d+)?)%");
    private static final Pattern SIZE = Pattern.compile("(\\d+)([bkmgt]?)", Pattern.CASE_INSENSITIVE);

    /** The forms {@link #parse} accepts, as a phrase. */
    static final String FORMS = "a percentage from 0% to below 100% (e.g. 5%), a number of bytes with or without k, m,"
            + " g or t for KiB, MiB, GiB or TiB (e.g. 0, 500M), or unlimited";

    /** restic's default: 5 % of the packs' bytes. */
    public static final MaxUnused DEFAULT = new MaxUnused("5%", 5, -1);

    /** No limit: only packs holding nothing live go. */
    public static final MaxUnused UNLIMITED = new MaxUnused("unlimited", -1, -1);

    /** As the user wrote it, trimmed, or the canonical form. */
    private final String text;
    /** The percentage, 0 to below 100; -1 for a size or no limit. */
    private final double percent;
    /** The size in bytes, 0 or more; -1 for a percentage or no limit. */
    private final long bytes;

    private MaxUnused(String text, double percent, long bytes) {
        this.text = text;
        this.percent = percent;
        this.bytes = bytes;
    }

    /**
     * At most {@code percent} percent of the stored bytes of the blobs the packs hold after the prune.
     *
     * @param percent from 0 to below 100
     * @throws IllegalArgumentException outside that range (or not a number)
     */
    public static MaxUnused percent(double percent) {
        if (!(percent >= 0 && percent < 100)) {
            throw new IllegalArgumentException("the percentage " + percent + " is not from 0 to below 100");
        }
        String t = percent == Math.rint(percent) ? String.valueOf((long) percent) : String.valueOf(percent);
        return new MaxUnused(t + "%", percent, -1);
    }

    /**
     * At most {@code bytes} stored bytes; 0 leaves no unused space in the packs a prune may touch.
     *
     * @throws IllegalArgumentException if negative
     */
    public static MaxUnused bytes(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("the size " + bytes + " is negative");
        }
        return new MaxUnused(String.valueOf(bytes), -1, bytes);
    }

    /**
     * Parses restic's forms: {@code 5%}, {@code 2.5%}, {@code 0}, {@code 500M}, {@code 2g}, {@code 1024b},
     * {@code unlimited} (surrounding blanks ignored; the letters in either case).
     *
     * @throws IllegalArgumentException one sentence, lower-case first and without a full stop, naming
     *     {@code text} and the accepted forms
     */
    public static MaxUnused parse(String text) {
        String t = text.trim();
        if (t.equalsIgnoreCase("unlimited")) {
            return new MaxUnused("unlimited", -1, -1);
        }
        Matcher m = PERCENT.matcher(t);
        if (m.matches()) {
            double p = Double.parseDouble(m.group(1));
            if (p < 100) {
                return new MaxUnused(t, p, -1);
            }
        }
        m = SIZE.matcher(t);
        if (m.matches()) {
            int shift = switch (m.group(2).toLowerCase(Locale.ROOT)) {
                case "k" -> 10;
                case "m" -> 20;
                case "g" -> 30;
                case "t" -> 40;
                default -> 0;
            };
            try {
                long n = Long.parseLong(m.group(1));
                if (n <= (Long.MAX_VALUE >> shift)) {
                    return new MaxUnused(t, -1, n << shift);
                }
            } catch (NumberFormatException tooLong) {
                // too many digits: refused below
            }
        }
        throw new IllegalArgumentException("'" + text + "' must be " + FORMS);
    }

    /** Whether this is {@link #UNLIMITED} (or parsed from {@code unlimited}). */
    public boolean unlimited() {
        return percent < 0 && bytes < 0;
    }

    /**
     * Whether {@code unusedBytes} of unused space is within the limit in packs whose blobs take
     * {@code storedBytes} in all (live and unused; {@code unusedBytes <= storedBytes}).
     */
    public boolean allows(long unusedBytes, long storedBytes) {
        if (bytes >= 0) {
            return unusedBytes <= bytes;
        }
        if (percent >= 0) {
            return unusedBytes * 100.0 <= percent * storedBytes;
        }
        return true;
    }

    /** The limit as given ({@code 5%}, {@code 500M}, {@code unlimited}). */
    @Override
    public String toString() {
        return text;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MaxUnused other && Double.compare(percent, other.percent) == 0 && bytes == other.bytes;
    }

    @Override
    public int hashCode() {
        return Double.hashCode(percent) * 31 + Long.hashCode(bytes);
    }
}
