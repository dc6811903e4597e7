package dev.ballast.backup.tree;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A path pattern with restic's semantics ({@code internal/filter} of restic): the pattern and the
 * path are split at {@code /}; each part is matched against one path segment with {@code *} (any
 * run of characters), {@code ?} (one character), {@code [abc]}, {@code [a-z]} and {@code [^a]} or
 * {@code [!a]} (a class, negated), and {@code \} escaping the next character; a part {@code **}
 * matches any number of segments, none included.
 *
 * <ul>
 *   <li>A pattern starting with {@code /} is anchored: it must match the path's first segments.
 *       {@code /cache} matches {@code /cache} and everything under it, not {@code /a/cache}.
 *   <li>Any other pattern may match anywhere: {@code *.tmp} matches {@code /a/b/x.tmp}, and
 *       {@code node_modules} matches {@code /web/node_modules} and everything under it.
 *   <li>A pattern that matches a directory matches everything under it.
 *   <li>A pattern starting with {@code !} is negated: in a list, the last pattern that matches a
 *       path decides, so {@code *.log} then {@code !keep.log} excludes every log but one.
 * </ul>
 *
 * Paths given to {@link #matches} start with {@code /}. Immutable and thread-safe.
 */
public final class Glob {
    private final String text;
    private final String[] parts;
    private final boolean negated;

    private Glob(String text, String[] parts, boolean negated) {
        this.text = text;
        this.parts = parts;
        this.negated = negated;
    }

    /**
     * Parses a pattern.
     *
     * @throws IllegalArgumentException if it is empty or has an unterminated {@code [} class
     */
    public static Glob parse(String pattern) {
        Objects.requireNonNull(pattern, "pattern");
        boolean negated = pattern.startsWith("!");
        String body = negated ? pattern.substring(1) : pattern;
        if (body.isEmpty()) {
            throw new IllegalArgumentException("the pattern '" + pattern + "' is empty");
        }
        boolean anchored = body.startsWith("/");
        List<String> parts = new ArrayList<>();
        if (anchored) {
            parts.add("");
        }
        for (String part : body.split("/")) {
            if (!part.isEmpty() && !part.equals(".")) {
                checkClasses(pattern, part);
                parts.add(part);
            }
        }
        if (parts.isEmpty() || (anchored && parts.size() == 1)) {
            throw new IllegalArgumentException("the pattern '" + pattern + "' names no file (it is only slashes)");
        }
        return new Glob(pattern, parts.toArray(String[]::new), negated);
    }

    /** Whether the pattern started with {@code !}. */
    public boolean negated() {
        return negated;
    }

    /** Whether the pattern starts with {@code /} (after a {@code !}). */
    public boolean anchored() {
        return parts[0].isEmpty();
    }

    @Override
    public String toString() {
        return text;
    }

    /** Whether {@code path} ({@code /}-separated, starting with {@code /}) or a directory above it matches. */
    public boolean matches(String path) {
        return match(parts, path.split("/", -1));
    }

    /**
     * Whether the last pattern of {@code globs} that matches {@code path} is not negated: the verdict
     * of an include or exclude list.
     */
    public static boolean anyMatches(List<Glob> globs, String path) {
        boolean matched = false;
        for (Glob g : globs) {
            if (g.matches(path)) {
                matched = !g.negated;
            }
        }
        return matched;
    }

    /**
     * Whether something under the directory {@code path} could match: always for a pattern that may
     * match anywhere; for an anchored one, when the directory matches its first segments.
     */
    public boolean childMayMatch(String path) {
        if (!anchored()) {
            return true;
        }
        String[] segments = path.split("/", -1);
        int limit = parts.length;
        for (int i = 0; i < parts.length; i++) {
            if (parts[i].equals("**")) {
                limit = i;
                break;
            }
        }
        int n = Math.min(limit, segments.length);
        String[] prefix = java.util.Arrays.copyOf(parts, n);
        String[] head = java.util.Arrays.copyOf(segments, n);
        return match(prefix, head);
    }

    private static boolean match(String[] patterns, String[] segments) {
        for (int pos = 0; pos < patterns.length; pos++) {
            if (patterns[pos].equals("**")) {
                // Expand ** into 0, 1, 2, ... single-segment wildcards and try each.
                for (int width = 0; width <= Math.max(0, segments.length - patterns.length + 1); width++) {
                    String[] expanded = new String[patterns.length - 1 + width];
                    System.arraycopy(patterns, 0, expanded, 0, pos);
                    for (int k = 0; k < width; k++) {
                        expanded[pos + k] = "*";
                    }
                    System.arraycopy(patterns, pos + 1, expanded, pos + width, patterns.length - pos - 1);
                    if (match(expanded, segments)) {
                        return true;
                    }
                }
                return false;
            }
        }
        if (patterns.length == 0) {
            return segments.length == 0;
        }
        if (patterns.length > segments.length) {
            return false;
        }
        int maxOffset = patterns[0].isEmpty() ? 0 : segments.length - patterns.length;
        outer:
        for (int offset = maxOffset; offset >= 0; offset--) {
            for (int i = patterns.length - 1; i >= 0; i--) {
                if (!segment(patterns[i], 0, segments[offset + i], 0)) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    /** Matches one segment, with {@code *}, {@code ?}, classes and escapes (Go's {@code filepath.Match} for one part). */
    private static boolean segment(String p, int pi, String s, int si) {
        while (pi < p.length()) {
            char c = p.charAt(pi);
            if (c == '*') {
                for (int k = s.length(); k >= si; k--) {
                    if (segment(p, pi + 1, s, k)) {
                        return true;
                    }
                }
                return false;
            }
            if (si >= s.length()) {
                return false;
            }
            if (c == '?') {
                pi++;
                si++;
            } else if (c == '[') {
                int end = classEnd(p, pi);
                if (!inClass(p, pi + 1, end, s.charAt(si))) {
                    return false;
                }
                pi = end + 1;
                si++;
            } else {
                if (c == '\\' && pi + 1 < p.length()) {
                    c = p.charAt(++pi);
                }
                if (c != s.charAt(si)) {
                    return false;
                }
                pi++;
                si++;
            }
        }
        return si == s.length();
    }

    /** The index of the {@code ]} closing the class opened at {@code open}, or -1. */
    private static int classEnd(String p, int open) {
        int i = open + 1;
        if (i < p.length() && (p.charAt(i) == '^' || p.charAt(i) == '!')) {
            i++;
        }
        if (i < p.length() && p.charAt(i) == ']') {
            i++; // a leading ] is a member
        }
        while (i < p.length() && p.charAt(i) != ']') {
            if (p.charAt(i) == '\\') {
                i++;
            }
            i++;
        }
        return i < p.length() ? i : -1;
    }

    private static boolean inClass(String p, int from, int end, char ch) {
        boolean negate = p.charAt(from) == '^' || p.charAt(from) == '!';
        int i = negate ? from + 1 : from;
        boolean found = false;
        boolean first = true;
        while (i < end) {
            char lo = p.charAt(i);
            if (lo == '\\' && !first) {
                lo = p.charAt(++i);
            }
            first = false;
            char hi = lo;
            if (i + 2 < end && p.charAt(i + 1) == '-') {
                hi = p.charAt(i + 2);
                if (hi == '\\' && i + 3 < end) {
                    hi = p.charAt(i + 3);
                    i++;
                }
                i += 2;
            }
            if (lo <= ch && ch <= hi) {
                found = true;
            }
            i++;
        }
        return found != negate;
    }

    private static void checkClasses(String pattern, String part) {
        for (int i = 0; i < part.length(); i++) {
            char c = part.charAt(i);
            if (c == '\\') {
                i++;
            } else if (c == '[') {
                int end = classEnd(part, i);
                if (end < 0) {
                    throw new IllegalArgumentException("the pattern '" + pattern + "' has a '[' without its ']'");
                }
                i = end;
            }
        }
    }
}
