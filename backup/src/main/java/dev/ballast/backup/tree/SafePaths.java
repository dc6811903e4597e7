package dev.ballast.backup.tree;

import dev.ballast.backup.Advice;
import dev.ballast.backup.BackupException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Checks a path read from a manifest before anything is written for it. A manifest is data from
 * the store and may have been crafted: a path that is absolute, has an empty, {@code .} or
 * {@code ..} segment, contains a NUL (or, where the platform separates paths with it, a backslash
 * or any control character), or would resolve outside the restore target is refused (the "zip
 * slip" class of bug, CWE-22). On Linux and macOS a backslash and a control character are ordinary
 * characters of a file name, so {@code a\b.txt} is one file there and restores as one, as does a
 * name with a tab or newline in it. A path is a name in the sense of {@link Names} (its bytes,
 * whatever the JVM's locale), and is resolved from its bytes.
 */
public final class SafePaths {
    /** Whether this platform separates path segments with a backslash (Windows). */
    public static final boolean BACKSLASH_SEPARATES = java.io.File.separatorChar == '\\';

    private SafePaths() {}

    /**
     * Returns why {@code manifestPath} is unsafe on this platform, or null when it is a plain
     * relative path of {@code /}-separated segments.
     */
    public static @Nullable String problem(String manifestPath) {
        return problem(manifestPath, BACKSLASH_SEPARATES);
    }

    /** As {@link #problem(String)}, for a platform that does or does not separate paths with a backslash. */
    public static @Nullable String problem(String manifestPath, boolean backslashSeparates) {
        Objects.requireNonNull(manifestPath, "manifestPath");
        if (manifestPath.isEmpty()) {
            return "it is empty";
        }
        for (int i = 0; i < manifestPath.length(); i++) {
            char c = manifestPath.charAt(i);
            if (c == '\0') {
                return "it contains a NUL character";
            }
            if (backslashSeparates && Character.isISOControl(c)) {
                return "it contains a control character";
            }
            if (c == '\\' && backslashSeparates) {
                return "it contains a backslash, which separates paths here";
            }
        }
        if (manifestPath.startsWith("/")) {
            return "it is absolute";
        }
        try {
            // From its bytes where the platform allows (any locale); else as the JDK encodes names.
            if (Names.path(manifestPath).isAbsolute()) {
                return "it is absolute";
            }
        } catch (IllegalArgumentException e) { // InvalidPathException too
            return "it is not a valid path here ("
                    + (e instanceof InvalidPathException ip ? ip.getReason() : e.getMessage()) + ")";
        }
        if (manifestPath.length() >= 2 && manifestPath.charAt(1) == ':') {
            return "it starts with a drive letter";
        }
        for (String segment : manifestPath.split("/", -1)) {
            if (segment.equals("..")) {
                return "it contains '..'";
            }
            if (segment.isEmpty() || segment.equals(".")) {
                return "it has an empty or '.' segment";
            }
        }
        return null;
    }

    /**
     * Resolves {@code manifestPath} inside {@code target}.
     *
     * @throws BackupException with {@link BackupException.Kind#INTEGRITY} if the path is unsafe or lands outside
     *     {@code target} once normalised
     */
    public static @Nullable Path resolveInside(Path target, String manifestPath) {
        Objects.requireNonNull(target, "target");
        String problem = problem(manifestPath);
        Path root = target.toAbsolutePath().normalize();
        Path resolved = problem == null ? Names.resolve(root, manifestPath).normalize() : null;
        if (problem == null && (!resolved.startsWith(root) || resolved.equals(root))) {
            problem = "it would land outside the target directory";
        }
        if (problem != null) {
            throw new BackupException(
                    BackupException.Kind.INTEGRITY,
                    "The manifest names the path '" + Names.printable(manifestPath) + "', which is refused because "
                            + problem
                            + "; nothing was restored. The manifest is corrupt or crafted: restore "
                            + Advice.ANOTHER_VERSION.text() + " (" + Advice.LIST_VERSIONS.text() + ").");
        }
        return resolved;
    }
}
