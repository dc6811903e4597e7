package dev.ballast.backup.tree;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;

/**
 * What a backup leaves out, decided while the tree is walked:
 *
 * <ul>
 *   <li>{@code --exclude} and {@code --exclude-file} patterns ({@link Glob}, restic's semantics),
 *       matched against the path relative to the backed-up directory with a leading {@code /}
 *       ({@code /logs/a.log}), and against the absolute path as restic matches them: an anchored
 *       pattern ({@code /home/me/photos/cache}), and one that matches anywhere
 *       ({@code photos/cache} backing up {@code /home/me/photos}) unless it matches the backed-up
 *       directory itself or one above it ({@code -e home}), where restic would leave out everything.
 *   <li>A {@code .ballastignore} file in any directory: one pattern a line, as an exclude file,
 *       matched against the paths below that directory relative to it ({@code /build} in
 *       {@code web/.ballastignore} excludes {@code web/build}). The file itself is backed up.
 *   <li>{@code --exclude-caches}: a directory holding a {@code CACHEDIR.TAG} that starts with the
 *       signature of the <a href="https://bford.info/cachedir/">Cache Directory Tagging
 *       Specification</a> is kept with its tag file but without the rest of its content, as restic
 *       and GNU tar's {@code --exclude-caches} do.
 * </ul>
 *
 * Used by the walking thread only; not thread-safe.
 */
public final class BackupFilter {
    /** The per-directory ignore file's name. */
    public static final String IGNORE_FILE = ".ballastignore";
    /** The cache tag's name and the first bytes it must hold (the specification's signature). */
    public static final String CACHE_TAG = "CACHEDIR.TAG";

    public static final byte[] CACHE_SIGNATURE =
            "Signature: 8a477f597d28d172789f06886806bc55".getBytes(StandardCharsets.US_ASCII);

    private final List<Glob> excludes;
    private final boolean excludeCaches;
    private final Path source;
    /** The directories being walked that hold a .ballastignore or a cache tag, innermost first. */
    private final Deque<Frame> frames = new ArrayDeque<>();

    private int excluded;

    /** A directory on the walk's path with rules of its own. */
    private record Frame(String rel, List<Glob> ignores, boolean cache) {}

    public BackupFilter(Path source, List<Glob> excludes, boolean excludeCaches) {
        this.source = source;
        this.excludes = List.copyOf(excludes);
        this.excludeCaches = excludeCaches;
        String root = Names.name(source.toAbsolutePath());
        this.absolute = new boolean[this.excludes.size()];
        for (int i = 0; i < absolute.length; i++) {
            Glob g = this.excludes.get(i);
            absolute[i] = g.anchored() || !g.matches(root);
        }
    }

    /**
     * For each of {@link #excludes}, whether it is matched against the absolute path too: anchored
     * patterns always; one that matches anywhere when it does not match the backed-up directory or a
     * directory above it (it would leave out the whole tree there, which restic does and nobody means).
     */
    private final boolean[] absolute;

    /** A filter that leaves nothing out (but still honours {@code .ballastignore}). */
    public static BackupFilter none(Path source) {
        return new BackupFilter(source, List.of(), false);
    }

    /**
     * Reads exclude patterns from a file: one a line, surrounding blanks trimmed, empty lines and
     * lines starting with {@code #} ignored (restic's {@code --exclude-file} format). The file is
     * UTF-8 whatever the locale; bytes that are not UTF-8 stand for themselves, as in file names.
     *
     * @throws IllegalArgumentException if a line is not a valid pattern
     */
    public static List<Glob> readPatterns(Path file) throws IOException {
        List<Glob> globs = new ArrayList<>();
        int n = 0;
        // Decoded as file names are (Names): a pattern may hold a name's bytes that are not UTF-8.
        for (String line : Names.decode(Files.readAllBytes(file)).split("\n", -1)) {
            n++;
            String t = line.strip();
            if (t.isEmpty() || t.startsWith("#")) {
                continue;
            }
            try {
                globs.add(Glob.parse(t));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(file + " line " + n + ": " + e.getMessage(), e);
            }
        }
        return globs;
    }

    /** How many files and directories were left out (a directory counts once, whatever it held). */
    public int excluded() {
        return excluded;
    }

    /**
     * Whether the entry {@code rel} (relative, {@code /}-separated) found at {@code file} is left out;
     * counts it when it is.
     */
    public boolean excludes(String rel, Path file) {
        boolean out = decide(rel, file);
        if (out) {
            excluded++;
        }
        return out;
    }

    private boolean decide(String rel, Path file) {
        String slashed = "/" + rel;
        boolean out = false;
        String abs = null;
        for (int i = 0; i < excludes.size(); i++) {
            Glob g = excludes.get(i);
            boolean matched = g.matches(slashed);
            if (!matched && absolute[i]) {
                if (abs == null) {
                    abs = Names.name(file.toAbsolutePath());
                }
                matched = g.matches(abs);
            }
            if (matched) {
                out = !g.negated();
            }
        }
        // Innermost directories' rules come last, so they decide.
        var it = frames.descendingIterator();
        while (it.hasNext()) {
            Frame f = it.next();
            if (f.cache() && isChild(f.rel(), rel) && !rel.endsWith("/" + CACHE_TAG) && !rel.equals(CACHE_TAG)) {
                out = true;
            }
            if (!f.ignores().isEmpty()) {
                String below =
                        f.rel().isEmpty() ? slashed : slashed.substring(f.rel().length() + 1);
                for (Glob g : f.ignores()) {
                    if (g.matches(below)) {
                        out = !g.negated();
                    }
                }
            }
        }
        return out;
    }

    private static boolean isChild(String dir, String rel) {
        if (dir.isEmpty()) {
            return rel.indexOf('/') < 0;
        }
        return rel.startsWith(dir + "/") && rel.indexOf('/', dir.length() + 1) < 0;
    }

    /**
     * The walk entered directory {@code rel} ({@code ""} for the backed-up one) at {@code dir}: reads
     * its {@code .ballastignore} and cache tag.
     *
     * @throws IllegalArgumentException if its {@code .ballastignore} holds an invalid pattern
     */
    public void enter(String rel, Path dir) throws IOException {
        Path ignore = dir.resolve(IGNORE_FILE);
        List<Glob> ignores = Files.isRegularFile(ignore, LinkOption.NOFOLLOW_LINKS) ? readPatterns(ignore) : List.of();
        boolean cache = excludeCaches && isCacheTag(dir.resolve(CACHE_TAG));
        frames.push(new Frame(rel, ignores, cache));
    }

    /** The walk left the directory it entered last. */
    public void leave() {
        frames.pop();
    }

    /** Whether {@code tag} is a regular file starting with the cache directory signature. */
    public static boolean isCacheTag(Path tag) {
        if (!Files.isRegularFile(tag, LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        try (InputStream in = Files.newInputStream(tag)) {
            return Arrays.equals(in.readNBytes(CACHE_SIGNATURE.length), CACHE_SIGNATURE);
        } catch (IOException e) {
            return false;
        }
    }

    public Path source() {
        return source;
    }
}
