package dev.ballast.backup.snapshot;

import dev.ballast.backup.Advice;
import dev.ballast.backup.BackupException;
import dev.ballast.backup.content.Sha256;
import dev.ballast.backup.tree.Names;
import dev.ballast.backup.tree.SafePaths;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The manifest of one backup run, stored as the object {@code NAME/.ballast-manifest.json}; every
 * run writes a new version of it, so older backups stay restorable by manifest version ID.
 *
 * <p>A run that did not finish (endpoint down, Ctrl-C) writes its manifest with {@code complete}
 * false, listing only the files it stored and confirmed, and says why in {@code incompleteBecause};
 * {@code restore} skips such a manifest unless it is asked for by version, and says so.
 *
 * <p>A run that finished but could not store some files (busy, unreadable) is complete: a
 * restorable snapshot, as restic's. Each such file that an earlier run stored keeps that earlier
 * version in {@code files} and is listed in {@code stale} with the reason; one that no run stored
 * is only in {@code notStored}. Manifests written before these fields existed read with both
 * empty.
 *
 * @param formatVersion the manifest format, {@link #FORMAT_VERSION}
 * @param name the backup name
 * @param createdAt when the run started
 * @param complete whether every file of the source directory was stored and confirmed
 * @param files the stored files, sorted by path
 * @param notStored paths of files the run did not store, sorted
 * @param stale files listed in {@code files} with an earlier run's version because this run could
 *     not store them, with the reason, sorted by path
 * @param incompleteBecause why the run did not finish ("it was interrupted", "the store became
 *     unavailable"), or null for a complete run or a manifest that does not say
 * @param tree directories, symbolic links and hard links (all empty in a manifest written before
 *     they were recorded)
 * @param source the absolute path of the directory the run backed up (its bytes as {@link Names}
 *     holds a name), or null in a manifest written before it was recorded
 * @param host the name of the machine the run backed up on (as {@code hostname} prints it), or null
 *     in a manifest written before it was recorded
 */
public record Manifest(
        int formatVersion,
        String name,
        Instant createdAt,
        boolean complete,
        List<ManifestEntry> files,
        List<String> notStored,
        List<Stale> stale,
        @Nullable String incompleteBecause,
        ManifestTree tree,
        @Nullable String source,
        @Nullable String host) {

    /** A file this run could not store, kept in the manifest with the version an earlier run stored. */
    public record Stale(String path, String reason) {
        public Stale {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(reason, "reason");
        }
    }

    /**
     * The format this version of ballast writes. Format 2 stores a file whose name cannot be its own
     * key under {@link #HASHED_KEYS} (see {@link #keyFor}); format 1 stored every file under
     * {@code NAME/path}.
     */
    public static final int FORMAT_VERSION = 2;
    /**
     * The format of a manifest in a repository of format 3 (docs/backup-format.md): each file entry
     * lists the blobs holding its content ({@link ManifestEntry#chunks()}) instead of an object version;
     * the manifest is stored compressed and sealed under {@code snapshots/} ({@link SealedStore}).
     */
    public static final int PACKED_FORMAT_VERSION = 3;
    /** The oldest format this version of ballast reads. */
    public static final int OLDEST_FORMAT_VERSION = 1;
    /** The file name of the manifest object under {@code NAME/}. */
    public static final String FILE_NAME = ".ballast-manifest.json";
    /**
     * Top-level names under {@code NAME/} starting with this are Ballast's own (the manifest, the
     * hashed keys): no backed-up file is stored under such a key.
     */
    public static final String RESERVED_PREFIX = ".ballast-";
    /** Where under {@code NAME/} a file whose name cannot be a key is stored: then the SHA-256 of its name's bytes. */
    public static final String HASHED_KEYS = ".ballast-names/";
    /** S3's limit on a key, in UTF-8 bytes. */
    public static final int MAX_KEY_BYTES = 1024;

    public Manifest {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(createdAt, "createdAt");
        files = List.copyOf(Objects.requireNonNull(files, "files"));
        notStored = notStored == null ? List.of() : List.copyOf(notStored);
        stale = stale == null ? List.of() : List.copyOf(stale);
        tree = tree == null ? ManifestTree.EMPTY : tree;
    }

    /**
     * A manifest without stale entries, a recorded reason, directories, symbolic links or hard links,
     * as manifests before those fields hold.
     */
    public Manifest(
            int formatVersion,
            String name,
            Instant createdAt,
            boolean complete,
            List<ManifestEntry> files,
            List<String> notStored) {
        this(formatVersion, name, createdAt, complete, files, notStored, ManifestTree.EMPTY);
    }

    /** A manifest without stale entries or a recorded reason. */
    public Manifest(
            int formatVersion,
            String name,
            Instant createdAt,
            boolean complete,
            List<ManifestEntry> files,
            List<String> notStored,
            ManifestTree tree) {
        this(formatVersion, name, createdAt, complete, files, notStored, List.of(), null, tree, null, null);
    }

    /** A manifest without directories, symbolic links or hard links. */
    public Manifest(
            int formatVersion,
            String name,
            Instant createdAt,
            boolean complete,
            List<ManifestEntry> files,
            List<String> notStored,
            List<Stale> stale,
            String incompleteBecause) {
        this(
                formatVersion,
                name,
                createdAt,
                complete,
                files,
                notStored,
                stale,
                incompleteBecause,
                ManifestTree.EMPTY,
                null,
                null);
    }

    /** The object key of the manifest of backup {@code name}. */
    public static String key(String name) {
        return name + "/" + FILE_NAME;
    }

    /**
     * The object key holding {@code entryPath} of backup {@code name} in a manifest of format 1:
     * {@code NAME/path}.
     */
    public static String objectKey(String name, String entryPath) {
        return name + "/" + entryPath;
    }

    /** The object key holding the content of the file at {@code entryPath} of this manifest. */
    public String objectKeyOf(String entryPath) {
        return formatVersion >= 2 ? keyFor(name, entryPath) : objectKey(name, entryPath);
    }

    /**
     * The object key a backup of format 2 stores the file {@code entryPath} of backup {@code name}
     * under: {@code NAME/path} when that is a key every S3 store takes as it is and names no record of
     * Ballast's: valid UTF-8, no control character, at most {@value #MAX_KEY_BYTES} bytes, and a
     * first segment not starting with {@value #RESERVED_PREFIX}. Any other name (bytes that are not
     * UTF-8, a control character, a long path, {@code .ballast-manifest.json}) goes under
     * {@code NAME/.ballast-names/} and the lowercase hex SHA-256 of its bytes: a fixed-length key
     * that no other name has and no file's own key can equal. The name itself is in the manifest.
     */
    public static String keyFor(String name, String entryPath) {
        String plain = name + "/" + entryPath;
        if (!entryPath.startsWith(RESERVED_PREFIX)
                && Names.isUtf8(entryPath)
                && !hasControlCharacter(entryPath)
                && Names.byteLength(plain) <= MAX_KEY_BYTES) {
            return plain;
        }
        return name + "/" + HASHED_KEYS + sha256Hex(Names.encode(entryPath));
    }

    /**
     * The files of this manifest a backup of the current format may keep as they are: all of them,
     * but in a manifest of format 1 those whose key the current format would choose differently
     * (a name starting with {@value #RESERVED_PREFIX}): such a file is read and stored again.
     */
    public List<ManifestEntry> filesWithCurrentKeys() {
        if (formatVersion >= FORMAT_VERSION) {
            return files;
        }
        return files.stream()
                .filter(e -> keyFor(name, e.path()).equals(objectKey(name, e.path())))
                .toList();
    }

    private static String sha256Hex(byte[] bytes) {
        java.security.MessageDigest d = Sha256.newDigest();
        d.update(bytes);
        return Sha256.hex(d);
    }

    private static boolean hasControlCharacter(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (Character.isISOControl(s.charAt(i))) {
                return true;
            }
        }
        return false;
    }

    /** Total bytes of the listed files. */
    public long totalBytes() {
        return files.stream().mapToLong(ManifestEntry::size).sum();
    }

    public byte[] toJson() {
        return ManifestJson.write(this);
    }

    /**
     * Parses and validates a manifest.
     *
     * @param json the manifest bytes
     * @param where the key and version read, for the message
     * @throws BackupException with {@link BackupException.Kind#INTEGRITY} if the JSON is malformed, from a newer
     *     format, or lists an unsafe or duplicate path, a bad SHA-256 or a missing version ID
     */
    public static Manifest parse(byte[] json, String where) {
        Manifest manifest;
        try {
            manifest = ManifestJson.read(json);
        } catch (Exception e) {
            throw corrupt(where, "it is not a valid manifest (" + firstLine(e.getMessage()) + ")", e);
        }
        if (manifest == null || manifest.files() == null) {
            throw corrupt(where, "it has no file list", null);
        }
        if (manifest.formatVersion() < OLDEST_FORMAT_VERSION || manifest.formatVersion() > PACKED_FORMAT_VERSION) {
            throw corrupt(
                    where,
                    "its format version is " + manifest.formatVersion() + " but this ballast reads "
                            + OLDEST_FORMAT_VERSION + " to " + PACKED_FORMAT_VERSION,
                    null);
        }
        boolean packed = manifest.formatVersion() == PACKED_FORMAT_VERSION;
        Set<String> seen = new HashSet<>();
        for (ManifestEntry entry : manifest.files()) {
            checkPath(entry.path(), where, seen, packed);
            if (!isSha256Hex(entry.sha256())) {
                throw corrupt(where, "the SHA-256 of '" + entry.path() + "' is not 64 lowercase hex digits", null);
            }
            if (packed != entry.packed()) {
                throw corrupt(
                        where,
                        "'" + entry.path() + "' " + (packed ? "has no chunk list" : "has a chunk list")
                                + " in a manifest of format " + manifest.formatVersion(),
                        null);
            }
            if (packed) {
                for (String chunk : entry.chunks()) {
                    if (!isSha256Hex(chunk)) {
                        throw corrupt(
                                where, "a chunk ID of '" + entry.path() + "' is not 64 lowercase hex digits", null);
                    }
                }
            }
        }
        // the files' paths, for the hard links' targets (a copy only when there are hard links)
        Set<String> files = manifest.tree().hardLinks().isEmpty() ? Set.of() : Set.copyOf(seen);
        ManifestTree tree = manifest.tree();
        tree.directories().forEach(d -> checkPath(d.path(), where, seen, packed));
        for (ManifestTree.Symlink link : tree.symlinks()) {
            checkPath(link.path(), where, seen, packed);
            if (link.target().isEmpty() || link.target().indexOf('\0') >= 0) {
                throw corrupt(
                        where, "the symbolic link '" + link.path() + "' has an empty target or one with a NUL", null);
            }
        }
        for (ManifestTree.HardLink link : tree.hardLinks()) {
            checkPath(link.path(), where, seen, packed);
            if (!files.contains(link.target())) {
                throw corrupt(
                        where,
                        "the hard link '" + link.path() + "' names '" + link.target()
                                + "', which is not a file of the manifest",
                        null);
            }
        }
        return manifest;
    }

    /**
     * Refuses an unsafe path and one listed before (as a file, directory or link). The advice is to restore
     * another version; the manifest of the earlier formats is a plain object that can be inspected, a sealed
     * one ({@code packed}, format 3) cannot.
     */
    private static void checkPath(String path, String where, Set<String> seen, boolean packed) {
        String problem = SafePaths.problem(path);
        if (problem != null) {
            throw new BackupException(
                    BackupException.Kind.INTEGRITY,
                    "The manifest " + where + " names the path '" + Names.printable(path)
                            + "', which is refused because " + problem + "; nothing was restored. Restore "
                            + Advice.ANOTHER_VERSION.text()
                            + (packed
                                    ? " (" + Advice.LIST_VERSIONS.text() + ")."
                                    : " " + Advice.INSPECT_MANIFEST.text() + "."));
        }
        if (!seen.add(path)) {
            throw corrupt(where, "it lists '" + path + "' twice", null);
        }
    }

    /**
     * How many files of the source this snapshot holds no copy of: those its run did not store
     * ({@link #notStored}) that it does not keep with an earlier run's version either ({@link #stale}),
     * as {@code list} counts them ("not stored (in no earlier backup either)").
     */
    public int missing() {
        return ManifestSummary.missing(notStored, stale);
    }

    /** Whether {@code s} is 64 lowercase hex digits (a loop: this runs once per file of a manifest). */
    public static boolean isSha256Hex(String s) {
        if (s.length() != 64) {
            return false;
        }
        for (int i = 0; i < 64; i++) {
            char c = s.charAt(i);
            if (!(c >= '0' && c <= '9') && !(c >= 'a' && c <= 'f')) {
                return false;
            }
        }
        return true;
    }

    private static BackupException corrupt(String where, String why, @Nullable Throwable cause) {
        return new BackupException(
                BackupException.Kind.INTEGRITY,
                "The manifest " + where + " is refused because " + why + "; nothing was restored. Restore "
                        + Advice.ANOTHER_VERSION.text() + ".",
                cause);
    }

    private static String firstLine(@Nullable String s) {
        if (s == null) {
            return "unreadable";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    /** Decodes for tests and messages. */
    public static String utf8(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
