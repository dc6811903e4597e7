package dev.ballast.storage.object.local;

import dev.ballast.storage.internal.Sha256;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Rebuilds the index of a {@link LocalObjectStore} from the store's own files, as
 * {@code restic repair index} rebuilds restic's index from its pack files: the journal
 * ({@code journal/*.log}, see {@link Journal}) names every version written and removed, with its
 * key, version ID, generation, size, SHA-256 and where its content was put; the content is then
 * looked for where the journal says (a pack, checked against its SHA-256) or in its content file.
 * Called by {@link LocalObjectStore#rebuildIndex(Path)}.
 */
final class IndexRepair {
    private IndexRepair() {}

    /** At most this many versions whose content is missing are named in a report (all are counted). */
    static final int MAX_NAMED = 1000;

    private record Hint(long pack, long offset) {}

    /** Rebuilds the index of the store in {@code dir}; the caller holds the writer lock. */
    static IndexRebuild rebuild(Path dir) throws IOException, SQLException {
        Path index = dir.resolve(LocalObjectStore.INDEX_FILE);
        Path journalDir = dir.resolve(Journal.DIR);
        // An index that records its journal position says exactly how the journal stands to it (OlderIndex):
        // one whose journal ends before that position (a journal file cut short or deleted, journal/ emptied or
        // restored from an older copy, something other than a file in a journal file's place) is the newer record,
        // kept as it is, and the journal is written anew from it.
        Previous found = intactRows(index);
        OlderIndex.Standing standing = found == null || found.position() == null
                ? null
                : OlderIndex.compare(journalDir, found.position()).standing();
        boolean journalShorter = standing == OlderIndex.Standing.SHORTER;
        List<String> movedAside = moveAsideWhatIsNoFile(journalDir);
        var files = JournalFiles.files(journalDir);
        TreeSet<Long> packIds = packFiles(dir);
        long contentFiles = contentFiles(dir);
        if (files.isEmpty() && !journalShorter) {
            return new IndexRebuild(
                    false,
                    0,
                    0,
                    List.of(),
                    0,
                    List.of(),
                    false,
                    List.of(),
                    null,
                    packIds.size(),
                    contentFiles,
                    false,
                    false,
                    false,
                    movedAside);
        }
        int threshold = files.isEmpty() ? found.inlineThreshold() : LocalStoreConfig.DEFAULT_INLINE_THRESHOLD;
        // Where the journal is damaged, by file (from the newest base on): the offset the damage begins at.
        Map<Long, Long> damagedAt = new HashMap<>();
        // Whether a valid frame follows the index's position: then damage after it may have cost a change.
        boolean framesPastIndex = false;
        boolean first = true;
        List<String> damage = new ArrayList<>();
        List<String> unreadable = new ArrayList<>();
        Map<String, Journal.Version> live = new LinkedHashMap<>();
        Set<String> seen = new HashSet<>();
        Map<String, Hint> hints = new HashMap<>();
        Set<String> removed = new HashSet<>();
        // A base holds every version at its time (JournalFold): the files before it are superseded.
        Long base = null;
        boolean baseIntact = false;
        int read = 0;
        for (Map.Entry<Long, Path> entry : files.entrySet()) {
            Path file = entry.getValue();
            JournalFiles.FileContents contents = JournalFiles.read(file);
            if (contents.base() != null) {
                base = entry.getKey();
                baseIntact = contents.damage().isEmpty();
                first = true;
                read = 0;
                damage.clear();
                unreadable.clear();
                live.clear();
                seen.clear();
                hints.clear();
                removed.clear();
                damagedAt.clear();
                framesPastIndex = false;
            }
            read++;
            if (contents.firstDamage() >= 0) {
                damagedAt.put(entry.getKey(), contents.firstDamage());
            }
            if (found != null && found.position() != null) {
                Journal.Position p = found.position();
                if (entry.getKey() > p.file() && !p.equals(contents.base())) {
                    framesPastIndex |=
                            !contents.frames().isEmpty() || !contents.pending().isEmpty();
                } else if (entry.getKey() == p.file()) {
                    JournalFiles.FileContents after = JournalFiles.read(file, p.offset());
                    framesPastIndex |=
                            !after.frames().isEmpty() || !after.pending().isEmpty();
                }
            }
            if (first) {
                threshold = contents.inlineThreshold();
                first = false;
            }
            for (String d : contents.damage()) {
                damage.add(file.getFileName() + ": " + d);
            }
            unreadable.addAll(contents.unreadable());
            for (JournalFiles.Frame f : contents.frames()) {
                switch (f.type()) {
                    case Journal.VERSION -> {
                        Journal.Version v = f.version();
                        if (seen.add(v.versionId())) { // a store's versions journalled twice (a crash) count once
                            live.put(v.versionId(), v);
                        }
                        if (v.address() != null && v.pack() != 0) {
                            hints.put(Sha256.hex(v.address()), new Hint(v.pack(), v.offset()));
                        }
                    }
                    case Journal.REMOVE -> {
                        live.remove(f.versionId());
                        removed.add(f.versionId());
                    }
                    case Journal.LOCATE -> hints.put(Sha256.hex(f.address()), new Hint(f.pack(), f.offset()));
                    default -> {
                        // HEADER and ABORT are handled by JournalFiles.read
                    }
                }
            }
        }

        // Never make a readable index worse: when the current one opens and SQLite's quick_check finds
        // it intact, every row it holds is kept beside what the journal adds (a journal damaged or cut
        // short then costs nothing the index held), except the versions the journal says were removed
        // since: an index older than its journal (an older copy put in place) still holds them, and their
        // content may be gone with them.
        //
        // An index that records its journal position says exactly which: when the journal ends before that
        // position (a journal file cut short, or an older journal restored), the index is the newer record and
        // is kept as it is, and the versions only the journal holds are those removed on purpose since; when a
        // base of the journal holds a later state than the index (JournalFold), a version the index holds and
        // the base does not was removed after the index's time.
        List<Journal.Version> previousRows = found == null ? null : found.rows();
        // An intact index the journal is current with, whose journal is damaged only after the index's position
        // (bytes appended to a journal file after its last commit): the index holds every change the journal
        // committed, and the journal is written anew from it.
        boolean damagePastIndex = standing == OlderIndex.Standing.CURRENT
                && !damagedAt.isEmpty()
                && !framesPastIndex
                && damagedAt.entrySet().stream()
                        .allMatch(d -> d.getKey() > found.position().file()
                                || (d.getKey() == found.position().file()
                                        && d.getValue() >= found.position().offset()));
        boolean keepIndex = journalShorter || damagePastIndex;
        boolean removedSinceBase = base != null
                && baseIntact
                && found != null
                && (found.position() == null || found.position().file() < base);
        Map<String, Hint> previousHints = new HashMap<>();
        if (previousRows != null) {
            boolean added = false;
            if (keepIndex) {
                live.clear();
                added = true;
            }
            for (Journal.Version v : previousRows) {
                if (v.address() != null && v.pack() != 0) {
                    previousHints.putIfAbsent(Sha256.hex(v.address()), new Hint(v.pack(), v.offset()));
                }
                if (!live.containsKey(v.versionId()) && !removed.contains(v.versionId()) && !removedSinceBase) {
                    live.put(v.versionId(), v);
                    added = true;
                }
            }
            if (added) {
                // A key's versions in the order they were written: its newest (highest generation) last.
                List<Journal.Version> ordered = new ArrayList<>(live.values());
                ordered.sort(java.util.Comparator.comparingLong(Journal.Version::generation));
                live.clear();
                for (Journal.Version v : ordered) {
                    live.put(v.versionId(), v);
                }
            }
        }
        List<String> unrecovered = new ArrayList<>();
        for (String name : unreadable) {
            int open = name.lastIndexOf(" (version ");
            String id = open < 0 ? "" : name.substring(open + 10, name.length() - 1);
            if (!live.containsKey(id)) {
                unrecovered.add(name);
            }
        }

        // Built beside the old index and renamed into place once complete: a rebuild that fails leaves
        // the store as it found it.
        Path building = index.resolveSibling(index.getFileName() + ".rebuilding");
        for (String suffix : List.of("", "-wal", "-shm", "-journal")) {
            Files.deleteIfExists(building.resolveSibling(building.getFileName() + suffix));
        }
        Packs packs = new Packs(dir, LocalStoreConfig.DEFAULT_PACK_SIZE);
        Blobs blobs = new Blobs(dir);
        Files.createDirectories(dir.resolve(Blobs.TMP));
        Files.createDirectories(dir.resolve(Blobs.BLOBS));
        VersionIndex ix = VersionIndex.openWriter(building, threshold, false);
        List<IndexRebuild.MissingVersion> missing = new ArrayList<>();
        long missingCount = 0;
        int versions = 0;
        try {
            ix.begin();
            Set<Long> recordedPacks = new HashSet<>(packIds);
            for (long id : packIds) {
                ix.addPack(id);
            }
            Map<String, VersionIndex.Location> located = new HashMap<>();
            Set<String> lost = new HashSet<>();
            for (Journal.Version v : live.values()) {
                ix.insertRecorded(v);
                versions++;
                if (v.deleteMarker()) {
                    continue;
                }
                String hex = Sha256.hex(v.address());
                VersionIndex.Location at = located.get(hex);
                if (at == null && !lost.contains(hex)) {
                    at = locate(v, hints.get(hex), packs, blobs);
                    if (at == null && previousHints.containsKey(hex)) {
                        at = locate(v, previousHints.get(hex), packs, blobs);
                    }
                    if (at == null) {
                        lost.add(hex);
                    } else {
                        located.put(hex, at);
                    }
                }
                if (at == null) {
                    missingCount++;
                    if (missing.size() < MAX_NAMED) {
                        missing.add(new IndexRebuild.MissingVersion(v.key(), v.versionId()));
                    }
                    // Kept where the journal last put it, so a read reports that pack (or content file) missing:
                    // damage, never "not found". The pack's ID is recorded so that no new pack takes it.
                    Hint hint = hints.getOrDefault(hex, previousHints.get(hex));
                    if (hint != null && v.size() <= LocalStoreConfig.MAX_INLINE_THRESHOLD) {
                        if (recordedPacks.add(hint.pack())) {
                            ix.addPack(hint.pack());
                        }
                        ix.putContent(v.address(), v.size(), null, hint.pack(), hint.offset());
                    } else {
                        ix.putContent(v.address(), v.size(), null, 0, 0);
                    }
                } else {
                    ix.putContent(v.address(), v.size(), at.data(), at.pack(), at.offset());
                }
            }
            ix.commit();
            if (previousRows != null) {
                IndexAttributes.copyFrom(ix.connection(), index);
            }
        } catch (SQLException | RuntimeException e) {
            ix.rollback();
            ix.closeQuietly();
            packs.closeReaders();
            throw e;
        }
        // An intact index that already held what the rebuild put together is left as it was: no copy of it is
        // kept aside, since nothing was changed.
        boolean changed = previousRows == null || !sameContent(ix.connection(), index);
        Journal.Position written = null;
        if (changed) {
            // The journal is written anew from the rebuilt index (a base of a state of its own), which records
            // it: the index is then current, and the index moved aside is older than it.
            try {
                ix.begin();
                written = JournalFold.writeBase(dir, ix, new Journal(dir, threshold), null, JournalFold.NO_STEPS);
                ix.recordJournalPosition(written);
                ix.commit();
            } catch (SQLException | IOException | RuntimeException e) {
                ix.rollback();
                ix.closeQuietly();
                packs.closeReaders();
                throw e;
            }
        }
        ix.checkpointAndClose();
        packs.closeReaders();
        Path previous = null;
        if (changed) {
            previous = moveAside(index);
            Files.move(building, index, StandardCopyOption.ATOMIC_MOVE);
        } else {
            for (String suffix : List.of("", "-wal", "-shm", "-journal")) {
                Files.deleteIfExists(building.resolveSibling(building.getFileName() + suffix));
            }
            if (keepIndex) {
                // The index as it was, and a journal written anew from it, holding the index's state at its position.
                VersionIndex writer = VersionIndex.openWriter(index, threshold, false);
                try {
                    JournalFold.fold(dir, writer, new Journal(dir, threshold), JournalFold.NO_STEPS);
                } finally {
                    writer.checkpointAndClose();
                }
            }
        }
        Blobs.syncDirectory(dir);
        if (written != null) {
            JournalFold.deleteBefore(dir, written.file(), JournalFold.NO_STEPS);
        }
        return new IndexRebuild(
                true,
                read,
                versions,
                List.copyOf(missing),
                missingCount,
                List.copyOf(damage),
                previousRows != null,
                List.copyOf(unrecovered),
                previous,
                packIds.size(),
                contentFiles,
                changed,
                journalShorter,
                damagePastIndex,
                movedAside);
    }

    /**
     * Moves aside each entry of {@code journalDir} named as a journal file that is no regular file (a
     * directory, a FIFO, a symbolic link, dangling or not), never opening it (a FIFO's open would wait
     * forever): renamed to {@code NAME.not-a-journal-file-MILLIS}, which nothing reads, so whatever it
     * holds is kept and the journal can be written anew past it.
     *
     * @return for each, what it was and where it went
     */
    private static List<String> moveAsideWhatIsNoFile(Path journalDir) throws IOException {
        List<String> moved = new ArrayList<>();
        for (Path f : JournalFiles.files(journalDir).values()) {
            String kind = JournalFiles.notARegularFile(f);
            if (kind == null) {
                continue;
            }
            Path to = f.resolveSibling(f.getFileName() + ".not-a-journal-file-" + System.currentTimeMillis());
            Files.move(f, to, StandardCopyOption.ATOMIC_MOVE);
            moved.add(Journal.DIR + "/" + f.getFileName() + " was " + kind + ", not a journal file: moved aside to "
                    + Journal.DIR + "/" + to.getFileName());
        }
        if (!moved.isEmpty()) {
            Blobs.syncDirectory(journalDir);
        }
        return List.copyOf(moved);
    }

    /**
     * What the index holds, table by table, as the rows a reader sees: each query names the schema it
     * reads ({@code %1$s}: {@code main} or {@code previous}) and orders its rows. {@code seq}, which a
     * rebuild numbers anew, counts only through the order of the versions it gives.
     */
    private static final List<String> CONTENT_QUERIES = List.of(
            "SELECT k, version_id, delete_marker, size, content, sha256, generation, modified_ms FROM %1$s.versions"
                    + " ORDER BY seq",
            "SELECT c.k, v.version_id, c.delete_marker, c.generation FROM %1$s.current c JOIN %1$s.versions v"
                    + " ON v.seq = c.seq ORDER BY c.k",
            "SELECT address, size, data, refs, pack, pack_offset FROM %1$s.blobs ORDER BY address",
            "SELECT id FROM %1$s.packs ORDER BY id",
            "SELECT name, value FROM %1$s.meta WHERE name <> '" + VersionIndex.JOURNAL_POSITION + "' ORDER BY name",
            "SELECT version_id, metadata FROM %1$s.attributes ORDER BY version_id",
            "SELECT address, digests FROM %1$s.block_digests ORDER BY address",
            "PRAGMA %1$s.user_version");

    /**
     * Whether the index built on {@code rebuilt} holds exactly what the index at {@code previous} holds:
     * the same versions in the same order, current versions, contents and where they are, packs, settings,
     * metadata and block digests, and schema version. A query that fails on either (a table an older
     * writer did not make) counts as a difference.
     */
    private static boolean sameContent(Connection rebuilt, Path previous) {
        try (Statement s = rebuilt.createStatement()) {
            s.execute("ATTACH DATABASE '" + previous.toString().replace("'", "''") + "' AS previous");
            try {
                for (String query : CONTENT_QUERIES) {
                    if (!sameRows(rebuilt, String.format(query, "main"), String.format(query, "previous"))) {
                        return false;
                    }
                }
                return true;
            } finally {
                s.execute("DETACH DATABASE previous");
            }
        } catch (SQLException e) {
            return false;
        }
    }

    private static boolean sameRows(Connection c, String one, String other) throws SQLException {
        try (Statement a = c.createStatement();
                Statement b = c.createStatement();
                ResultSet x = a.executeQuery(one);
                ResultSet y = b.executeQuery(other)) {
            int columns = x.getMetaData().getColumnCount();
            while (true) {
                boolean more = x.next();
                if (more != y.next()) {
                    return false;
                }
                if (!more) {
                    return true;
                }
                for (int i = 1; i <= columns; i++) {
                    if (!Objects.deepEquals(x.getObject(i), y.getObject(i))) {
                        return false;
                    }
                }
            }
        }
    }

    /** Where the content of {@code v} is now, checked; null when it is nowhere. */
    private static VersionIndex.@Nullable Location locate(
            Journal.Version v, @Nullable Hint hint, Packs packs, Blobs blobs) {
        if (v.size() == 0) {
            return new VersionIndex.Location(new byte[0], 0, 0);
        }
        if (hint != null && v.size() <= Integer.MAX_VALUE) {
            try {
                byte[] bytes = packs.read(hint.pack(), hint.offset(), (int) v.size());
                if (Arrays.equals(Sha256.of(bytes), v.address())) {
                    return new VersionIndex.Location(null, hint.pack(), hint.offset());
                }
            } catch (IOException e) {
                // pack missing, cut short or not a file: the content may still be in a content file
            }
        }
        Path file = blobs.path(v.address());
        try {
            if (Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) && Files.size(file) == v.size()) {
                // Checked against its SHA-256 like a pack's content: a damaged byte is no recovered version.
                try (var in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
                    if (Arrays.equals(Sha256.of(in), v.address())) {
                        return new VersionIndex.Location(null, 0, 0);
                    }
                }
            }
        } catch (IOException e) {
            // unreadable: missing
        }
        return null;
    }

    /** The rows of an intact index, and the journal position it records (null when it records none). */
    private record Previous(List<Journal.Version> rows, Journal.@Nullable Position position, int inlineThreshold) {}

    /**
     * The rows of the index at {@code index} when SQLite opens it and {@code PRAGMA quick_check}
     * finds it intact; null when it is missing, empty, damaged or of an unknown schema.
     */
    private static @Nullable Previous intactRows(Path index) {
        if (!Files.isRegularFile(index, LinkOption.NOFOLLOW_LINKS)) {
            return null;
        }
        try (VersionIndex ix = VersionIndex.openReader("jdbc:sqlite:" + index)) {
            if (!ix.quickCheck()) {
                return null;
            }
            List<Journal.Version> rows = new ArrayList<>();
            ix.forEachVersion(rows::add);
            return new Previous(rows, ix.journalPosition(), ix.inlineThreshold());
        } catch (SQLException | IOException | RuntimeException e) {
            return null; // damaged: rebuilt from the journal alone
        }
    }

    /**
     * Renames the index and its {@code -wal} and {@code -shm} to {@code index.db.before-repair-MILLIS}
     * (and that name's {@code -wal}, {@code -shm}), so nothing of the old index is deleted.
     *
     * @return the old index's new name, or null when there was none
     */
    private static @Nullable Path moveAside(Path index) throws IOException {
        Path aside = index.resolveSibling(index.getFileName() + ".before-repair-" + System.currentTimeMillis());
        Path moved = null;
        if (!Files.exists(index, LinkOption.NOFOLLOW_LINKS)) {
            // Without its database file a -wal or -shm is no index anyone can open: nothing to keep.
            for (String suffix : List.of("-wal", "-shm", "-journal")) {
                Files.deleteIfExists(index.resolveSibling(index.getFileName() + suffix));
            }
            Blobs.syncDirectory(index.getParent());
            return null;
        }
        for (String suffix : List.of("", "-wal", "-shm", "-journal")) {
            Path from = index.resolveSibling(index.getFileName() + suffix);
            if (Files.exists(from, LinkOption.NOFOLLOW_LINKS)) {
                Path to = aside.resolveSibling(aside.getFileName() + suffix);
                Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
                if (suffix.isEmpty()) {
                    moved = to;
                }
            }
        }
        Blobs.syncDirectory(index.getParent());
        return moved;
    }

    private static TreeSet<Long> packFiles(Path dir) throws IOException {
        TreeSet<Long> ids = new TreeSet<>();
        Path packs = dir.resolve(Packs.PACKS);
        if (!Files.isDirectory(packs)) {
            return ids;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(packs)) {
            for (Path f : files) {
                Long id = Packs.idOf(f.getFileName().toString());
                if (id != null && Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
                    ids.add(id);
                }
            }
        }
        return ids;
    }

    private static long contentFiles(Path dir) throws IOException {
        Path blobs = dir.resolve(Blobs.BLOBS);
        if (!Files.isDirectory(blobs)) {
            return 0;
        }
        try (var files = Files.walk(blobs, 2)) {
            return files.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))
                    .count();
        }
    }
}
