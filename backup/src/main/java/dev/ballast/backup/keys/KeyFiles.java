package dev.ballast.backup.keys;

import dev.ballast.backup.Advice;
import dev.ballast.backup.BackupException;
import dev.ballast.backup.BackupException.Kind;
import dev.ballast.backup.tree.LocalHost;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.UnsupportedCapabilityException;
import dev.ballast.storage.object.ListEntry;
import dev.ballast.storage.object.ListRequest;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.VersionEntry;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The keys of a format-3 (encrypted) repository: its {@code config} and its key files
 * {@code keys/<SHA-256 of the file>}, each sealing the one {@link MasterKey} under one password
 * (layout in {@link KeyFile} and {@link RepositoryConfig}; docs/backup-format.md, "Keys and config").
 * Several passwords open the same repository; adding or removing one never touches anything but
 * {@code keys/}. The model is restic's key files, with Argon2id ({@link KdfParameters}) for scrypt.
 *
 * <p>An instance holds settings only (KDF parameters for new key files, the clock, host and user
 * written into them, how the store is named in messages): immutable and thread-safe; every operation
 * takes the store. Passwords are {@code char[]}: the UTF-8 copies made of them are zeroed after
 * use, the arrays themselves are the caller's to zero.
 *
 * <p><b>Failures</b> are {@link BackupException}s, one sentence naming the store: {@link Kind#WRONG_PASSWORD}
 * when no key file opens with the password, {@link Kind#NO_KEY} when there are no key files,
 * {@link Kind#INTEGRITY} naming the object when a key file or {@code config} is damaged,
 * {@link Kind#INVALID_INPUT} for a refused init or removal, {@link Kind#NOT_FOUND} for a key ID that
 * matches none. The store's own failures ({@link dev.ballast.storage.StorageException}) pass through.
 * Nothing is written by a failed open.
 */
public final class KeyFiles {
    /**
     * Reads of the config and key files ask the store itself, never a last-known-good cache: they are
     * small and read once per command, a cached copy would not make the repository readable when the
     * store is down (its packs are not cached), and a cache's read deadline (3 s by default) would fail
     * a command whose first request to a cold endpoint takes longer.
     */
    private static final ReadOptions LIVE = ReadOptions.latest().withAllowCache(false);

    /** The object that marks a format-3 repository. */
    public static final String CONFIG = "config";

    /** The prefix of the key files. */
    public static final String KEYS_PREFIX = "keys/";

    /** How many hex digits of a key's ID {@code key list} shows, as restic shows 8. */
    public static final int SHORT_ID = 8;

    /**
     * How old a key file without a {@code config} must be before {@link #init} takes it for the
     * leftover of an init that stopped, and deletes it: younger, it may be an init running now.
     */
    public static final java.time.Duration INIT_GRACE = java.time.Duration.ofMinutes(15);

    private static final SecureRandom RANDOM = new SecureRandom();

    private final KdfParameters kdf;
    private final Clock clock;
    private final String host;
    private final String username;
    private final @Nullable String where;
    /** Where the password came from, as the advice of a wrong password names it. */
    private final String passwordSource;

    /** The advice of a wrong password when where it came from is not known. */
    private static final String ANY_PASSWORD_SOURCE = Advice.PASSWORD.text();

    private KeyFiles(
            KdfParameters kdf,
            Clock clock,
            String host,
            String username,
            @Nullable String where,
            String passwordSource) {
        this.kdf = kdf;
        this.clock = clock;
        this.host = host;
        this.username = username;
        this.where = where;
        this.passwordSource = passwordSource;
    }

    /**
     * The defaults: {@link KdfParameters#DEFAULT}, the system clock, this machine's host name (the
     * kernel's, {@code /proc/sys/kernel/hostname} on Linux, else the JDK's) and {@code user.name}.
     */
    public static KeyFiles create() {
        return new KeyFiles(
                KdfParameters.DEFAULT,
                Clock.systemUTC(),
                LocalHost.name(),
                System.getProperty("user.name", ""),
                null,
                ANY_PASSWORD_SOURCE);
    }

    /** The same, writing new key files with {@code kdf} (existing ones keep theirs). */
    public KeyFiles withKdf(KdfParameters kdf) {
        return new KeyFiles(Objects.requireNonNull(kdf, "kdf"), clock, host, username, where, passwordSource);
    }

    /** The same, dating new key files by {@code clock}. */
    public KeyFiles withClock(Clock clock) {
        return new KeyFiles(kdf, Objects.requireNonNull(clock, "clock"), host, username, where, passwordSource);
    }

    /** The same, recording {@code host} and {@code username} in new key files. */
    public KeyFiles withOrigin(String host, String username) {
        return new KeyFiles(
                kdf, clock, Objects.requireNonNull(host), Objects.requireNonNull(username), where, passwordSource);
    }

    /**
     * The same, naming the store {@code where} in messages ("the repository at WHERE"), e.g.
     * {@code "/home/me/.ballast/ballast-backups"}; by default its endpoint and bucket.
     */
    public KeyFiles describedAs(String where) {
        return new KeyFiles(kdf, clock, host, username, Objects.requireNonNull(where), passwordSource);
    }

    /**
     * The same, naming where the password came from in the advice of a wrong password ("check
     * SOURCE."), as {@link Passwords#source} names it, e.g. {@code "the password typed at the prompt"}
     * or {@code "the password in BALLAST_PASSWORD"}; by default every place a password may come from.
     */
    public KeyFiles withPasswordSource(String passwordSource) {
        return new KeyFiles(kdf, clock, host, username, where, Objects.requireNonNull(passwordSource));
    }

    /** The KDF parameters new key files get. */
    public KdfParameters kdf() {
        return kdf;
    }

    /**
     * Whether {@code store} holds a format-3 repository (it has {@link #CONFIG}): one read of that
     * object's latest version, its stream closed unread.
     *
     * @throws dev.ballast.storage.StorageException if the store could not be asked
     */
    public static boolean isRepository(ObjectStore store) {
        try (ObjectRead read = store.get(CONFIG, LIVE)) {
            return true;
        } catch (ObjectNotFoundException e) {
            return false;
        }
    }

    /**
     * The stored (sealed) bytes of {@code store}'s {@link #CONFIG}, or null when it has none (not a
     * repository): one read of its latest version, for a command to read it once and hand it to
     * {@link #open(ObjectStore, char[], byte[])}, instead of one read to see whether the store is a
     * repository and another to open it.
     *
     * @throws dev.ballast.storage.StorageException if the store could not be asked, or the bytes read
     *     do not match the store's record of them
     */
    public static byte @Nullable [] readSealedConfig(ObjectStore store) {
        try (ObjectRead read = store.get(CONFIG, LIVE)) {
            return read.readAllBytes();
        } catch (ObjectNotFoundException e) {
            return null;
        }
    }

    private static final java.util.regex.Pattern REPOSITORY_OBJECT = java.util.regex.Pattern.compile(
            "keys/[0-9a-f]{64}|data/[0-9a-f]{2}/[0-9a-f]{64}|index/[0-9a-f]{64}|snapshots/[0-9a-f]{64}"
                    + "|manifest-parts/[0-9a-f]{64}");

    /**
     * Whether {@code key} is an object Ballast writes, by its shape (docs/backup-format.md): the
     * {@link #CONFIG}, a key file, pack, index file or snapshot of format 3 ({@code keys/<64 hex>},
     * {@code data/<2 hex>/<64 hex>}, {@code index/<64 hex>}, {@code snapshots/<64 hex>}), or a key with a
     * segment starting {@code .ballast-}: the earlier format's manifests {@code NAME/.ballast-manifest.json},
     * its hashed names {@code NAME/.ballast-names/...}, run markers and records of damage. Any other key
     * (such as {@code other-app/data.txt}) may be another program's. Stateless.
     */
    public static boolean isBallastObject(String key) {
        if (key.equals(CONFIG) || REPOSITORY_OBJECT.matcher(key).matches()) {
            return true;
        }
        for (String segment : key.split("/", -1)) {
            if (segment.startsWith(".ballast-")) {
                return true;
            }
        }
        return false;
    }

    private static final java.util.regex.Pattern KEY_FILE = java.util.regex.Pattern.compile("keys/[0-9a-f]{64}");

    /**
     * Whether {@code key} is a key file's by its shape ({@code keys/<64 hex>}): not any object under
     * {@code keys/}, which a backup of the earlier format named {@code keys} also stores its files under.
     */
    public static boolean isKeyFile(String key) {
        return KEY_FILE.matcher(key).matches();
    }

    /**
     * Whether {@code key} lies where a repository of format 3 writes ({@link #CONFIG}, {@code keys/},
     * {@code data/}, {@code index/}, {@code snapshots/}) without being one of its objects
     * ({@link #isBallastObject}): another program's object that an {@link #init} would mix with the repository's.
     */
    public static boolean isForeignAtRepositoryKey(String key) {
        boolean repositoryPlace = key.equals(CONFIG)
                || key.startsWith(KEYS_PREFIX)
                || key.startsWith("data/")
                || key.startsWith("index/")
                || key.startsWith("snapshots/")
                || key.startsWith("manifest-parts/");
        return repositoryPlace && !isBallastObject(key);
    }

    /**
     * Whether {@code prefix} is the folder of a backup of the earlier format: its manifest is there, or the
     * marker of a run of that name (a first backup killed before its manifest was written: a fault tester's
     * such run of a restic repository's {@code keys} folder locked its store, older backups included).
     */
    private static boolean isEarlierBackup(ObjectStore store, String prefix) {
        try (var manifest =
                store.listing(ListRequest.prefix(prefix + EARLIER_MANIFEST).withPageSize(1))) {
            if (manifest.anyMatch(e -> e.key().equals(prefix + EARLIER_MANIFEST))) {
                return true;
            }
        }
        try (var runs = store.listing(ListRequest.prefix(EARLIER_RUNS + prefix).withPageSize(1))) {
            return runs.findAny().isPresent();
        }
    }

    /**
     * Whether the object {@code key} under {@code keys/} is a key file of a repository of this format (it
     * parses as one, {@link KeyFile#parse}): then it is a repository's remains whatever else the prefix holds
     * (a fault tester planted {@code keys/.ballast-manifest.json} beside a repository's key file, and a
     * backup was then written in clear beside it). A restic repository's key files, backed up, do not parse:
     * their KDF is scrypt.
     */
    private static boolean isKeyFileOfOurs(ObjectStore store, String key) {
        if (!isKeyFile(key)) {
            return false;
        }
        try (ObjectRead read = store.get(key, LIVE)) {
            if (read.version().size() > 64 * 1024) {
                return false; // a key file is a few hundred bytes
            }
            KeyFile.parse(read.readAllBytes());
            return true;
        } catch (IllegalArgumentException | dev.ballast.storage.StorageException e) {
            return false;
        }
    }

    /** Where the earlier format keeps its run markers, {@code .ballast-runs/NAME/RUN-ID} (RunMarker.PREFIX). */
    private static final String EARLIER_RUNS = ".ballast-runs/";

    /** The earlier format's manifest in a backup's folder ({@code dev.ballast.backup.snapshot.Manifest#FILE_NAME}). */
    private static final String EARLIER_MANIFEST = ".ballast-manifest.json";

    /** The prefixes only a repository of format 3 writes: key files, snapshots, index files and packs. */
    private static final List<String> REPOSITORY_PREFIXES =
            List.of(KEYS_PREFIX, "snapshots/", "manifest-parts/", "index/", "data/");

    /**
     * Refuses a store that is not a repository ({@link #isRepository} false) but holds what only a
     * repository writes: its {@code config} was deleted, or an {@code init} did not finish. Working on it
     * as a store of the earlier formats would hide every encrypted backup in it and write new ones in
     * clear. Two marks count: a key file of this format under {@code keys/} (an object of a key file's
     * shape, {@code keys/<64 hex>}, that parses as one; the first {@value #KEY_FILES_LOOKED_AT} of that shape
     * are read), whatever else is there; and an object of a repository's shape ({@link #isBallastObject}:
     * {@code data/<2 hex>/<64 hex>}, {@code index/<64 hex>} and so on) under a prefix that is not a backup of
     * the earlier format's name (its manifest {@code <prefix>.ballast-manifest.json} or a run marker
     * {@code .ballast-runs/<prefix>...} there), in a store that holds no backup of the earlier format under
     * another name. Those names are not reserved: a backup of the earlier format named {@code keys},
     * {@code data}, {@code index}, {@code snapshots} or {@code manifest-parts} (the name a backup of
     * {@code /srv/data} takes by default, or of a restic repository's folders, whose files have hex names)
     * stores its files under that prefix, and fault testers' such backups, completed, killed before their
     * manifest, or pruned of their marker after that, made every command refuse their store.
     *
     * @param where names the store in the message after "The store ", such as {@code "at the local store
     *     /data/b"}
     * @throws BackupException of kind {@link Kind#INTEGRITY} naming the objects found
     */
    public static void requireNoRepositoryRemains(ObjectStore store, String where) {
        // A key file of this format, whatever else is beside it (a fault tester planted junk names that sort
        // before it, a manifest and run markers): the repository's own mark, the one its config's loss leaves.
        String keyFile = firstOfOurKeyFiles(store);
        if (keyFile != null) {
            throw remains(where, keyFile);
        }
        Boolean earlierStore = null;
        for (String prefix : REPOSITORY_PREFIXES) {
            Optional<String> found;
            // '/' sorts right before '0', so the listing starts at the first key whose next character is a digit
            ListRequest hexNames = ListRequest.prefix(prefix).withStartAfter(prefix + "/");
            String pastHex = prefix + "g";
            try (var entries = store.listing(hexNames)) {
                found = entries.map(ListEntry::key)
                        .takeWhile(k -> k.compareTo(pastHex) < 0)
                        .filter(k -> REPOSITORY_OBJECT.matcher(k).matches())
                        .findFirst();
            }
            if (found.isEmpty() || isEarlierBackup(store, prefix)) {
                continue; // nothing of a repository's shape, or a backup of the earlier format named as the prefix
            }
            if (earlierStore == null) {
                earlierStore = holdsEarlierBackups(store);
            }
            if (!earlierStore) {
                throw remains(where, found.get());
            }
            // a store of backups of the earlier format: objects of that shape with no key file of this format beside
            // them are the files of such a backup whose manifest and marker are gone (a first run killed, then a
            // prune that removed its marker: a fault tester's fourth round)
        }
    }

    private static BackupException remains(String where, String found) {
        return new BackupException(
                Kind.INTEGRITY,
                "The store " + where + " holds objects of an encrypted repository (such as '" + found
                        + "') but no '" + CONFIG + "': it was deleted, or an init did not finish; nothing"
                        + " is read or written here (a backup would be stored in clear): put '" + CONFIG
                        + "' back from a copy of the store, or " + Advice.INIT_AGAIN.text() + " if the init was"
                        + " interrupted before any backup.");
    }

    /** Key files looked at under {@code keys/} for one of this format: a repository holds a few. */
    private static final int KEY_FILES_LOOKED_AT = 100;

    /** The first object under {@code keys/} of a key file's shape that parses as one of this format, or null. */
    private static @Nullable String firstOfOurKeyFiles(ObjectStore store) {
        try (var entries = store.listing(ListRequest.prefix(KEYS_PREFIX).withStartAfter(KEYS_PREFIX + "/"))) {
            return entries.map(ListEntry::key)
                    .takeWhile(k -> k.compareTo(KEYS_PREFIX + "g") < 0)
                    .filter(KeyFiles::isKeyFile)
                    .limit(KEY_FILES_LOOKED_AT)
                    .filter(k -> isKeyFileOfOurs(store, k))
                    .findFirst()
                    .orElse(null);
        }
    }

    /** Backup names looked at for a manifest of the earlier format by {@link #holdsEarlierBackups}. */
    private static final int NAMES_LOOKED_AT = 1000;

    /**
     * Whether the store holds a backup of the earlier format under a name other than a repository's
     * folders: a manifest {@code NAME/.ballast-manifest.json}. One listing of the top-level names, then one
     * per name until one holds a manifest.
     */
    private static boolean holdsEarlierBackups(ObjectStore store) {
        try (var names = store.listing(ListRequest.all().withDelimiter("/"))) {
            return names.filter(ListEntry::commonPrefix)
                    .map(ListEntry::key)
                    .filter(n -> !REPOSITORY_PREFIXES.contains(n) && !n.startsWith(".ballast-"))
                    .limit(NAMES_LOOKED_AT)
                    .anyMatch(n -> {
                        try (var m = store.listing(
                                ListRequest.prefix(n + EARLIER_MANIFEST).withPageSize(1))) {
                            return m.anyMatch(e -> e.key().equals(n + EARLIER_MANIFEST));
                        }
                    });
        }
    }

    /**
     * Makes {@code store} a new format-3 repository: a random master key, a key file sealing it under
     * {@code password}, then {@code config} (in that order: a crash between the two leaves no
     * {@code config}, so the store is still no repository, and the next init replaces that key file).
     *
     * @return the open repository, its only key current
     * <p>Two inits at once make one repository: where the store has conditional writes
     * ({@link dev.ballast.storage.object.StoreCapabilities#putIfAbsent()}) {@code config} is written
     * only if absent; where it has none, each init lists {@code keys/} after writing its key file and
     * writes {@code config} only if it found no other, so the second to list steps back (both may).
     * The one that steps back deletes its key file.
     *
     * @throws BackupException {@link Kind#INVALID_INPUT} if the store already has {@code config}, or
     *     holds objects of the earlier formats (backups stored as {@code NAME/...}), which stay as they
     *     are, or another init wrote {@code config} first; {@link Kind#UNAVAILABLE} if it holds a key
     *     file younger than {@link #INIT_GRACE} and no {@code config} (an init running now), or another
     *     init's key file appeared while this one wrote its own (no conditional write)
     */
    public UnlockedRepository init(ObjectStore store, char[] password) {
        return init(store, password, KeyDerivationAhead.none());
    }

    /**
     * As {@link #init(ObjectStore, char[])}, recording in {@code made} the KDF parameters and salt of the
     * key file written ({@link KeyDerivationAhead#opened()}), so that the next command can derive its key
     * ahead.
     */
    public UnlockedRepository init(ObjectStore store, char[] password, KeyDerivationAhead made) {
        Objects.requireNonNull(password, "password");
        Objects.requireNonNull(made, "made");
        if (isRepository(store)) {
            throw new BackupException(
                    Kind.INVALID_INPUT,
                    "The store at " + where(store) + " is already a repository (it has a config); open it with"
                            + " one of its passwords, or choose another store for a new one.");
        }
        List<ListEntry> leftover = new ArrayList<>();
        try (var keys = store.listing(ListRequest.all())) {
            // Objects of another program (no Ballast shape) are left as they are; one where the repository writes is
            // refused before anything is written, as is an object of the earlier format.
            Optional<String> other = keys.filter(e -> {
                        if (isForeignAtRepositoryKey(e.key())) {
                            throw new BackupException(
                                    Kind.INVALID_INPUT,
                                    "The store at " + where(store) + " holds '" + e.key() + "', an object of another"
                                            + " program where an encrypted repository keeps its own (config, keys/,"
                                            + " data/, index/, snapshots/), so no repository is made there and nothing"
                                            + " was written: " + Advice.ANOTHER_STORE.text());
                        }
                        if (e.key().startsWith(KEYS_PREFIX)) {
                            leftover.add(e);
                            return false;
                        }
                        return isBallastObject(e.key());
                    })
                    .map(ListEntry::key)
                    .findFirst();
            if (other.isPresent() && REPOSITORY_OBJECT.matcher(other.get()).matches()) {
                // a pack, index file or snapshot of an encrypted repository whose config is gone, not a backup of
                // the unencrypted format (a fault tester's: init said so of the repository's own data/ packs)
                throw new BackupException(
                        Kind.INVALID_INPUT,
                        "The store at " + where(store) + " holds objects of an encrypted repository (such as '"
                                + other.get() + "') but no '" + CONFIG + "', which was deleted: no new repository is"
                                + " made over them (their backups could no longer be read) and nothing was written;"
                                + " put '" + CONFIG + "' back from a copy of the store, or "
                                + Advice.ANOTHER_STORE.text());
            }
            if (other.isPresent()) {
                throw new BackupException(
                        Kind.INVALID_INPUT,
                        "The store at " + where(store) + " already holds backups of the unencrypted format (such as '"
                                + other.get() + "'), which stay readable as they are; " + Advice.EMPTY_STORE.text());
            }
        }
        // Key files of an init that stopped before its config protect nothing (no config, no repository) and
        // are deleted; a recent one may be an init running now, which must not lose its key file.
        Instant now = clock.instant();
        for (ListEntry e : leftover) {
            if (e.lastModified() != null && e.lastModified().isAfter(now.minus(INIT_GRACE))) {
                throw new BackupException(
                        Kind.UNAVAILABLE,
                        "The store at " + where(store) + " holds a key file written " + e.lastModified()
                                + " but no config: another init may be running; run init again once it has ended"
                                + " (a key file left by an init that stopped is replaced after "
                                + INIT_GRACE.toMinutes() + " minutes).");
            }
        }
        for (ListEntry e : leftover) {
            deleteKeyFile(store, e.key());
        }
        MasterKey master = MasterKey.generate();
        String keyId = writeKeyFile(store, master, password, made).id();
        RepositoryConfig config = RepositoryConfig.newRepository();
        byte[] sealed = master.seal(config.toJson(), RepositoryConfig.AAD.getBytes(StandardCharsets.US_ASCII));
        if (store.capabilities().putIfAbsent()) {
            try {
                String ours =
                        store.putIfAbsent(CONFIG, ObjectContent.ofBytes(sealed)).versionId();
                requireFirstConfig(store, ours, keyId);
            } catch (dev.ballast.storage.AlreadyExistsException e) {
                // another init won the race: its key files and config stand, ours would seal a key nobody uses
                deleteKeyFile(store, KEYS_PREFIX + keyId);
                throw new BackupException(
                        Kind.INVALID_INPUT,
                        "The store at " + where(store) + " was made a repository by another init at the same time;"
                                + " open it with that init's password.",
                        e);
            }
        } else {
            // No conditional write: each init writes its key file, then looks for another's, and only one that
            // finds none writes the config. Of two inits, the one that lists second sees the other's key file
            // (listing is strongly consistent: S3 since 2020, the local store by its index), so at most one
            // writes a config; both may step back, and are then run again.
            Optional<String> other;
            try (var keys = store.listing(ListRequest.prefix(KEYS_PREFIX))) {
                other = keys.map(ListEntry::key)
                        .filter(k -> !k.equals(KEYS_PREFIX + keyId))
                        .findFirst();
            }
            if (other.isPresent()) {
                deleteKeyFile(store, KEYS_PREFIX + keyId);
                throw new BackupException(
                        Kind.UNAVAILABLE,
                        "The store at " + where(store) + " got another key file ('" + other.get() + "') while this"
                                + " init wrote its own: another init is running at the same time; nothing of this one"
                                + " is left, run it again once that one has ended.");
            }
            store.put(CONFIG, ObjectContent.ofBytes(sealed));
        }
        return new UnlockedRepository(master, config, keyId);
    }

    /**
     * Makes sure the config version {@code ours} is the store's first: a server that says it honours
     * {@code If-None-Match: *} may still let two conditional PUTs that arrive together both succeed (S3Mock
     * did, two first backups started at once), and the later config, sealed under another master key,
     * would then make the first init's backups unreadable. Of several configs written since the newest
     * delete marker the oldest (listed last: versions come newest first) stands; a later one is removed
     * with its key file, and this init fails as one that lost the race does.
     *
     * @throws BackupException {@link Kind#UNAVAILABLE} when another init's config came first
     */
    private void requireFirstConfig(ObjectStore store, String ours, String keyId) {
        // the versions since the newest delete marker: one below it is a config removed before this init
        List<VersionEntry> configs = new ArrayList<>();
        for (VersionEntry v : store.versions(CONFIG)) {
            if (v.deleteMarker()) {
                break;
            }
            configs.add(v);
        }
        if (configs.size() > 1 && !configs.get(configs.size() - 1).versionId().equals(ours)) {
            store.deleteVersion(CONFIG, ours);
            deleteKeyFile(store, KEYS_PREFIX + keyId);
            throw new BackupException(
                    Kind.UNAVAILABLE,
                    "The store at " + where(store) + " got another config while this init wrote its own: another"
                            + " init is running at the same time; nothing of this one is left, run it again once"
                            + " that one has ended.");
        }
    }

    /**
     * Opens the repository in {@code store} with {@code password}: tries every key file (one
     * Argon2id derivation per distinct salt and parameters, the cost of an open), then opens
     * {@code config} with the master key found. Reads only; writes nothing.
     *
     * @throws BackupException {@link Kind#NO_KEY} if {@code keys/} is empty; {@link Kind#WRONG_PASSWORD}
     *     if no key file opens with the password; {@link Kind#INTEGRITY} naming the object if
     *     {@code config} is missing or damaged, or if no key file opened and one of them is damaged
     *     (not JSON, its name not its SHA-256), which may be why; {@link Kind#INVALID_INPUT} if the
     *     repository is of a format other than 3
     */
    public UnlockedRepository open(ObjectStore store, char[] password) {
        return open(store, password, null);
    }

    /**
     * As {@link #open(ObjectStore, char[])}, with {@code config} opened from {@code sealedConfig}, its
     * stored bytes as this command read them a moment before ({@link #readSealedConfig}), instead of
     * being read again; null: read from the store.
     */
    public UnlockedRepository open(ObjectStore store, char[] password, byte @Nullable [] sealedConfig) {
        return open(store, password, sealedConfig, KeyDerivationAhead.none());
    }

    /**
     * As {@link #open(ObjectStore, char[], byte[])}, taking the key of a key file whose parameters and salt
     * {@code ahead} derived with from {@code ahead} (derived from the same {@code password}) instead of
     * deriving it again, and recording in {@code ahead} which key file's parameters and salt opened the
     * repository ({@link KeyDerivationAhead#opened()}).
     */
    public UnlockedRepository open(
            ObjectStore store, char[] password, byte @Nullable [] sealedConfig, KeyDerivationAhead ahead) {
        return open(store, password, sealedConfig, ahead, null);
    }

    /**
     * As {@link #open(ObjectStore, char[], byte[], KeyDerivationAhead)}, taking the listing of the key files
     * and their bytes from {@code reads}, started ahead on {@code store} ({@link KeyFileReads#start}); null:
     * read here.
     */
    public UnlockedRepository open(
            ObjectStore store,
            char[] password,
            byte @Nullable [] sealedConfig,
            KeyDerivationAhead ahead,
            @Nullable KeyFileReads reads) {
        Objects.requireNonNull(password, "password");
        Objects.requireNonNull(ahead, "ahead");
        List<String> keyNames = reads != null ? reads.names() : store.list(KEYS_PREFIX);
        if (keyNames.isEmpty()) {
            throw noKey(store);
        }
        int found = 0;
        Map<String, byte[]> derived = new HashMap<>();
        List<String> damaged = new ArrayList<>();
        try {
            for (String name : keyNames) {
                KeyFile file;
                try {
                    file = parse(store, name, reads != null ? reads.bytes(name) : KeyFileReads.read(store, name));
                } catch (BackupException e) {
                    damaged.add(e.getMessage());
                    continue;
                } catch (dev.ballast.storage.IntegrityException e) {
                    dev.ballast.storage.IntegrityException.rethrowIfInStoreIndex(
                            e); // the store's index, not what was read
                    damaged.add(
                            "the key file '" + name + "' does not match its stored SHA-256 (" + e.getMessage() + ")");
                    continue;
                } catch (ObjectNotFoundException e) {
                    continue; // removed since it was listed (or listed though deleted)
                }
                found++;
                // (the record's own toString would link an ObjectMethods call site: ~10 ms of a command's start)
                String cacheKey = new KeyDerivationAhead.Salt(file.kdf(), file.salt()).encode();
                byte[] passwordKey =
                        derived.computeIfAbsent(cacheKey, k -> ahead.derive(password, file.kdf(), file.salt()));
                MasterKey master = file.open(passwordKey);
                if (master != null) {
                    ahead.opened(file.kdf(), file.salt());
                    return new UnlockedRepository(
                            master,
                            sealedConfig == null ? readConfig(store, master) : openConfig(store, master, sealedConfig),
                            idOf(name));
                }
            }
        } finally {
            derived.values().forEach(k -> Arrays.fill(k, (byte) 0));
        }
        if (found == 0 && damaged.isEmpty()) {
            throw noKey(store);
        }
        if (!damaged.isEmpty()) {
            throw new BackupException(
                    Kind.INTEGRITY,
                    "No key of the repository at " + where(store) + " opens with the password given, and "
                            + (damaged.size() == 1
                                    ? "one key file is damaged: "
                                    : damaged.size() + " key files are" + " damaged, the first: ")
                            + damaged.get(0));
        }
        throw new BackupException(
                Kind.WRONG_PASSWORD,
                "No key of the repository at " + where(store) + " opens with the password given; check "
                        + passwordSource + ".");
    }

    private BackupException noKey(ObjectStore store) {
        return new BackupException(
                Kind.NO_KEY,
                "The repository at " + where(store) + " has no key files (keys/ is empty or unreadable), so no"
                        + " password can open it; restore keys/ from a copy of the store.");
    }

    /**
     * The repository's {@code config}, opened with {@code master}.
     *
     * @throws BackupException {@link Kind#INTEGRITY} naming {@code config} if it is missing, was not
     *     sealed by {@code master} or changed since, or is not the JSON of a config;
     *     {@link Kind#INVALID_INPUT} if its version is not {@value RepositoryConfig#VERSION}
     */
    public RepositoryConfig readConfig(ObjectStore store, MasterKey master) {
        byte[] sealed;
        try (ObjectRead read = store.get(CONFIG, LIVE)) {
            sealed = read.readAllBytes();
        } catch (ObjectNotFoundException e) {
            throw new BackupException(
                    Kind.INTEGRITY,
                    "The repository at " + where(store) + " has key files but no config object; restore 'config'"
                            + " from a copy of the store.",
                    e);
        }
        return openConfig(store, master, sealed);
    }

    /** {@code config}'s stored bytes {@code sealed}, opened with {@code master} and checked as {@link #readConfig}. */
    private RepositoryConfig openConfig(ObjectStore store, MasterKey master, byte[] sealed) {
        byte[] plain;
        try {
            plain = master.open(sealed, RepositoryConfig.AAD.getBytes(StandardCharsets.US_ASCII));
        } catch (MasterKey.TamperedException e) {
            throw new BackupException(
                    Kind.INTEGRITY,
                    "The object 'config' of the repository at " + where(store) + " is damaged or not this"
                            + " repository's (" + e.getMessage() + "); restore it from a copy of the store.");
        }
        RepositoryConfig config;
        try {
            config = RepositoryConfig.parse(plain);
        } catch (IllegalArgumentException e) {
            throw new BackupException(
                    Kind.INTEGRITY,
                    "The object 'config' of the repository at " + where(store) + " is damaged (" + e.getMessage()
                            + "); restore it from a copy of the store.");
        }
        if (config.version() != RepositoryConfig.VERSION) {
            throw new BackupException(
                    Kind.INVALID_INPUT,
                    "The repository at " + where(store) + " is of format " + config.version()
                            + ", which this version of Ballast does not read (it reads format "
                            + RepositoryConfig.VERSION + "); use the version that wrote it.");
        }
        return config;
    }

    /**
     * Adds a key file sealing {@code current}'s master key under {@code newPassword}, with this
     * instance's KDF parameters. The new key opens the repository beside the others.
     *
     * @return the new key
     */
    public KeyInfo add(ObjectStore store, UnlockedRepository current, char[] newPassword) {
        Objects.requireNonNull(current, "current");
        Objects.requireNonNull(newPassword, "newPassword");
        return writeKeyFile(store, current.masterKey(), newPassword, KeyDerivationAhead.none());
    }

    /**
     * The keys of the repository, oldest first, {@code currentId}'s marked current. Reads every key
     * file (no KDF: quick).
     *
     * A key file that cannot be read (damaged, or another object under {@code keys/}) is listed last, with
     * its {@link KeyInfo#damage()}, so that it can be seen and removed ({@link #remove}): it was a failure
     * of the whole listing, and of {@code key remove}, whose advice for it was to remove it.
     *
     * @param currentId the ID of the key in use ({@link UnlockedRepository#keyId()}), or null
     */
    public List<KeyInfo> list(ObjectStore store, @Nullable String currentId) {
        List<KeyInfo> keys = new ArrayList<>();
        for (String name : store.list(KEYS_PREFIX)) {
            String id = idOf(name);
            KeyFile f;
            try {
                f = read(store, name);
            } catch (BackupException e) {
                keys.add(damaged(id, e.getMessage()));
                continue;
            } catch (dev.ballast.storage.IntegrityException e) {
                dev.ballast.storage.IntegrityException.rethrowIfInStoreIndex(e);
                keys.add(damaged(id, "it does not match its stored SHA-256"));
                continue;
            } catch (ObjectNotFoundException e) {
                continue; // removed since it was listed
            }
            keys.add(new KeyInfo(id, f.created(), f.host(), f.username(), f.kdf(), id.equals(currentId)));
        }
        keys.sort(Comparator.comparing((KeyInfo k) -> k.damage() != null)
                .thenComparing(KeyInfo::created)
                .thenComparing(KeyInfo::id));
        return List.copyOf(keys);
    }

    /** A key file that cannot be read, as {@link #list} shows it: the clause of {@code message} that says why. */
    private static KeyInfo damaged(String id, String message) {
        int at = message.indexOf(" is damaged: ");
        String why = at < 0 ? message : message.substring(at + " is damaged: ".length());
        int end = why.indexOf("; ");
        why = end < 0 ? why : why.substring(0, end);
        if (why.endsWith(".")) {
            why = why.substring(0, why.length() - 1);
        }
        return new KeyInfo(id, Instant.EPOCH, "", "", null, false, why);
    }

    /**
     * Removes the key whose ID starts with {@code idPrefix}, every stored version of its key file (on
     * a versioned store a delete marker alone would leave the old password able to open it). Never
     * the key in use (restic refuses it too: change its password with {@link #changePassword}, or
     * open with another key), so never the last one.
     *
     * @return the key removed
     * @throws BackupException {@link Kind#NOT_FOUND} if no key ID starts with {@code idPrefix};
     *     {@link Kind#INVALID_INPUT} if it is empty or not hex, matches several keys, or names the key
     *     in use or the last key
     */
    public KeyInfo remove(ObjectStore store, UnlockedRepository current, String idPrefix) {
        Objects.requireNonNull(current, "current");
        String prefix = idPrefix.trim().toLowerCase(java.util.Locale.ROOT);
        List<KeyInfo> keys = list(store, current.keyId());
        // another object under keys/ that key list shows as damaged (keys/junk) goes by its whole name
        List<KeyInfo> named = keys.stream()
                .filter(k -> k.damage() != null && k.id().equals(idPrefix.trim()))
                .toList();
        if (named.isEmpty() && (prefix.isEmpty() || !prefix.matches("[0-9a-f]{1,64}"))) {
            throw new BackupException(
                    Kind.INVALID_INPUT,
                    "'" + idPrefix + "' is not a key ID; give the ID (or its first characters) that "
                            + Advice.KEY_LIST.text() + ".");
        }
        List<KeyInfo> matches = !named.isEmpty()
                ? named
                : keys.stream().filter(k -> k.id().startsWith(prefix)).toList();
        if (matches.isEmpty()) {
            throw new BackupException(
                    Kind.NOT_FOUND,
                    "No key of the repository at " + where(store) + " has an ID starting with '" + prefix + "'; "
                            + Advice.KEY_LIST.text() + " them.");
        }
        if (matches.size() > 1) {
            throw new BackupException(
                    Kind.INVALID_INPUT,
                    "'" + prefix + "' matches " + matches.size() + " keys ("
                            + String.join(
                                    ", ", matches.stream().map(KeyInfo::shortId).toList())
                            + "); give more characters of the ID.");
        }
        KeyInfo key = matches.get(0);
        if (keys.size() == 1) {
            throw new BackupException(
                    Kind.INVALID_INPUT,
                    "Key " + key.shortId() + " is the only key of the repository at " + where(store)
                            + ", and without a key nothing in it can be read again; add another with "
                            + Advice.KEY_ADD.text() + " first.");
        }
        if (key.current()) {
            throw new BackupException(
                    Kind.INVALID_INPUT,
                    "Key " + key.shortId() + " is the key in use (its password opened the repository); to replace"
                            + " its password use " + Advice.KEY_PASSWD.text()
                            + ", or give another key's password to remove it.");
        }
        deleteKeyFile(store, KEYS_PREFIX + key.id());
        return key;
    }

    /**
     * Changes the password of the key in use: adds a key file under {@code newPassword} first, then
     * removes the current one (so the repository never has no key: a crash between the two leaves
     * both passwords working).
     *
     * @return the repository as opened by the new key
     */
    public UnlockedRepository changePassword(ObjectStore store, UnlockedRepository current, char[] newPassword) {
        Objects.requireNonNull(current, "current");
        String id = writeKeyFile(store, current.masterKey(), newPassword, KeyDerivationAhead.none())
                .id();
        if (!id.equals(current.keyId())) {
            deleteKeyFile(store, KEYS_PREFIX + current.keyId());
        }
        return new UnlockedRepository(current.masterKey(), current.config(), id);
    }

    private KeyInfo writeKeyFile(ObjectStore store, MasterKey master, char[] password, KeyDerivationAhead made) {
        byte[] salt = new byte[KdfParameters.SALT_BYTES];
        RANDOM.nextBytes(salt);
        byte[] passwordKey = kdf.derive(password, salt);
        made.opened(kdf, salt);
        try {
            KeyFile file = KeyFile.seal(
                    master, passwordKey, kdf, salt, clock.instant().truncatedTo(ChronoUnit.SECONDS), host, username);
            byte[] json = file.toJson();
            String name = KeyFile.objectKey(json);
            store.put(name, ObjectContent.ofBytes(json));
            return new KeyInfo(idOf(name), file.created(), host, username, kdf, false);
        } finally {
            Arrays.fill(passwordKey, (byte) 0);
        }
    }

    private static void deleteKeyFile(ObjectStore store, String name) {
        List<VersionEntry> versions = store.versions(name);
        try {
            for (VersionEntry v : versions) {
                store.deleteVersion(name, v.versionId());
            }
        } catch (UnsupportedCapabilityException e) {
            store.delete(name);
        }
    }

    /** The key file {@code name}, checked against its name. */
    private KeyFile read(ObjectStore store, String name) {
        return parse(store, name, KeyFileReads.read(store, name));
    }

    /** The key file {@code name} of {@code store} from its stored bytes {@code json}, checked against its name. */
    private KeyFile parse(ObjectStore store, String name, byte[] json) {
        if (!name.equals(KeyFile.objectKey(json))) {
            throw new BackupException(
                    Kind.INTEGRITY,
                    "the key file '" + name + "' in the repository at " + where(store) + " is damaged: its SHA-256 is"
                            + " not its name; restore it from a copy of the store, or remove it with "
                            + Advice.KEY_REMOVE.text() + ".");
        }
        try {
            return KeyFile.parse(json);
        } catch (IllegalArgumentException e) {
            throw new BackupException(
                    Kind.INTEGRITY,
                    "the key file '" + name + "' in the repository at " + where(store) + " is damaged: "
                            + e.getMessage() + ".");
        }
    }

    private static String idOf(String name) {
        return name.substring(KEYS_PREFIX.length());
    }

    private String where(ObjectStore store) {
        if (where != null) {
            return where;
        }
        URI endpoint = store.capabilities().endpoint();
        if (endpoint == null) {
            return "bucket '" + store.capabilities().bucket() + "'";
        }
        if ("file".equals(endpoint.getScheme())) {
            return Path.of(endpoint).toString();
        }
        return endpoint + ", bucket '" + store.capabilities().bucket() + "'";
    }

    /**
     * A repository opened by a password: its master key, its config, and the ID of the key file the
     * password opened (the key "in use").
     *
     * @param masterKey what seals and opens everything in the repository; pass it to the engine
     * @param config the repository's config
     * @param keyId the 64-hex ID of the key file that opened it
     */
    public record UnlockedRepository(MasterKey masterKey, RepositoryConfig config, String keyId) {
        /** Checks for nulls. */
        public UnlockedRepository {
            Objects.requireNonNull(masterKey, "masterKey");
            Objects.requireNonNull(config, "config");
            Objects.requireNonNull(keyId, "keyId");
        }
    }

    /**
     * One key, as {@code key list} shows it.
     *
     * @param id the 64-hex ID (the SHA-256 of its key file); for a damaged key file, whatever its object
     *     is named after {@code keys/}
     * @param created when it was added (seconds); {@link Instant#EPOCH} for a damaged key file
     * @param host where it was added (empty for a damaged key file)
     * @param username who added it (empty for a damaged key file)
     * @param kdf its password's Argon2id parameters; null for a damaged key file
     * @param current whether it is the key in use
     * @param damage why its key file cannot be read (its SHA-256 is not its name, it is not a key file's
     *     JSON), or null: a key that opens with its password
     */
    public record KeyInfo(
            String id,
            Instant created,
            String host,
            String username,
            @Nullable KdfParameters kdf,
            boolean current,
            @Nullable String damage) {
        /** A key whose key file reads. */
        public KeyInfo(String id, Instant created, String host, String username, KdfParameters kdf, boolean current) {
            this(id, created, host, username, kdf, current, null);
        }

        /** The first {@value KeyFiles#SHORT_ID} hex digits of the ID, as {@code key list} shows it. */
        public String shortId() {
            return id.substring(0, Math.min(SHORT_ID, id.length()));
        }
    }
}
