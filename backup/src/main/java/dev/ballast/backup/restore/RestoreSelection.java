package dev.ballast.backup.restore;

import dev.ballast.backup.Advice;
import dev.ballast.backup.BackupException;
import dev.ballast.backup.Messages;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.backup.snapshot.ManifestTree;
import dev.ballast.backup.snapshot.Manifests;
import dev.ballast.backup.tree.BackupFilter;
import dev.ballast.backup.tree.Glob;
import dev.ballast.backup.tree.Names;
import dev.ballast.backup.tree.SafePaths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Which part of a backup a restore writes: the {@code PATH} arguments (each a file, or a directory
 * with everything under it, named as in the backup) and the {@code --include} and {@code --exclude}
 * patterns ({@link Glob}, restic's semantics), matched against the path in the backup with a
 * leading {@code /}. An entry is restored when it is under a {@code PATH} (or none was given),
 * matches an include (or none was given) and matches no exclude. Restored entries keep their path
 * under the target, as restic restores them; the directories above them are restored too, with
 * their attributes. An excluded directory excludes everything under it, whatever later {@code !}
 * patterns say (restic's backup and restore both stop descending there). A hard-link group whose
 * stored name is not selected but another name is gets its content under the first selected name
 * ({@link Selected#writtenAs}). Not thread-safe (it remembers the verdict of each directory).
 */
public final class RestoreSelection {
    private List<String> paths;
    private final List<Glob> includes;
    private final List<Glob> excludes;

    /** Each path as it was given, by its normal form: what a refusal quotes (not "tmp/a" for "/tmp/a"). */
    private final java.util.Map<String, String> given = new java.util.HashMap<>();

    public RestoreSelection(List<String> paths, List<Glob> includes, List<Glob> excludes) {
        this.paths = paths.stream().map(RestoreSelection::normalise).toList();
        for (String p : paths) {
            given.putIfAbsent(normalise(p), p);
        }
        this.includes = List.copyOf(includes);
        this.excludes = List.copyOf(excludes);
    }

    /** Whether everything is restored. */
    public boolean all() {
        return paths.isEmpty() && includes.isEmpty() && excludes.isEmpty();
    }

    /**
     * {@code /a/b/}, {@code ./a//b}, {@code a/./b} and {@code a/b} all name {@code a/b}, and {@code .}
     * the whole backup. A backslash is part of a
     * name where the platform allows it there (Linux, macOS: {@code a\b} is one file, as the backup
     * recorded it), and a separator only where it separates paths (Windows).
     */
    public static String normalise(String path) {
        return normalise(path, SafePaths.BACKSLASH_SEPARATES);
    }

    /** As {@link #normalise(String)}, on a platform that does or does not separate paths with a backslash. */
    public static String normalise(String path, boolean backslashSeparates) {
        String p = backslashSeparates ? path.replace('\\', '/') : path;
        StringBuilder normal = new StringBuilder();
        for (String segment : p.split("/")) {
            if (segment.isEmpty() || segment.equals(".")) {
                continue; // "/a", "a//b", "./a", "a/./b" and "a/" all name a/b's entries
            }
            normal.append(normal.length() == 0 ? "" : "/").append(segment);
        }
        return normal.toString();
    }

    private boolean selected(String path) {
        if (!paths.isEmpty()
                && paths.stream().noneMatch(p -> p.isEmpty() || path.equals(p) || path.startsWith(p + "/"))) {
            return false;
        }
        String slashed = "/" + path;
        if (!includes.isEmpty() && !Glob.anyMatches(includes, slashed)) {
            return false;
        }
        return !excluded(slashed);
    }

    /** The exclude verdict of each directory met, so a deep tree costs one verdict per directory. */
    private final Map<String, Boolean> excludedDirectories = new HashMap<>();

    /**
     * Whether {@code slashed} or a directory above it is excluded: as restic (and {@code .gitignore}), an
     * excluded directory is not descended into, so a later {@code !} pattern brings back a path only
     * when no directory above it is excluded, on restore as on backup ({@link BackupFilter}).
     */
    private boolean excluded(String slashed) {
        if (excludes.isEmpty()) {
            return false;
        }
        int slash = slashed.lastIndexOf('/');
        if (slash > 0) {
            String parent = slashed.substring(0, slash);
            Boolean known = excludedDirectories.get(parent);
            if (known == null) {
                known = excluded(parent);
                excludedDirectories.put(parent, known);
            }
            if (known) {
                return true;
            }
        }
        return Glob.anyMatches(excludes, slashed);
    }

    /** The PATH arguments that name nothing in {@code m} (neither an entry nor a directory above one). */
    public List<String> unmatchedPaths(Manifest m) {
        Set<String> all = new HashSet<>();
        m.files().forEach(e -> all.add(e.path()));
        m.tree().directories().forEach(d -> all.add(d.path()));
        m.tree().symlinks().forEach(l -> all.add(l.path()));
        m.tree().hardLinks().forEach(l -> all.add(l.path()));
        List<String> missing = new ArrayList<>();
        for (String p : paths) {
            if (p.isEmpty() || all.contains(p)) {
                continue;
            }
            String prefix = p + "/";
            if (all.stream().noneMatch(a -> a.startsWith(prefix))) {
                missing.add(p);
            }
        }
        return missing;
    }

    /** The part of {@code m} to restore, as a manifest of its own. */
    public Manifest apply(Manifest m) {
        return select(m).manifest();
    }

    /**
     * The part of a manifest to restore.
     *
     * @param manifest the selected entries; a file is listed under the path its content is stored at
     * @param writtenAs for a hard-linked file whose stored name is not selected but another of its
     *     names is: its stored path mapped to the first selected name, which gets the content (the
     *     other selected names link to it, and the stored name is not written), as restic restores a
     *     hard-link group from the names it selects
     */
    public record Selected(Manifest manifest, Map<String, String> writtenAs) {}

    /** As {@link #apply}, with the names hard-linked files are written under. */
    public Selected select(Manifest m) {
        if (all()) {
            return new Selected(m, Map.of());
        }
        ManifestTree tree = m.tree();
        List<ManifestTree.HardLink> selectedLinks =
                tree.hardLinks().stream().filter(l -> selected(l.path())).toList();
        Set<String> linkTargets = new HashSet<>();
        selectedLinks.forEach(l -> linkTargets.add(l.target()));
        List<ManifestEntry> files = m.files().stream()
                .filter(e -> selected(e.path()) || linkTargets.contains(e.path()))
                .toList();
        // A group whose stored name is left out: its first selected name takes the content.
        Map<String, String> writtenAs = new HashMap<>();
        List<ManifestTree.HardLink> links = new ArrayList<>();
        for (ManifestTree.HardLink l : selectedLinks) {
            if (selected(l.target())) {
                links.add(l);
            } else if (writtenAs.containsKey(l.target())) {
                links.add(new ManifestTree.HardLink(l.path(), writtenAs.get(l.target())));
            } else {
                writtenAs.put(l.target(), l.path());
            }
        }
        List<ManifestTree.Symlink> symlinks =
                tree.symlinks().stream().filter(l -> selected(l.path())).toList();
        Set<String> parents = new HashSet<>();
        files.forEach(e -> addParents(writtenAs.getOrDefault(e.path(), e.path()), parents));
        links.forEach(l -> addParents(l.path(), parents));
        symlinks.forEach(l -> addParents(l.path(), parents));
        List<ManifestTree.Directory> dirs = tree.directories().stream()
                .filter(d -> selected(d.path()) || parents.contains(d.path()))
                .toList();
        dirs.forEach(d -> addParents(d.path(), parents));
        List<ManifestTree.Directory> withParents = tree.directories().stream()
                .filter(d -> selected(d.path()) || parents.contains(d.path()))
                .toList();
        Set<String> kept = new HashSet<>();
        files.forEach(e -> kept.add(e.path()));
        List<Manifest.Stale> stale =
                m.stale().stream().filter(st -> kept.contains(st.path())).toList();
        return new Selected(
                new Manifest(
                        m.formatVersion(),
                        m.name(),
                        m.createdAt(),
                        m.complete(),
                        files,
                        m.notStored(),
                        stale,
                        m.incompleteBecause(),
                        new ManifestTree(withParents, symlinks, links),
                        m.source(),
                        m.host()),
                Map.copyOf(writtenAs));
    }

    /**
     * {@code path} relative to the backed-up directory {@code source} when it is that directory's
     * absolute path (its leading slash dropped, as paths are normalised) and something below it, as a
     * restic user names a file; else null.
     */
    static @Nullable String underSource(String path, @Nullable String source) {
        if (source == null) {
            return null;
        }
        String base = normalise(source);
        return path.startsWith(base + "/") && path.length() > base.length() + 1
                ? path.substring(base.length() + 1)
                : null;
    }

    /** The path {@code p} is the printed form of, where it is one, else {@code p}. */
    private static String printedAs(String p) {
        String name = Names.fromPrintable(p);
        return name == null ? p : normalise(name);
    }

    private static void addParents(String path, Set<String> parents) {
        for (int slash = path.lastIndexOf('/'); slash > 0; slash = path.lastIndexOf('/', slash - 1)) {
            if (!parents.add(path.substring(0, slash))) {
                return;
            }
        }
    }

    /**
     * This selection of {@code chosen}, the manifest version of backup {@code name}.
     *
     * @throws BackupException with {@link BackupException.Kind#NOT_FOUND} if a path given is not in
     *     the backup, or if nothing matches the paths and patterns given
     */
    /** Whether {@code path} holds a glob's wildcard ({@code *}, {@code ?} or {@code [}). */
    private static boolean isPattern(String path) {
        return path.indexOf('*') >= 0 || path.indexOf('?') >= 0 || path.indexOf('[') >= 0;
    }

    public Selected selectOrRefuse(String name, Manifests.Versioned chosen) {
        Manifest full = chosen.manifest();
        List<String> missing = unmatchedPaths(full);
        if (!missing.isEmpty()) {
            // A path copied from a listing ('ls' prints a byte that is not UTF-8 in a name as \xFF, a
            // backslash as two, a newline as a backslash, u and 000A) names what it was printed for; a
            // path the backup holds as it is typed was matched above and is taken as it is.
            List<String> unmatched = missing;
            paths = paths.stream()
                    .map(p -> unmatched.contains(p) ? printedAs(p) : p)
                    .toList();
            missing = unmatchedPaths(full);
        }
        if (!missing.isEmpty()) {
            String relative = underSource(missing.get(0), full.source());
            throw new BackupException(
                    BackupException.Kind.NOT_FOUND,
                    "Backup '" + name + "' (manifest version "
                            + Manifests.label(chosen.version().versionId())
                            + ") has no file or directory '"
                            + Messages.printable(given.getOrDefault(missing.get(0), missing.get(0)))
                            + "'; nothing was restored. Name paths "
                            + "as the backup holds them, relative to the backed-up directory ("
                            + (relative != null
                                    ? "'" + Messages.printable(relative) + "' for this one, the backed-up directory"
                                            + " being " + Messages.printable(full.source())
                                    : "e.g. 'docs/report.pdf'")
                            + ")"
                            // a README-only newcomer's 'dir03/sub*': a path is taken as it is, a pattern is --include's
                            + (isPattern(missing.get(0))
                                    ? "; a path is matched as it is written, a pattern such as '"
                                            + Messages.printable(missing.get(0)) + "' goes to "
                                            + Advice.INCLUDE_PATTERNS.text()
                                    : "")
                            + ".");
        }
        Selected selected = select(full);
        Manifest m = selected.manifest();
        if (!all() && m.files().isEmpty() && m.tree().isEmpty()) {
            throw new BackupException(
                    BackupException.Kind.NOT_FOUND,
                    "Nothing in backup '" + name + "' (manifest version "
                            + Manifests.label(chosen.version().versionId())
                            + ") matches the paths and patterns given; nothing was restored.");
        }
        return selected;
    }
}
