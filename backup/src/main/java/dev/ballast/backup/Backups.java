package dev.ballast.backup;

import dev.ballast.backup.content.Transfers;
import dev.ballast.backup.keys.KeyFiles;
import dev.ballast.backup.keys.MasterKey;
import dev.ballast.backup.pack.MaxUnused;
import dev.ballast.backup.retention.RetentionPolicy;
import dev.ballast.backup.snapshot.ManifestSummary;
import dev.ballast.backup.snapshot.Manifests;
import dev.ballast.backup.snapshot.SealedStore;
import dev.ballast.backup.tree.Names;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.VersionEntry;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Backups of directories in an object store, as the {@code ballast} command makes them: back up,
 * list, restore (all or a selection), verify, forget and prune, with progress and notes delivered to a
 * {@link BackupListener} and results as values. The store format is the command's: a backup made
 * here restores with {@code ballast restore} and the other way round.
 *
 * <pre>{@code
 * Backups backups = Backups.open(facade.objects(), password); // Backups.init(...) makes the repository
 * BackupResult made = backups.backup("photos", Path.of("/home/me/photos"));
 * RestoreResult back = backups.restore("photos", Path.of("/tmp/photos"), RestoreOptions.latest());
 * }</pre>
 *
 * <p>That is an encrypted repository, as the command makes by default; {@link #of(StorageFacade)}
 * gives the earlier, unencrypted format (see <b>Formats</b> below).
 *
 * <p><b>What the JVM must allow.</b> File names are bytes on Unix, and are kept byte for byte
 * (invalid UTF-8 included) only when the JVM opens {@code sun.nio.fs} to this library:
 * {@code --add-opens java.base/sun.nio.fs=ALL-UNNAMED}. Without it, on a Unix JDK, {@link #of(ObjectStore)}
 * throws an {@link IllegalStateException} saying so in one sentence, unless
 * {@link #allowingInexactNames(ObjectStore)} accepts names as the locale decodes them (a name that cannot be
 * held is then reported not stored). On other JDKs (Windows) names are the JDK's own.
 *
 * <p><b>Formats: which call encrypts.</b> {@link #init(ObjectStore, char[])} (an empty store) and
 * {@link #open(ObjectStore, char[])} (a repository made by it, by {@code ballast init} or by a first
 * {@code ballast backup}) give an <em>encrypted</em> repository of format 3: contents in deduplicated,
 * compressed, sealed chunks in packs, manifests and markers sealed under keys that do not reveal the
 * name (docs/backup-format.md); so do {@link #of(ObjectStore, MasterKey)} and {@link #withKey} with a
 * master key already opened. {@link #of(ObjectStore)} and {@link #of(StorageFacade)} give the
 * earlier, <em>unencrypted</em> format (one object per file, plain JSON manifests under
 * {@code NAME/}), into an empty store too: unlike the {@code ballast} command, whose first backup
 * into an empty store makes it encrypted (issue 22), the library never encrypts without being given
 * a password or key, since it has no terminal or environment of its own to ask. The format of a
 * store is fixed when it is first written; a job given the wrong kind finds no backups.
 *
 * <p><b>Failures.</b> A failure of the job as a whole is a {@link BackupException} (its
 * {@link BackupException.Kind} says which); a store that fails is a
 * {@link dev.ballast.storage.StorageException} as the store threw it; a file that cannot be stored or
 * restored is not an exception but a {@link FileProblem} in the result.
 *
 * <p>Immutable and thread-safe; the {@code with...} methods return a copy. Defaults: the system
 * clock in UTC, 4 transfer threads, no listener, a cancellation no one cancels, 5 seconds for an
 * interrupted run to write its manifest, no key (the earlier formats).
 */
public final class Backups {
    private final ObjectStore store;
    private final Clock clock;
    private final int transfers;
    private final BackupListener listener;
    private final Cancellation cancellation;
    private final Duration manifestGrace;
    private final @Nullable MasterKey key;
    /** What manifests, markers and records go through: the store itself, or its sealed view (format 3). */
    private final ObjectStore view;

    private Backups(
            ObjectStore store,
            Clock clock,
            int transfers,
            BackupListener listener,
            Cancellation cancellation,
            Duration manifestGrace,
            @Nullable MasterKey key) {
        this.key = key;
        this.view = key == null ? store : new SealedStore(store, key);
        this.store = store;
        this.clock = clock;
        this.transfers = transfers;
        this.listener = listener;
        this.cancellation = cancellation;
        this.manifestGrace = manifestGrace;
    }

    /**
     * Backups in {@code store}, a store of the earlier, <b>unencrypted</b> formats (no key), which the
     * caller keeps open (and closes) for as long as this is used; an empty store is written in that
     * format too (the command's {@code backup --insecure-no-encryption}). An encrypted repository is
     * made with {@link #init(ObjectStore, char[])} and opened with {@link #open(ObjectStore, char[])}.
     *
     * @throws BackupException of kind {@link BackupException.Kind#INVALID_INPUT} if the store is an
     *     encrypted repository (format 3): nothing would be sealed
     * @throws IllegalStateException if the JVM does not let file names be read as bytes (see above)
     */
    public static Backups of(ObjectStore store) {
        requireJvmOption();
        return allowingInexactNames(store);
    }

    private static void requireJvmOption() {
        String missing = Names.missingJvmOption();
        if (missing != null) {
            throw new IllegalStateException(missing);
        }
    }

    /**
     * A store of the earlier formats only: backups written without a key into an encrypted repository
     * would lie there in clear, beside its sealed snapshots, and no command would show them.
     */
    private static void refuseRepository(ObjectStore store) {
        if (KeyFiles.isRepository(store)) {
            throw new BackupException(
                    BackupException.Kind.INVALID_INPUT,
                    "The store is an encrypted repository (it has an object '" + KeyFiles.CONFIG
                            + "'): open it with Backups.open(store, password), not without a key");
        }
        KeyFiles.requireNoRepositoryRemains(store, "given");
    }

    /**
     * Backups in the object store of {@code facade} ({@link StorageFacade#objects()}), unencrypted as
     * {@link #of(ObjectStore)}.
     */
    public static Backups of(StorageFacade facade) {
        return of(facade.objects());
    }

    /**
     * Backups in {@code store} even when the JVM does not let file names be read as bytes: names are
     * then converted with the JDK's file name encoding, and a file whose name it cannot hold is
     * reported not stored.
     */
    public static Backups allowingInexactNames(ObjectStore store) {
        refuseRepository(Objects.requireNonNull(store, "store"));
        return plain(store);
    }

    private static Backups plain(ObjectStore store) {
        return new Backups(
                Objects.requireNonNull(store, "store"),
                Clock.systemUTC(),
                Transfers.DEFAULT_THREADS,
                BackupListener.NONE,
                new Cancellation(),
                Duration.ofSeconds(5),
                null);
    }

    /**
     * Backups in the repository of format 3 in {@code store}, sealed by {@code key} (the master key
     * the repository's key files hold, opened with a password): {@code of(store).withKey(key)}.
     * {@link #open(ObjectStore, char[])} opens the key with a password and does this in one call.
     *
     * @throws BackupException of kind {@link BackupException.Kind#NOT_FOUND} if the store is not a
     *     repository of format 3 (see {@link #withKey})
     * @throws IllegalStateException if the JVM does not let file names be read as bytes (see above)
     */
    public static Backups of(ObjectStore store, MasterKey key) {
        requireJvmOption();
        return plain(Objects.requireNonNull(store, "store")).withKey(key);
    }

    /**
     * Makes {@code store} (empty) a repository of format 3 and returns the backups in it: a new random
     * master key, sealed in a key file under {@code password} (Argon2id, {@link KeyFiles}), then the
     * repository's {@code config}; as {@code ballast init} does, so the command opens it with the same
     * password. The password is not kept; the caller may zero it after the call.
     *
     * @throws BackupException of kind {@link BackupException.Kind#INVALID_INPUT} if the store is a
     *     repository already or holds objects of the earlier formats
     * @throws IllegalStateException if the JVM does not let file names be read as bytes (see above)
     */
    public static Backups init(ObjectStore store, char[] password) {
        requireJvmOption();
        Backups plain = plain(Objects.requireNonNull(store, "store"));
        return plain.keyed(KeyFiles.create().init(store, password).masterKey());
    }

    /**
     * The backups in the repository of format 3 in {@code store}, opened with {@code password} (any of
     * its keys', as {@code ballast} opens it). The password is not kept.
     *
     * @throws BackupException of kind {@link BackupException.Kind#NOT_FOUND} if the store is not a
     *     repository of format 3 (no {@code config}), {@link BackupException.Kind#WRONG_PASSWORD} if no
     *     key file opens with the password, {@link BackupException.Kind#NO_KEY} if it has none,
     *     {@link BackupException.Kind#INTEGRITY} if a key file or {@code config} is damaged
     * @throws IllegalStateException if the JVM does not let file names be read as bytes (see above)
     */
    public static Backups open(ObjectStore store, char[] password) {
        requireJvmOption();
        Backups plain = plain(Objects.requireNonNull(store, "store"));
        requireRepository(store);
        return plain.keyed(KeyFiles.create().open(store, password).masterKey());
    }

    private static void requireRepository(ObjectStore store) {
        if (!KeyFiles.isRepository(store)) {
            throw new BackupException(
                    BackupException.Kind.NOT_FOUND,
                    "The store holds no repository of format 3 (it has no object '" + KeyFiles.CONFIG
                            + "'): make one with Backups.init(store, password), or work on"
                            + " a store of the earlier formats with Backups.of(store), without a key");
        }
    }

    private Backups keyed(@Nullable MasterKey newKey) {
        return new Backups(store, clock, transfers, listener, cancellation, manifestGrace, newKey);
    }

    /**
     * A copy working on a repository of format 3 (docs/backup-format.md), sealed by {@code key}: file
     * contents are cut into content-defined chunks (FastCDC, about 1 MiB), each chunk stored once in
     * the repository, compressed with zstd where that pays and sealed (AES-256-GCM) in pack files found
     * through index files; manifests are compressed and sealed under {@code snapshots/<ID of the
     * name>}, run markers and records of damage are sealed under keys named by that ID. No object key
     * and no unsealed byte reveals a backup name, a file name or content. Restore, verify, forget,
     * prune and {@link #snapshots} read such a repository; without a key (the default) they read and
     * write a store of the earlier formats (one object per file, plain JSON manifests), as before.
     *
     * <p>Jobs open the repository's index when they start (one GET per index file) and, for a backup,
     * store and index the new packs before the manifest naming them is written.
     *
     * <p>The store must be a repository of format 3 already ({@link #init}, {@code ballast init}): its
     * key files are what keep the master key, and a store written with a key it does not hold could not
     * be read again once the key is gone. This method checks it (one read of {@code config}).
     *
     * @param key the repository's master key, or null for a store of the earlier formats
     * @throws BackupException of kind {@link BackupException.Kind#NOT_FOUND} if {@code key} is given and
     *     the store is not a repository of format 3
     */
    public Backups withKey(@Nullable MasterKey key) {
        if (key != null && this.key == null) {
            requireRepository(store);
        }
        return keyed(key);
    }

    /** What a job of this takes from it (Job). */
    private Job.Settings settings() {
        return new Job.Settings(store, view, key, clock, transfers, listener, cancellation, manifestGrace);
    }

    /** Whether this works on a repository of format 3 ({@link #withKey}). */
    public boolean encrypted() {
        return key != null;
    }

    /** A copy using {@code clock} for snapshot times, retention and prune's grace period. */
    public Backups withClock(Clock clock) {
        return new Backups(
                store, Objects.requireNonNull(clock, "clock"), transfers, listener, cancellation, manifestGrace, key);
    }

    /**
     * A copy moving up to {@code threads} files at once (1 to 64).
     *
     * @throws BackupException with {@link BackupException.Kind#INVALID_INPUT} if out of range
     */
    public Backups withTransfers(int threads) {
        new Transfers(threads, 1).close(); // refuses a bad count
        return new Backups(store, clock, threads, listener, cancellation, manifestGrace, key);
    }

    /** A copy reporting progress and notes to {@code listener}. */
    public Backups withListener(BackupListener listener) {
        return new Backups(
                store,
                clock,
                transfers,
                Objects.requireNonNull(listener, "listener"),
                cancellation,
                manifestGrace,
                key);
    }

    /**
     * A copy whose jobs stop when {@code cancellation} is cancelled: no further file is started, the
     * ones in progress are interrupted, and the result says it was cancelled (a backup writes its
     * snapshot marked incomplete).
     */
    public Backups withCancellation(Cancellation cancellation) {
        return new Backups(
                store,
                clock,
                transfers,
                listener,
                Objects.requireNonNull(cancellation, "cancellation"),
                manifestGrace,
                key);
    }

    /** Backs up {@code source} as {@code name} with {@link BackupOptions#defaults()}. */
    public BackupResult backup(String name, Path source) {
        return backup(name, source, BackupOptions.defaults());
    }

    /**
     * Backs up the directory {@code source} as a new snapshot of {@code name}: files unchanged since
     * the previous snapshot are kept without reading them, every other file is stored and its
     * SHA-256 confirmed. A local store ({@link dev.ballast.storage.object.local.LocalObjectStore}, as
     * {@link StorageFacade.Builder#localObjects(Path)} makes one) whose directory lies inside
     * {@code source} is left out, as {@code ballast backup} leaves it out: {@link BackupResult#skipped()}
     * names it, "{@code DIR/ (the store this backup is written to)}".
     *
     * @param name the backup name: no slash, not starting with {@code .ballast-}
     * @throws BackupException with {@link BackupException.Kind#INVALID_INPUT} if the name, a pattern or
     *     the directory is not usable
     * @throws dev.ballast.storage.StorageException if the store fails before the run starts
     */
    public BackupResult backup(String name, Path source, BackupOptions options) {
        return new BackupJob(settings()).backup(name, source, options);
    }

    /** Restores all of the newest intact backup of {@code name} into {@code target}. */
    public RestoreResult restore(String name, Path target) {
        return restore(name, target, RestoreOptions.latest());
    }

    /**
     * Restores a snapshot of {@code name}, or the part of it {@code options} selects, into the
     * directory {@code target} (created if missing), directories, links, modes and times as recorded.
     * Each file is written under a temporary name and checked before it takes its own: in a
     * repository of format 3 every chunk against its ID (a keyed SHA-256) as it is read, and the
     * file's size against the manifest (the file is not hashed again: the sealed manifest makes its
     * list of chunk IDs authentic, docs/backup-format.md); in a store of the earlier formats the
     * file's bytes against the SHA-256 the manifest records, as they are read from the store. A file
     * already in the target whose size and SHA-256 (hashed from the disk) are the backup's is kept.
     *
     * @throws BackupException with {@link BackupException.Kind#NOT_FOUND} if there is no such backup,
     *     version or path, {@link BackupException.Kind#INTEGRITY} if its manifest is damaged (and no
     *     older intact one may be used), {@link BackupException.Kind#CONFLICT} if existing entries are
     *     in the way and overwriting was not asked for ({@link BackupException#details()} lists
     *     them), {@link BackupException.Kind#INVALID_INPUT} for a bad name or pattern
     * @throws UncheckedIOException if the target cannot be written at all
     */
    public RestoreResult restore(String name, Path target, RestoreOptions options) {
        return new RestoreJob(settings()).restore(name, target, options);
    }

    /**
     * The backup names in the store, as {@code ballast list} lists them: sorted in a repository of
     * format 3 (its snapshots hold the names, sealed: one manifest version of each is opened), in the
     * store's key order in the earlier formats (one listing of the store). A snapshot of format 3 none
     * of whose versions opens cannot tell its name: it is left out, and a notice to the listener says
     * so with its stored key.
     *
     * @return the names; empty when the store holds no backup
     * @throws dev.ballast.storage.StorageException if the store fails
     */
    public List<String> names() {
        dev.ballast.backup.snapshot.SealedStore.Names found = Manifests.names(view);
        found.unreadable().forEach(k -> listener.notice(Manifests.unreadableName(k)));
        return found.names();
    }

    /**
     * The snapshots of {@code name}, newest first; one whose manifest cannot be read is listed with
     * why ({@link SnapshotInfo#damaged()}). In a repository of format 3 each is read from its
     * snapshot's head alone ({@link Manifests#summary}: one small read per snapshot, whatever it
     * holds), so a damaged or missing manifest part is not seen here: {@link #check}, {@link #verify}
     * and {@link #restore} read the parts (restore passes over such a snapshot for the newest intact one).
     *
     * <p>A name the store holds no backup of is a failure, {@link BackupException.Kind#NOT_FOUND}, as
     * for {@link #restore}, {@link #verify} and {@link #forget} of it, not an empty list: a backup
     * always has at least one snapshot (forget never removes the newest), so an empty list would only
     * hide a misspelt name, or a store or key other than the one the backups were made in (another
     * key finds none of a repository's backups). {@link #names()} lists the names there are.
     *
     * @return the snapshots, never empty
     * @throws BackupException with {@link BackupException.Kind#INVALID_INPUT} for a bad name,
     *     {@link BackupException.Kind#NOT_FOUND} if there is no backup of that name
     * @throws dev.ballast.storage.StorageException if the store fails
     */
    public List<SnapshotInfo> snapshots(String name) {
        String n = Manifests.checkExistingName(name);
        List<VersionEntry> versions = Manifests.versions(view, n);
        if (versions.isEmpty()) {
            throw Manifests.noSuchBackup(view, n, "the object store");
        }
        List<SnapshotInfo> out = new ArrayList<>();
        for (Manifests.SummaryRead read : Manifests.summaries(view, n, versions)) {
            VersionEntry v = read.version();
            String id = v.versionId();
            try {
                if (read.failure() != null) {
                    throw read.failure();
                }
                ManifestSummary m = java.util.Objects.requireNonNull(read.summary());
                out.add(new SnapshotInfo(
                        id,
                        Manifests.shortId(id),
                        m.createdAt(),
                        null,
                        m.complete(),
                        m.fileCount(),
                        m.totalBytes(),
                        m.host(),
                        m.source(),
                        m.missing(),
                        m.stale()));
            } catch (BackupException | ObjectNotFoundException | IntegrityException e) {
                IntegrityException.rethrowIfInStoreIndex(e); // the store's index, not what was read
                String why = e instanceof BackupException b && Manifests.damaged(b)
                        ? Manifests.why(b)
                        : String.valueOf(e.getMessage());
                out.add(new SnapshotInfo(
                        id, Manifests.shortId(id), v.lastModified(), why, false, 0, 0, null, null, 0, 0));
            }
        }
        return out;
    }

    /**
     * Deletes the stored files no snapshot of any backup name references, that are older than
     * {@code grace} (a running backup's files are younger, and its run marker keeps its name out
     * altogether), as {@code ballast prune} does.
     *
     * @param dryRun whether only to tell what would be deleted
     */
    public PruneResult prune(Duration grace, boolean dryRun) {
        return prune(grace, MaxUnused.DEFAULT.toString(), dryRun);
    }

    /**
     * {@link #prune(Duration, boolean)}, leaving at most {@code maxUnused} of unused space in the packs
     * of a repository of format 3 (a store of the earlier formats has no packs: the limit is checked,
     * then changes nothing). A pack holding chunks no snapshot needs beside chunks one does is repacked,
     * the packs with the most unused bytes first, until the unused bytes left are within the limit.
     *
     * @param maxUnused as restic's {@code prune --max-unused}: a percentage from 0 to below 100 of the
     *     bytes of the chunks the packs hold after the prune ({@code "5%"}, the default), a size in
     *     bytes or with a suffix {@code k}, {@code m}, {@code g} or {@code t} ({@code "0"}, {@code "500M"}),
     *     or {@code "unlimited"}
     * @throws BackupException with {@link BackupException.Kind#INVALID_INPUT} for a limit of none of
     *     those forms, before anything is read
     */
    public PruneResult prune(Duration grace, String maxUnused, boolean dryRun) {
        return new PruneJob(settings()).prune(grace, maxUnused, dryRun);
    }

    /**
     * Repairs a repository of format 3, as {@code ballast repair index} ({@code readData} false) and
     * {@code ballast repair packs} (true) do, restic's {@code repair index} and {@code repair packs}: the
     * packs no intact index file names are indexed from their headers, damaged index files replaced,
     * packs the index names but the store lacks dropped from the index, and (reading every pack whole with
     * {@code readData}; a pack whose size is wrong always) each damaged pack's intact chunks copied into
     * new packs before it is deleted. The chunks lost are then absent from the index: the next backup of
     * a source that still holds them stores them again, and every snapshot naming them reads again.
     * Runs under the prune's marker: nothing is done while a backup or a prune may be running.
     *
     * @param readData whether to read every pack whole (every chunk opened and checked)
     * @throws BackupException with {@link BackupException.Kind#INVALID_INPUT} on a store of the earlier
     *     formats (no key: it has no packs; {@code ballast repair index} rebuilds the local store's own index)
     */
    public RepairResult repair(boolean readData) {
        return new RepairJob(settings()).repair(readData);
    }

    /**
     * Re-reads every file of the snapshot {@code version} of {@code name} from the store, never from a
     * cache, as {@code ballast verify} does: in a store of the earlier formats each object's length and
     * SHA-256 against the manifest; in a repository of format 3 every chunk against its ID (a keyed
     * SHA-256), then the file's length and SHA-256 against the manifest. What it finds damaged is kept
     * from later backups ({@link VerifyResult#recorded()} says whether that was done): in the earlier
     * formats the damaged versions are recorded, so no later backup reuses them; in a repository of
     * format 3 the damaged chunks are dropped from the index (the packs holding them are replaced by
     * their intact chunks, under the prune's marker: not while a backup or prune may be running), so the
     * next backup of a source that still holds the files stores them again, and every snapshot naming
     * those chunks reads again.
     *
     * @param version {@code "latest"}, a version ID or a short ID
     * @param readDataSubset null to read every file, or a subset as {@code --read-data-subset} takes it
     *     ({@code 1/5}, {@code 10%}, {@code 500M}): the others are checked present with their size
     * @throws BackupException with {@link BackupException.Kind#NOT_FOUND} if there is no such backup or
     *     version, {@link BackupException.Kind#INVALID_INPUT} for a bad name or subset
     */
    public VerifyResult verify(String name, String version, @Nullable String readDataSubset) {
        return new VerifyJob(settings()).verify(name, version, readDataSubset);
    }

    /**
     * Checks the whole repository of format 3 and writes nothing, as {@code ballast check} and restic's
     * {@code check} do: every pack the index names present with the size the index implies, the packs
     * {@code readDataSubset} picks read whole with every chunk opened and matched against its ID, then every
     * version of every snapshot of every name against the chunks left ({@link CheckResult}). Unlike
     * {@link #verify}, it drops nothing from the index: {@link #repair} does that.
     *
     * @param readDataSubset which packs to read: null for none (presence and size only), {@code "100%"}
     *     for all, or a subset as restic's {@code check --read-data-subset} takes it ({@code 1/5}: the
     *     first of five fixed groups of packs by key; {@code 10%}: each pack with that chance;
     *     {@code 500M}: each pack with the chance that reads about that much)
     * @throws BackupException with {@link BackupException.Kind#INVALID_INPUT} for a bad subset or a store
     *     of the earlier formats (no key: it has no packs; {@link #verify} checks its backups one by one),
     *     {@link BackupException.Kind#UNAVAILABLE} while a prune runs
     * @throws dev.ballast.storage.StorageException if the store fails
     */
    public CheckResult check(@Nullable String readDataSubset) {
        return new CheckJob(settings()).check(readDataSubset);
    }

    /**
     * Removes the snapshots of {@code name} that {@code policy} does not keep, as {@code ballast
     * forget} does: the newest is never removed, nor one whose manifest cannot be read, nor an
     * incomplete one newer than the newest complete one; an incomplete one older than that is
     * removed. Days, weeks and months are counted in the clock's time zone ({@link #withClock}).
     *
     * @param dryRun whether only to tell what would be removed
     * @throws BackupException with {@link BackupException.Kind#NOT_FOUND} if there is no such backup,
     *     {@link BackupException.Kind#INVALID_INPUT} if the policy keeps nothing (no rule given)
     */
    public ForgetResult forget(String name, RetentionPolicy policy, boolean dryRun) {
        return new ForgetJob(settings()).forget(name, policy, dryRun);
    }
}
