package dev.ballast.backup.verify;

import dev.ballast.backup.content.Sha256;
import dev.ballast.backup.snapshot.ManifestEntry;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which files {@code verify --read-data-subset} reads, in the three forms of restic's
 * {@code check --read-data-subset}:
 *
 * <ul>
 *   <li>{@code n/t}: the n-th of t groups; a file's group is fixed by the SHA-256 of its path, so
 *       running {@code 1/t} to {@code t/t} (one a night, say) reads every file exactly once.
 *   <li>{@code x%}: a random x percent of the files (at least one when there are any).
 *   <li>a size such as {@code 500M} or {@code 2G}: random files until that many bytes.
 * </ul>
 *
 * Immutable; {@link #select} is thread-safe.
 */
public final class DataSubset {
    private static final Pattern GROUP = Pattern.compile("(\\d+)/(\\d+)");
    private static final Pattern PERCENT = Pattern.compile("(\\d+(?:\\.\\d+)?)%");
    private static final Pattern SIZE = Pattern.compile("(\\d+)([KMGT])I?B?", Pattern.CASE_INSENSITIVE);

    private final String text;
    private final int group;
    private final int groups;
    private final double percent;
    private final long bytes;

    private DataSubset(String text, int group, int groups, double percent, long bytes) {
        this.text = text;
        this.group = group;
        this.groups = groups;
        this.percent = percent;
        this.bytes = bytes;
    }

    /**
     * Parses {@code n/t}, {@code x%} or a size.
     *
     * @throws IllegalArgumentException naming what is accepted
     */
    public static DataSubset parse(String text) {
        try {
            return parseNumbers(text);
        } catch (NumberFormatException e) {
            // a tester's 99999999999999999999G: "For input string" was the whole message
            throw new IllegalArgumentException("'" + text + "' holds a number too large to use; pass n/t (e.g. 1/7),"
                    + " a percentage (e.g. 10%) or a size (e.g. 500M, 2G)");
        }
    }

    private static DataSubset parseNumbers(String text) {
        String t = text.trim();
        Matcher m = GROUP.matcher(t);
        if (m.matches()) {
            int n = Integer.parseInt(m.group(1));
            int total = Integer.parseInt(m.group(2));
            if (total < 1 || n < 1 || n > total) {
                throw new IllegalArgumentException("'" + text + "' must be n/t with 1 <= n <= t, e.g. 1/7");
            }
            return new DataSubset(t, n, total, 0, 0);
        }
        m = PERCENT.matcher(t);
        if (m.matches()) {
            double p = Double.parseDouble(m.group(1));
            if (p <= 0 || p > 100) {
                throw new IllegalArgumentException(
                        "'" + text + "' must be a percentage above 0 and at most 100, e.g. 10%");
            }
            return new DataSubset(t, 0, 0, p, 0);
        }
        m = SIZE.matcher(t);
        if (m.matches()) {
            int shift = switch (m.group(2).toUpperCase(Locale.ROOT)) {
                case "K" -> 10;
                case "M" -> 20;
                case "G" -> 30;
                default -> 40;
            };
            long n = Long.parseLong(m.group(1));
            if (n < 1 || n > (Long.MAX_VALUE >> shift)) {
                throw new IllegalArgumentException("'" + text + "' is not a usable size, e.g. 500M or 2G");
            }
            return new DataSubset(t, 0, 0, 0, n << shift);
        }
        throw new IllegalArgumentException("'" + text
                + "' is not a subset: pass n/t (e.g. 1/7), a percentage (e.g. 10%) " + "or a size (e.g. 500M, 2G)");
    }

    @Override
    public String toString() {
        return text;
    }

    /** The files to read, in manifest order; {@code random} draws the percentage and size forms. */
    public List<ManifestEntry> select(List<ManifestEntry> files, Random random) {
        if (groups > 0) {
            List<ManifestEntry> chosen = new ArrayList<>();
            for (ManifestEntry e : files) {
                if (groupOf(e.path(), groups) == group - 1) {
                    chosen.add(e);
                }
            }
            return chosen;
        }
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < files.size(); i++) {
            order.add(i);
        }
        Collections.shuffle(order, random);
        List<Integer> picked = new ArrayList<>();
        if (percent > 0) {
            int count = files.isEmpty() ? 0 : (int) Math.max(1, Math.ceil(files.size() * percent / 100.0));
            picked.addAll(order.subList(0, Math.min(count, order.size())));
        } else {
            long sum = 0;
            for (int i : order) {
                if (sum >= bytes) {
                    break;
                }
                picked.add(i);
                sum += files.get(i).size();
            }
        }
        Collections.sort(picked);
        List<ManifestEntry> chosen = new ArrayList<>();
        picked.forEach(i -> chosen.add(files.get(i)));
        return chosen;
    }

    /**
     * Which packs {@code check --read-data-subset} reads, by key: {@code n/t} the packs of the n-th group
     * ({@link #groupOf} of the key, so {@code 1/t} to {@code t/t} read every pack once); {@code x%} a
     * random x percent of them (rounded up); a size random packs until that many bytes; at least one
     * pack in the last two forms when there is any, as {@link #select} picks files.
     *
     * @param sizes every pack (by key) with its size
     */
    public java.util.Set<String> packs(java.util.Map<String, Long> sizes, Random random) {
        java.util.Set<String> chosen = new java.util.TreeSet<>();
        if (groups > 0) {
            for (String key : sizes.keySet()) {
                if (groupOf(key, groups) == group - 1) {
                    chosen.add(key);
                }
            }
            return chosen;
        }
        List<String> order = new ArrayList<>(sizes.keySet());
        Collections.shuffle(order, random);
        if (percent > 0) {
            int count = order.isEmpty() ? 0 : (int) Math.max(1, Math.ceil(order.size() * percent / 100.0));
            chosen.addAll(order.subList(0, Math.min(count, order.size())));
            return chosen;
        }
        long sum = 0;
        for (String key : order) {
            if (sum >= bytes) {
                break;
            }
            chosen.add(key);
            sum += sizes.get(key);
        }
        return chosen;
    }

    /** The group (0 to t-1) of a path: the first four bytes of its SHA-256, unsigned, modulo t. */
    public static int groupOf(String path, int groups) {
        MessageDigest d = Sha256.newDigest();
        byte[] h = d.digest(path.getBytes(StandardCharsets.UTF_8));
        long v = ((h[0] & 0xffL) << 24) | ((h[1] & 0xffL) << 16) | ((h[2] & 0xffL) << 8) | (h[3] & 0xffL);
        return (int) (v % groups);
    }
}
