package dev.ballast.backup.run;

import dev.ballast.backup.BackupException;
import dev.ballast.backup.Messages;
import dev.ballast.backup.content.PackedContent;
import dev.ballast.backup.run.BackupRunner.Failure;
import dev.ballast.backup.run.BackupRunner.Guard;
import dev.ballast.backup.snapshot.DamagedVersions;
import dev.ballast.backup.snapshot.LostVersions;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.backup.snapshot.ManifestTree;
import dev.ballast.backup.snapshot.Manifests;
import dev.ballast.backup.snapshot.SnapshotTime;
import dev.ballast.backup.tree.Names;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.VersionEntry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * What a backup run takes from its name's previous manifests. {@link #read} finds the entries of the
 * newest intact manifest (over those of the snapshots before it, when that one was cut short), leaving
 * out or redirecting the versions found damaged or lost, and keeps the manifest versions they came from
 * ({@link #versions}), the record of damaged versions ({@link #damaged}) and what a killed run of the
 * name left ({@link #leftBehind}); {@link #keepPrevious} later keeps the previous entry of each file the
 * run could not store, marked stale.
 *
 * <p>Thread-safety: {@link #read} runs once per run, on a thread of its own ({@code
 * ballast-previous-manifest}) while the tree is walked. What it finds is kept in volatile fields, read by
 * the run's thread and its transfer threads after that read is joined; {@link #forgetLeftBehind} is
 * called by the run's thread when files are stored again. One instance per run, made and used by {@link
 * BackupRunner} only.
 */
final class PreviousManifest {
    /** How many manifests an interrupted run's predecessors are looked through for a complete one. */
    private static final int MAX_INCOMPLETE_PREDECESSORS = 50;

    private final ObjectStore store;
    private final String name;
    private final Path source;
    private final boolean nameFromDirectory;
    private final Consumer<String> err;
    /** Where file contents go in a repository of format 3, or null in a store of the earlier formats. */
    private final @Nullable PackedContent packed;
    /** The run's marker; null when unguarded (tests). */
    private final @Nullable Guard guard;

    /** The manifest versions the previous entries were taken from; set with {@link #damaged}. */
    private volatile Set<String> versions = Set.of();
    /** What other runs of the name left, when another run's marker was found at the start. */
    private volatile LeftBehind leftBehind = LeftBehind.NONE;
    /** Versions verify found damaged; set by the thread reading the previous manifest, read after it is joined. */
    private volatile @Nullable DamagedVersions damaged;
    /** The previous manifest's usable entries by path, for stale entries; set with {@link #damaged}. */
    private volatile Map<String, ManifestEntry> entries = Map.of();
    /** The previous manifest's directories and links, for a folder this run could not read; set with {@link #damaged}. */
    private volatile ManifestTree tree = ManifestTree.EMPTY;
    /** The previous manifest as messages name it ("backup SHORT (ID) of DATE"); set with {@link #damaged}. */
    private volatile String previousLabel = "an earlier backup";

    PreviousManifest(
            ObjectStore store,
            String name,
            Path source,
            boolean nameFromDirectory,
            Consumer<String> err,
            @Nullable PackedContent packed,
            @Nullable Guard guard) {
        this.store = store;
        this.name = name;
        this.source = source;
        this.nameFromDirectory = nameFromDirectory;
        this.err = err;
        this.packed = packed;
        this.guard = guard;
    }

    /** The manifest versions the previous entries were taken from (empty before {@link #read}). */
    Set<String> versions() {
        return versions;
    }

    /** Versions verify found damaged (null before {@link #read}). */
    @Nullable
    DamagedVersions damaged() {
        return damaged;
    }

    /** What other runs of the name left ({@link LeftBehind#NONE} when none, or before {@link #read}). */
    LeftBehind leftBehind() {
        return leftBehind;
    }

    /** Forgets what other runs left: files stored again are stored fresh, no earlier run's version reused. */
    void forgetLeftBehind() {
        leftBehind = LeftBehind.NONE;
    }

    /**
     * The entries of the newest intact manifest, by path. A damaged newest manifest is reported and
     * passed over for the next intact one; none at all means every file is read and uploaded. Entries
     * whose version verify found damaged are left out (so the file is uploaded again), or point at the
     * recorded good copy.
     */
    Map<String, ManifestEntry> read() {
        Map<String, ManifestEntry> map = new HashMap<>();
        String key = Manifest.key(name);
        Manifest m = null;
        String latest = null;
        String base = null;
        try (ObjectRead read = store.get(key, ReadOptions.latest().withAllowCache(false))) {
            latest = read.version().versionId();
            m = Manifest.parse(read.readAllBytes(), Manifests.where(store, name, latest));
            base = latest;
        } catch (ObjectNotFoundException e) {
            // first backup of this name
        } catch (BackupException | IntegrityException e) {
            IntegrityException.rethrowIfInStoreIndex(e); // the store's index, not what was read
            err.accept("Warning: the newest manifest of '" + name + "'"
                    + (latest == null ? "" : " (version " + latest + ")")
                    + " is damaged ("
                    + Messages.printable(e instanceof BackupException f ? Manifests.why(f) : e.getMessage())
                    + "); this backup goes on from the newest intact one.");
            Manifests.Versioned intact = Manifests.newestIntact(store, name, latest, err);
            if (intact == null) {
                err.accept("Warning: no intact earlier manifest of '" + name + "' was found, so every file is read and "
                        + "uploaded again.");
            } else {
                m = intact.manifest();
                base = intact.version().versionId();
            }
        }
        if (m != null) {
            checkSource(m);
        }
        // A file a manifest of an earlier format stored under a key this format chooses otherwise is stored again.
        List<ManifestEntry> files = m == null ? List.of() : m.filesWithCurrentKeys();
        Set<String> from = new java.util.HashSet<>();
        if (base != null) {
            from.add(base);
        }
        if (m != null && !m.complete()) {
            files = withEarlierSnapshot(m, base, from);
        }
        versions = from;
        boolean reuses = m != null && !files.isEmpty();
        DamagedVersions d = DamagedVersions.load(
                store,
                name,
                err,
                reuses
                        ? "since any version of the previous snapshot may be damaged, every file is read and stored"
                                + " again"
                        : "it is ignored");
        if (m != null && !d.unreadable()) {
            for (ManifestEntry e : files) {
                DamagedVersions.Entry bad = d.get(e.versionId());
                if (bad == null) {
                    map.put(e.path(), e);
                } else if (bad.replacement() != null) {
                    map.put(
                            e.path(),
                            new ManifestEntry(
                                    e.path(),
                                    e.size(),
                                    e.sha256(),
                                    bad.replacement(),
                                    e.mtime(),
                                    e.ctime(),
                                    e.inode()));
                }
            }
        }
        List<VersionEntry> listing = null;
        if (packed != null) {
            // Chunks gone from the index (a prune, a damaged index): the file is read and stored again.
            PackedBackup.dropLost(packed, map, name, err);
        } else if (!map.isEmpty()) {
            listing = store.listVersions(Manifest.objectKey(name, ""));
            LostVersions.drop(store, name, map, listing, err);
        }
        entries = map;
        if (m != null && base != null) {
            tree = m.tree();
            previousLabel = "backup " + Manifests.label(base) + " of " + SnapshotTime.of(m);
        }
        damaged = d;
        if (packed != null && guard != null && guard.othersAtStart()) {
            // Another run's marker: one killed before its flush may have left packs no index names.
            PackedBackup.reuseLeftBehind(packed, name, err);
        }
        if (guard != null && guard.othersAtStart() && !d.unreadable() && packed == null) {
            leftBehind = listing == null
                    ? LeftBehind.list(store, Manifest.objectKey(name, ""))
                    : LeftBehind.of(store, listing);
        }
        return map;
    }

    /**
     * The files of {@code newest}, a run cut short (which lists only what it stored), over those of the
     * newest complete snapshot before it: the files it did not reach keep their entries from that
     * snapshot, so they are not read again when unchanged and keep their previous version, marked
     * stale, when this run cannot store them. Newer runs' entries win; the runs in between that were
     * cut short too add what they stored. Damaged manifests are passed over with a note; with no
     * complete snapshot among the {@value #MAX_INCOMPLETE_PREDECESSORS} before it, the runs found are
     * used.
     */
    private List<ManifestEntry> withEarlierSnapshot(
            Manifest newest, @Nullable String newestVersion, Set<String> readVersions) {
        List<Manifest> newestFirst = new ArrayList<>(List.of(newest));
        boolean passedNewest = newestVersion == null;
        for (VersionEntry v : Manifests.versions(store, name)) {
            if (!passedNewest) {
                passedNewest = v.versionId().equals(newestVersion);
                continue;
            }
            if (newestFirst.size() > MAX_INCOMPLETE_PREDECESSORS) {
                break;
            }
            Manifest earlier = Manifests.readOrPassOver(store, name, v.versionId(), err);
            if (earlier == null) {
                continue;
            }
            newestFirst.add(earlier);
            readVersions.add(v.versionId());
            if (earlier.complete()) {
                break;
            }
        }
        Map<String, ManifestEntry> byPath = new HashMap<>();
        for (int i = newestFirst.size() - 1; i >= 0; i--) {
            for (ManifestEntry e : newestFirst.get(i).filesWithCurrentKeys()) {
                byPath.put(e.path(), e);
            }
        }
        return new ArrayList<>(byPath.values());
    }

    /** Refuses (name taken from the directory) or notes a previous backup of this name made of another directory. */
    private void checkSource(Manifest previous) {
        String before = previous.source();
        if (before == null || before.equals(Names.name(source))) {
            return;
        }
        if (nameFromDirectory) {
            throw NameClash.otherSource(name, source, before);
        }
        err.accept("Note: '" + name + "' last backed up " + before + "; this backup of " + source
                + " becomes its newest version.");
    }

    /**
     * What {@link #keepPrevious} kept: the stale entries (files, and folders that could not be read) and
     * the run's tree with the previous snapshot's directories and links under those folders added.
     */
    record Kept(List<Manifest.Stale> stale, ManifestTree tree) {}

    /**
     * Adds to {@code listed} the previous version of every file (or, for a folder that could not be
     * read, every file under it) this run could not store, and returns them as stale entries with the
     * reason: a busy or unreadable file costs its newest change, not its place in the snapshot. A
     * version found damaged is not kept. A folder that could not be read also keeps the directories,
     * symbolic links and hard links the previous snapshot recorded in it ({@code walked}, the run's own
     * tree, gets them), and is itself a stale entry naming that snapshot, so nothing says its files were
     * in no earlier backup.
     */
    Kept keepPrevious(List<Failure> failures, List<ManifestEntry> listed, ManifestTree walked) {
        ManifestTree before = tree;
        if (failures.isEmpty() || (entries.isEmpty() && before.isEmpty())) {
            return new Kept(List.of(), walked);
        }
        Set<String> present = new java.util.HashSet<>();
        listed.forEach(e -> present.add(e.path()));
        java.util.NavigableMap<String, ManifestEntry> byPath = new java.util.TreeMap<>(entries);
        List<Manifest.Stale> stale = new ArrayList<>();
        for (Failure f : failures) {
            List<ManifestEntry> kept = new ArrayList<>();
            ManifestEntry same = byPath.get(f.path());
            if (same != null) {
                kept.add(same);
            }
            // A folder that could not be read: every file under it ('0' follows '/').
            kept.addAll(
                    byPath.subMap(f.path() + "/", true, f.path() + "0", false).values());
            for (ManifestEntry e : kept) {
                if (present.add(e.path())) {
                    // Its stat is not carried over: the next run reads the file again.
                    listed.add(new ManifestEntry(
                            e.path(), e.size(), e.sha256(), e.versionId(), e.mtime(), null, null, null, e.chunks()));
                    stale.add(new Manifest.Stale(e.path(), f.reason()));
                }
            }
        }
        ManifestTree carried = StaleFolders.carry(failures, before, walked, present, byPath, previousLabel, stale);
        stale.sort(Comparator.comparing(Manifest.Stale::path));
        return new Kept(stale, carried);
    }
}
