package dev.ballast.cli;

import dev.ballast.backup.keys.KdfParameters;
import dev.ballast.backup.keys.KeyDerivationAhead;
import dev.ballast.backup.keys.KeyFileReads;
import dev.ballast.backup.keys.KeyFiles;
import dev.ballast.backup.keys.MasterKey;
import dev.ballast.backup.keys.Passwords;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.PartFiles;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.local.LocalObjectStore;
import dev.ballast.storage.object.local.LocalStoreConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The object store one command works on, through {@link StorageFacade}: by default a
 * {@link LocalObjectStore} in {@code DATA-DIR/BUCKET} ({@code ~/.ballast/ballast-backups}), opened
 * as its one writer by {@code backup} and read-only (beside a running backup) by the other
 * commands; with {@code --endpoint}, an S3 bucket (created with versioning on first use) reached
 * through one {@link ResilientHttpClient}, the one layer that retries, with an attempt timeout and a
 * total timeout per operation, and reads served from the last-known-good cache, marked and counted,
 * when the endpoint is unavailable.
 */
final class StoreSession implements AutoCloseable {

    /** What the command does with the store. */
    enum Access {
        /** Writes new versions: the local store's writer lock is taken. */
        WRITE,
        /**
         * Removes versions (forget, prune): the writer lock is taken, and on a full disk the local
         * store's space reserve may be used, since removing is what frees space.
         */
        REMOVE,
        /**
         * Writes into a store that must already exist (keys, unlock, {@code verify --repair}): the writer lock
         * is taken, and a store that does not exist is reported missing (exit 5), not created.
         */
        UPDATE,
        /** Only reads: any number of readers run beside the writer. */
        READ
    }

    /** Where a data directory of the earlier embedded S3 server kept its file store. */
    static final String OLD_S3MOCK_FOLDER = "s3";

    /** How long a backup trusts what the capability probe found about an endpoint's server. */
    static final Duration PROBE_FINDINGS_TRUSTED = Duration.ofHours(24);

    /** S3's bucket naming rules, which also keep a bucket name a safe single directory name. */
    private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");

    private final @Nullable ResilientHttpClient http;
    private final @Nullable StorageFacade facade;
    private final ObjectStore objects;
    private final @Nullable HttpCounting counting;
    private final String where;
    /** The local store's directory, or null for an S3 bucket. */
    private final @Nullable Path localDirectory;
    /** The repository unlocked by the password, or null for a store of the earlier formats (or before unlocking). */
    private KeyFiles.@Nullable UnlockedRepository repository;
    /**
     * The stored bytes of the repository's {@code config} as this session first read them, or null
     * before it found one: read once per command ({@link #isRepository}), not once to see that the store
     * is a repository, again before unlocking and a third time to open it.
     */
    private byte @Nullable [] sealedConfig;
    /** Where this command may keep local copies of what it reads ({@link CliContext#cacheDir}), or null for none. */
    private @Nullable Path cacheDir;
    /** The selector thread of {@link #http}'s JDK client, stopped after it is closed ({@link HttpSelectorThreads}). */
    private @Nullable HttpSelectorThreads selectors;

    private StoreSession(
            @Nullable ResilientHttpClient http,
            @Nullable StorageFacade facade,
            ObjectStore objects,
            @Nullable HttpCounting counting,
            String where,
            @Nullable Path localDirectory) {
        this.http = http;
        this.facade = facade;
        this.objects = objects;
        this.counting = counting;
        this.where = where;
        this.localDirectory = localDirectory;
    }

    /**
     * A session on an S3 bucket ({@link S3StoreOpening}): it closes {@code http} and then stops
     * {@code selectors} when it is closed.
     */
    static StoreSession ofS3(
            ResilientHttpClient http,
            HttpSelectorThreads selectors,
            StorageFacade facade,
            HttpCounting counting,
            String where,
            Path cacheDir) {
        StoreSession session = new StoreSession(http, facade, facade.objects(), counting, where, null);
        session.cacheDir = cacheDir;
        session.selectors = selectors;
        return session;
    }

    /** The local store's directory (absolute, normalised), or null when the store is an S3 bucket. */
    @Nullable
    Path localDirectory() {
        return localDirectory;
    }

    /**
     * Opens the store the options name for {@code access} and, when it is an encrypted repository
     * (format 3: it has {@code config}), unlocks it: the password from {@code --password-file},
     * {@code --password-command}, {@code BALLAST_PASSWORD} or the terminal ({@link #passwordSources}),
     * then its master key ({@link #masterKey()}). A store of the earlier formats needs no password.
     * An empty store stays empty: only {@link NewStore#openForBackup} makes one a repository, so that
     * {@code unlock}, {@code key add} or {@code verify --repair-from} on a mistyped store create none.
     *
     * @throws CliFailure exit 12 for a wrong password or a repository without key files, 2 when no
     *     password was given, 4 for a damaged key file or config, and the store's own failures
     */
    static StoreSession open(CommonOptions o, CliContext ctx, Access access) {
        return open(o, ctx, access, false);
    }

    /**
     * Whether {@code backup} first makes an empty store an encrypted repository, as restic, kopia and
     * borg begin every repository encrypted: the password as for {@code init}
     * ({@link Passwords#forNewRepository}), a note on standard error with the repository's ID. True
     * since issue 22; {@code backup --insecure-no-encryption} keeps a new store of the earlier,
     * unencrypted format ({@link NewStore#openForBackup}).
     */
    static final boolean ENCRYPT_NEW_STORES = true;

    /**
     * Whether the store is new: it holds no object Ballast wrote ({@link KeyFiles#isBallastObject}: no
     * {@code config}, no manifest or other object of the earlier format, no pack, index file or snapshot)
     * other than key files (an init that stopped); another program's objects do not count, so a bucket
     * shared with one becomes an encrypted repository, not a store of the earlier format. One read of
     * {@code config}, then one listing, stopped at the first such object.
     */
    boolean holdsNothingButKeys() {
        if (isRepository()) {
            return false; // one read, before a listing that may pass many of another program's objects
        }
        try (var all = objects.listing(dev.ballast.storage.object.ListRequest.all())) {
            // a key file by its shape: a backup of the earlier format named 'keys' stores its files under keys/ too
            // (a fault tester's second backup of such a store took it for a new one and tried to make it a repository)
            return all.noneMatch(e -> !KeyFiles.isKeyFile(e.key()) && KeyFiles.isBallastObject(e.key()));
        }
    }

    /**
     * Whether the store is a repository of format 3 ({@link KeyFiles#readSealedConfig}): its
     * {@code config} read the first time it is found, and kept for {@link #unlock}; not found, it is
     * asked again the next time (an init may have made it one meanwhile).
     */
    private boolean isRepository() {
        if (sealedConfig == null) {
            sealedConfig = KeyFiles.readSealedConfig(objects);
        }
        return sealedConfig != null;
    }

    /**
     * As {@link #open(CommonOptions, CliContext, Access)}; with {@code initIfEmpty}, a new store
     * ({@link #holdsNothingButKeys}) is first made an encrypted repository.
     */
    static StoreSession open(CommonOptions o, CliContext ctx, Access access, boolean initIfEmpty) {
        String place = o.unlocked == null ? cachePlace(o, ctx) : null;
        KeySaltCache salts = new KeySaltCache(ctx.cacheDir(), ctx.clock());
        KeyDerivationAhead.Salt remembered = place == null ? null : salts.read(place);
        // With the salt of the key that opened this store last time, and a password that can be read without
        // running a command or asking, the key's derivation starts now and runs while the store is opened.
        char[] early = remembered == null ? null : Passwords.withoutAsking(passwordSources(o, ctx));
        if (early != null) {
            requireHeapFor(java.util.Objects.requireNonNull(remembered).kdf().memoryKiB());
        }
        KeyDerivationAhead ahead = early == null
                ? KeyDerivationAhead.none()
                : KeyDerivationAhead.start(early, java.util.Objects.requireNonNull(remembered));
        try {
            StoreSession session = openWithoutKey(o, ctx, access);
            try {
                if (initIfEmpty) {
                    session.initIfEmpty(o, ctx, ahead);
                }
                session.unlock(o, ctx, early, ahead);
                KeyDerivationAhead.Salt opened = ahead.opened();
                if (place != null && opened != null && !opened.equals(remembered)) {
                    salts.remember(place, opened);
                } else if (place != null && opened == null && remembered != null) {
                    // No key file opened or made here: a store of the unencrypted format; the next command
                    // derives nothing ahead for it.
                    salts.forget(place);
                }
                return session;
            } catch (RuntimeException e) {
                session.close();
                throw e;
            }
        } finally {
            ahead.close();
            if (early != null) {
                java.util.Arrays.fill(early, '\0');
            }
        }
    }

    /**
     * The store the options name, as {@link KeySaltCache} names it: the local store's directory, or the
     * endpoint and bucket; null when the options do not make one (the open then says why).
     */
    static @Nullable String cachePlace(CommonOptions o, CliContext ctx) {
        try {
            return o.endpoint == null ? localStoreDirectory(o, ctx).toString() : o.endpoint + " " + o.bucket;
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Opens the store as {@link #open} does, without looking for a repository's key: for {@code init}. */
    static StoreSession openWithoutKey(CommonOptions o, CliContext ctx, Access access) {
        checkBucket(o);
        return o.endpoint == null ? openLocal(o, ctx, access) : S3StoreOpening.open(o, ctx, access);
    }

    /**
     * Where a password comes from for this command: its {@code --password-file} and
     * {@code --password-command}, the environment, and the terminal ({@link java.io.Console}, no echo)
     * when the command runs on one.
     */
    static Passwords.Sources passwordSources(CommonOptions o, CliContext ctx) {
        return new Passwords.Sources(o.passwordFile, o.passwordCommand, ctx.env(), terminalPrompt(ctx));
    }

    /** The terminal as a password prompt, or null when the command does not run on one (tests, cron, pipes). */
    static Passwords.@Nullable Prompt terminalPrompt(CliContext ctx) {
        java.io.Console console = ctx.terminal() ? System.console() : null;
        return console == null ? null : prompt -> console.readPassword("%s", prompt);
    }

    /** The key files of this store, named in messages as the CLI names the store. */
    KeyFiles keyFiles() {
        return KeyFiles.create().describedAs(repositoryPlace());
    }

    /**
     * The key files of this store as {@link #keyFiles()}, a wrong password's advice naming where the
     * password came from ({@link Passwords#source}): the prompt, {@code BALLAST_PASSWORD}, the file or
     * the command.
     */
    private KeyFiles keyFiles(Passwords.Sources passwordFrom) {
        String source = Passwords.source(passwordFrom);
        return source == null ? keyFiles() : keyFiles().withPasswordSource(source);
    }

    /** The store as key messages name it: the local store's directory, or the endpoint and bucket. */
    private String repositoryPlace() {
        if (localDirectory != null) {
            return localDirectory.toString();
        }
        return where.replaceFirst("^the S3 endpoint ", "");
    }

    private void initIfEmpty(CommonOptions o, CliContext ctx, KeyDerivationAhead made) {
        boolean empty = Errors.translate(where, null, this::holdsNothingButKeys);
        if (!empty || o.unlocked != null) {
            return;
        }
        char[] password = o.newRepositoryPassword != null
                ? o.newRepositoryPassword.clone()
                : Passwords.forNewRepository(passwordSources(o, ctx));
        try {
            try {
                repository = deriving(
                        () -> Errors.translate(where, null, () -> keyFiles().init(objects, password, made)));
            } catch (dev.ballast.backup.BackupException e) {
                // Another first backup (or init) made it a repository while this one looked: open that one with
                // the password given, so both store into one repository under one master key (a wrong password is
                // exit 12, as for any repository); not yet a repository, the refusal stands.
                if (!Errors.translate(where, null, () -> KeyFiles.isRepository(objects))) {
                    throw e;
                }
                repository = deriving(() -> Errors.translate(
                        where, null, () -> keyFiles(passwordSources(o, ctx)).open(objects, password)));
                o.unlocked = repository;
                return;
            }
            o.unlocked = repository;
        } finally {
            java.util.Arrays.fill(password, '\0');
        }
        ctx.err()
                .println("Created the encrypted repository "
                        + repository.config().id() + " in " + where
                        + "; keep the password safe: without it nothing in it can be read back.");
    }

    /**
     * Runs {@code call}, which derives a key from the password (Argon2id, 64 MiB of memory by default,
     * docs/backup-format.md), turning the heap running out into one sentence (exit 2) instead of an
     * {@link OutOfMemoryError}'s stack trace: the JVM was started with too small a heap ({@code -Xmx}).
     */
    static <T> T deriving(java.util.function.Supplier<T> call) {
        try {
            T result = call.get();
            // Argon2id's 64 MiB of blocks outlive several young collections while it runs, so they are
            // copied into the old generation, where they stay as garbage the rest of the command never
            // collects: its later promotions then touched fresh memory. One full collection now (the
            // heap holds little else yet) frees them for reuse: peak RSS 45-60 MB lower for backups of
            // every kind measured, CPU no higher (alternating runs, -XX:+DisableExplicitGC as control).
            System.gc();
            return result;
        } catch (OutOfMemoryError e) {
            throw heapTooSmall(KdfParameters.DEFAULT.memoryKiB(), e);
        }
    }

    /**
     * What the command holds on the heap beside Argon2id's memory while the key is derived ahead: its
     * classes' objects, the store's first requests, the cipher warm-up. With the launcher's collector
     * settings a list or a restore with the default 64 MiB derived ahead ran out of heap in some runs at
     * {@code -Xmx72m} (a maximum heap of 68.8 MiB) and never at {@code -Xmx80m} (76.8 MiB).
     */
    static final long HEAP_BESIDE_KDF = 12L << 20;

    /**
     * Refuses, before any derivation starts, a maximum heap ({@link Runtime#maxMemory()}) too small for a
     * derivation of {@code memoryKiB} beside the command's own objects ({@link #HEAP_BESIDE_KDF}): started,
     * it ran out of heap on whichever thread allocated next (the main thread, the cipher warm-up's), each
     * printing a Java error of its own, and a class whose initialisation ran out of heap then failed every
     * later use with {@code NoClassDefFoundError}.
     *
     * @throws CliFailure exit 2, one sentence
     */
    static void requireHeapFor(int memoryKiB) {
        requireHeapFor(memoryKiB, Runtime.getRuntime().maxMemory());
    }

    /** {@link #requireHeapFor(int)} with a maximum heap of {@code maxHeap} bytes ({@code Long.MAX_VALUE}: no limit). */
    static void requireHeapFor(int memoryKiB, long maxHeap) {
        if (maxHeap != Long.MAX_VALUE && maxHeap < memoryKiB * 1024L + HEAP_BESIDE_KDF) {
            throw heapTooSmall(memoryKiB, null);
        }
    }

    private static CliFailure heapTooSmall(int memoryKiB, @Nullable OutOfMemoryError e) {
        return new CliFailure(
                ExitCodes.USAGE,
                "The Java heap is too small to derive the key from the password (Argon2id takes "
                        + (memoryKiB % 1024 == 0 ? memoryKiB / 1024 + " MiB" : memoryKiB + " KiB")
                        + " of memory): give the JVM a larger heap, at least -Xmx128m (in BALLAST_JAVA_OPTS), and run"
                        + " the command again.",
                e);
    }

    void unlock(CommonOptions o, CliContext ctx) {
        unlock(o, ctx, null, KeyDerivationAhead.none());
    }

    /**
     * As {@link #unlock(CommonOptions, CliContext)}, with the password {@code early} when it was read
     * already (a copy is taken; null: read now) and the key of a key file derived {@code ahead}, which records
     * which key file opened.
     */
    private void unlock(CommonOptions o, CliContext ctx, char @Nullable [] early, KeyDerivationAhead ahead) {
        if (o.unlocked != null) {
            repository = o.unlocked; // a second session of the same command (reader, then writer)
            return;
        }
        // A store known for a repository here (its key's salt remembered): the key files are listed and read
        // while its config is, instead of after it.
        KeyFileReads reads = ahead.ahead() != null ? KeyFileReads.start(objects) : null;
        boolean encrypted = Errors.translate(where, null, this::isRepository);
        if (!encrypted) {
            KdfParameters.releasePrepared(); // no key to derive: the heap gets the 64 MiB allocated ahead back
            Errors.translate(where, null, () -> {
                KeyFiles.requireNoRepositoryRemains(objects, "at " + where); // "The store at the S3 endpoint ..."
                return null;
            });
            warnIfPasswordUnused(o, ctx);
            return;
        }
        char[] password = early != null ? early.clone() : Passwords.current(passwordSources(o, ctx));
        byte[] config = sealedConfig;
        try {
            repository = deriving(() -> Errors.translate(
                    where,
                    null,
                    () -> keyFiles(passwordSources(o, ctx)).open(objects, password, config, ahead, reads)));
            o.unlocked = repository;
        } finally {
            java.util.Arrays.fill(password, '\0');
        }
    }

    /**
     * On a store of the earlier, unencrypted format, says once per command on standard error that a
     * password given explicitly ({@code --password-file}, {@code --password-command},
     * {@code BALLAST_PASSWORD}, {@code BALLAST_PASSWORD_FILE}, {@code BALLAST_PASSWORD_COMMAND}; not the
     * terminal, which is never asked here) is not used, so no one believes a backup encrypted that is not.
     */
    private void warnIfPasswordUnused(CommonOptions o, CliContext ctx) {
        if (o.unusedPasswordWarned
                || !Passwords.anyGiven(new Passwords.Sources(o.passwordFile, o.passwordCommand, ctx.env(), null))) {
            return;
        }
        if (Errors.translate(where, null, this::holdsNothingButKeys)) {
            return; // a new store, which holds no backup of the earlier format (nor of any)
        }
        o.unusedPasswordWarned = true;
        ctx.err()
                .println("Warning: " + where
                        + " is of the earlier, unencrypted format, so the password given is not used and backups"
                        + " stored there stay unencrypted; for an encrypted repository back up into a new store"
                        + " (" + o.anotherStore() + "), or run 'ballast init' on an empty one; leave the password"
                        + " out to silence this.");
    }

    /**
     * The master key of the encrypted repository this session opened, or null when the store is of
     * the earlier, unencrypted formats (no {@code config} object; a new store is one only when
     * {@code backup --insecure-no-encryption} wrote it). Set when {@link #open} returns: the password was
     * obtained and checked by then, so a command never sees a store whose key it lacks. For the
     * engine: non-null means read and write format 3 (sealed packs, index and manifests, format.md)
     * with this key; null means the earlier formats' code paths, unchanged.
     */
    @Nullable
    MasterKey masterKey() {
        return repository == null ? null : repository.masterKey();
    }

    /**
     * The local copies of the repository's manifest parts ({@link PartFiles}) for a repository of format
     * 3 in an S3 bucket: {@code CACHE/repositories/<repository ID>/manifest-parts}, with CACHE
     * {@code $XDG_CACHE_HOME/ballast} ({@code ~/.cache/ballast}); null for the local store (its parts
     * are local files already) and before unlocking.
     */
    @Nullable
    PartFiles partFiles() {
        if (cacheDir == null
                || repository == null
                || !REPOSITORY_ID.matcher(repository.config().id()).matches()) {
            return null;
        }
        return new PartFiles(cacheDir.resolve("repositories")
                .resolve(repository.config().id())
                .resolve("manifest-parts"));
    }

    private static final Pattern REPOSITORY_ID = Pattern.compile("[0-9a-f]{64}");

    /**
     * The unlocked repository (master key, config with its ID and pack size, the ID of the key in
     * use), or null as for {@link #masterKey()}.
     */
    KeyFiles.@Nullable UnlockedRepository repository() {
        return repository;
    }

    private static void checkBucket(CommonOptions o) {
        if (o.localRepo && o.endpoint == null) {
            return; // the store's directory named whole by --repo: its name is the user's, not a bucket's
        }
        // S3's bucket naming rules (https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html),
        // for the local store's directory too; the S3 SDK refuses other names with a message of its own.
        if (!BUCKET.matcher(o.bucket).matches() || o.bucket.contains("..")) {
            throw new CliFailure(
                    ExitCodes.USAGE,
                    "The bucket name '" + o.bucket + "' is not usable: pass one (--bucket, or BUCKET in --repo"
                            + " s3:URL/BUCKET) of 3 to 63 lowercase letters, digits, dots and hyphens, starting and ending"
                            + " with a letter or digit, no two dots in a row.");
        }
    }

    /**
     * {@code dir} with a leading {@code ~} (alone or before a slash) taken as the home directory, as a
     * shell would have expanded it: it reaches us unexpanded in {@code --data-dir=~/backups}, where the
     * shell expands nothing, and a directory literally named {@code ~} in the current one is never
     * what was meant.
     */
    static Path withHome(Path dir, Path home) {
        String s = dir.toString();
        if (s.equals("~")) {
            return home;
        }
        return s.startsWith("~/") ? home.resolve(s.substring(2)) : dir;
    }

    /** The data directory the options name: {@code --data-dir} (a leading {@code ~} expanded) or {@code ~/.ballast}. */
    private static Path dataDirectory(CommonOptions o, CliContext ctx) {
        if (o.dataDir != null && o.dataDir.toString().isBlank()) {
            throw new CliFailure(
                    ExitCodes.USAGE,
                    "--data-dir is empty: pass a directory for the local store, or leave the"
                            + " option out to use ~/.ballast.");
        }
        return (o.dataDir != null ? withHome(o.dataDir, ctx.home()) : ctx.home().resolve(".ballast"))
                .toAbsolutePath()
                .normalize();
    }

    /** The local store's directory the options name: {@code DATA-DIR/BUCKET}; nothing is opened or created. */
    static Path localStoreDirectory(CommonOptions o, CliContext ctx) {
        checkBucket(o);
        return dataDirectory(o, ctx).resolve(o.bucket);
    }

    private static StoreSession openLocal(CommonOptions o, CliContext ctx, Access access) {
        Path dataDir = dataDirectory(o, ctx);
        Path storeDir = dataDir.resolve(o.bucket);
        String where = "the local store " + storeDir;
        if (!dev.ballast.backup.tree.Names.validUtf8(dev.ballast.backup.tree.Names.bytes(storeDir.toAbsolutePath()))) {
            // SQLite takes its file's path as UTF-8: it could open no index there, after the directory was made
            throw new CliFailure(
                    ExitCodes.USAGE,
                    "The local store's path "
                            + dev.ballast.backup.tree.Names.name(storeDir.toAbsolutePath())
                            + " is not valid UTF-8, which the store's index (SQLite) cannot open; pass "
                            + (o.localRepo ? "--repo (or BALLAST_REPOSITORY)" : "--data-dir")
                            + " with a directory whose path is UTF-8"
                            + " (the files backed up may have any names).");
        }
        boolean exists = LocalObjectStore.exists(storeDir);
        // Only for a data directory: under -r the parent is the user's own folder, whose 's3' may be anything
        // (a tester's: -r into a folder beside an 's3' directory was refused, pointing to --data-dir).
        if (!exists && !o.localRepo && Files.isDirectory(dataDir.resolve(OLD_S3MOCK_FOLDER))) {
            throw new CliFailure(
                    ExitCodes.USAGE,
                    "The data directory '" + dataDir + "' holds backups in the layout of the "
                            + "S3Mock server that earlier builds of ballast embedded ("
                            + dataDir.resolve(OLD_S3MOCK_FOLDER) + "), which this version "
                            + "no longer runs: restore them with such a build if you need them, then move that directory aside (or pass "
                            + "another --data-dir) to keep new backups in the local store.");
        }
        if (o.localRepo && Files.isSymbolicLink(storeDir) && !Files.exists(storeDir)) {
            // a tester's: exit 3, "Could not use the local store X: X"
            throw new CliFailure(
                    ExitCodes.USAGE,
                    o.repoSource + " " + storeDir + " is a symbolic link to " + linkTarget(storeDir)
                            + ", which does not exist; make that directory, or give the store's directory itself.");
        }
        if (o.localRepo && Files.exists(storeDir) && !Files.isDirectory(storeDir)) {
            // a tester's -r /etc/passwd (exit 3, "Could not use the local store /etc/passwd: /etc/passwd") and
            // -r /dev/null ("no bucket 'null' in the data directory")
            throw new CliFailure(
                    ExitCodes.USAGE,
                    o.repoSource + " " + storeDir + " is a file, not a directory; give the store's directory (a new"
                            + " one is made by the first backup or 'ballast init').");
        }
        if (!exists && o.localRepo) {
            // --repo inside a store (its blobs/ folder, say): a backup would make a second store in the first.
            for (Path up = storeDir.getParent(); up != null; up = up.getParent()) {
                if (LocalObjectStore.exists(up)) {
                    throw new CliFailure(
                            ExitCodes.USAGE,
                            "'" + storeDir + "' is inside the local store " + up + ", so a store there would be a"
                                    + " second store inside the first; pass --repo " + up + " (nothing was created).");
                }
            }
        }
        if (!exists && (LocalObjectStore.exists(dataDir) || LocalObjectStore.holdsContentWithoutIndex(dataDir))) {
            // The store's own directory given as --data-dir (as restic's -r names its repository): a backup would
            // make a second, empty store inside it and its password a new repository, with exit 0.
            Path parent = dataDir.getParent();
            throw new CliFailure(
                    ExitCodes.USAGE,
                    "The data directory '" + dataDir + "' is itself a local store (the bucket '"
                            + dataDir.getFileName() + "' of the data directory '" + parent + "'), so '"
                            + o.bucket + "' in it would be a second store inside the first; pass --data-dir "
                            + parent
                            + (dataDir.getFileName().toString().equals(CommonOptions.DEFAULT_BUCKET)
                                    ? ""
                                    : " --bucket " + dataDir.getFileName())
                            + " (nothing was created).");
        }
        if (!exists && o.localRepo && LocalObjectStore.exists(storeDir.resolve(CommonOptions.DEFAULT_BUCKET))) {
            // --data-dir's directory given as --repo: a backup would make a second store beside the one in it.
            throw new CliFailure(
                    ExitCodes.USAGE,
                    "'" + storeDir + "' is a data directory holding the local store "
                            + storeDir.resolve(CommonOptions.DEFAULT_BUCKET) + "; pass --repo "
                            + storeDir.resolve(CommonOptions.DEFAULT_BUCKET) + " (nothing was created).");
        }
        if (!exists && LocalObjectStore.holdsContentWithoutIndex(storeDir)) {
            throw new CliFailure(
                    ExitCodes.INTEGRITY,
                    "The local store " + storeDir + " holds stored content but no index ("
                            + storeDir.resolve("index.db")
                            + (Files.exists(storeDir.resolve("index.db"), LinkOption.NOFOLLOW_LINKS)
                                    ? ", where something other than a file stands"
                                    : ", which was deleted or lost")
                            + "), so its backups can be neither listed nor "
                            + "restored; run 'ballast repair index' to rebuild it from the store's journal, or restore that"
                            + " directory from a copy (nothing was changed).");
        }
        if (!exists && unreadable(storeDir)) {
            // Another user's store (mode 700, say): not "no store here", which would send the user looking elsewhere.
            throw new CliFailure(
                    ExitCodes.USAGE,
                    "The local store " + storeDir + " cannot be read by this user (permission denied); run the"
                            + " command as the user who owns it, or give this user access to it (nothing was changed).");
        }
        if (!exists && access != Access.WRITE) {
            // Nothing was ever backed up here, or --data-dir or --bucket is mistyped: a command that reads or removes
            // says so (exit 5, as S3 does for a missing bucket) and creates nothing.
            readableDataDir(dataDir);
            throw new CliFailure(
                    ExitCodes.NOT_FOUND,
                    "There is no local store at " + storeDir + " ("
                            + (Files.isDirectory(dataDir)
                                    ? "no bucket '" + o.bucket + "' in the data directory"
                                    : "no data directory " + dataDir)
                            + "); check " + (o.localRepo ? "--repo" : "--data-dir and --bucket")
                            + " (the first backup into a store creates it).");
        }
        if (access != Access.READ) {
            if (o.localRepo && Files.isDirectory(storeDir)) {
                // --repo names the store itself, which may be a read-only mount inside a writable folder, or a
                // writable one (a mount point) inside a read-only folder: only the store's own directory counts
                usableStore(storeDir);
            } else {
                usableDataDir(dataDir, o);
            }
        }
        LocalStoreConfig config = LocalStoreConfig.builder()
                .readOnly(access == Access.READ)
                .forRemoval(access == Access.REMOVE)
                .ownFiles(StoreSession::ownFile)
                .clock(ctx.clock())
                .build();
        StorageFacade facade = Errors.translate(where, null, () -> {
            try {
                return StorageFacade.newBuilder().localObjects(storeDir, config).build();
            } catch (IllegalArgumentException e) {
                throw new CliFailure(
                        ExitCodes.USAGE,
                        "The directory '" + storeDir + "' cannot hold backups (" + e.getMessage() + "); pass "
                                + o.anotherStore() + resticRepository(storeDir) + ".",
                        e);
            }
        });
        return new StoreSession(null, facade, facade.objects(), null, where, storeDir);
    }

    /**
     * {@code " (it is a restic repository, whose format Ballast does not read)"} when {@code dir} holds
     * restic's layout (a {@code config} file beside {@code keys/}, {@code data/} and {@code snapshots/}), else empty.
     */
    private static String resticRepository(Path dir) {
        boolean restic = Files.isRegularFile(dir.resolve("config"))
                && Files.isDirectory(dir.resolve("keys"))
                && Files.isDirectory(dir.resolve("data"))
                && Files.isDirectory(dir.resolve("snapshots"));
        return restic ? " (it is a restic repository, whose format Ballast does not read)" : "";
    }

    private static String linkTarget(Path link) {
        try {
            return Files.readSymbolicLink(link).toString();
        } catch (IOException e) {
            return "a path that cannot be read";
        }
    }

    /** Whether {@code storeDir} exists but this user may not look into it or read its index. */
    private static boolean unreadable(Path storeDir) {
        if (!Files.isDirectory(storeDir)) {
            return false;
        }
        Path index = storeDir.resolve("index.db");
        return !Files.isReadable(storeDir)
                || !Files.isExecutable(storeDir)
                || (Files.exists(index, LinkOption.NOFOLLOW_LINKS) && !Files.isReadable(index))
                || (!Files.exists(index, LinkOption.NOFOLLOW_LINKS) && !Files.isExecutable(storeDir));
    }

    /**
     * The objects the local store keeps in files of their own, never in its packs of small contents:
     * a manifest of the earlier format, and a repository's {@code config}, key files, snapshots and
     * index files (format 3), so that losing one pack file of the local store loses neither a whole
     * backup's record, nor the repository's master key, nor the index of many packs; a removed key
     * file's content file is deleted with its last version.
     */
    static boolean ownFile(String key) {
        return key.endsWith("/" + Manifest.FILE_NAME)
                || key.equals(KeyFiles.CONFIG)
                || key.startsWith(KeyFiles.KEYS_PREFIX)
                || key.startsWith("snapshots/")
                || key.startsWith("manifest-parts/")
                || key.startsWith("index/");
    }

    /**
     * Creates the data directory and checks that a file can be created in it, so an unusable one is
     * reported as the input it is (exit 2) before the store is opened.
     */
    static void usableDataDir(Path dir) {
        usableDataDir(dir, null);
    }

    /** As {@link #usableDataDir(Path)}, the advice naming {@code --repo} when {@code o} came from it. */
    private static void usableDataDir(Path dir, @Nullable CommonOptions o) {
        try {
            Files.createDirectories(dir);
            Files.deleteIfExists(Files.createTempFile(dir, ".ballast-probe-", ".tmp"));
        } catch (IOException e) {
            if (o != null && o.repoSource != null) {
                throw new CliFailure(
                        ExitCodes.USAGE,
                        "The directory '" + dir + "' that would hold the store " + o.repoSource
                                + " names cannot be written (" + Errors.describeIo(e) + "); give "
                                + o.repoSource + " a store's directory that can be written, or one inside a"
                                + " writable directory.",
                        e);
            }
            throw unusable(dir, e);
        }
    }

    /** Checks that a file can be created in the store named by {@code --repo}, as {@link #usableDataDir} does. */
    static void usableStore(Path storeDir) {
        try {
            Files.deleteIfExists(Files.createTempFile(storeDir, ".ballast-probe-", ".tmp"));
        } catch (IOException e) {
            throw new CliFailure(
                    ExitCodes.USAGE,
                    "The local store " + storeDir + " cannot be written ("
                            + (e instanceof java.nio.file.FileSystemException f && f.getReason() != null
                                    ? f.getReason()
                                    : Errors.describeIo(e))
                            + "); only commands that read (list, ls, restore, verify, check) work on it.",
                    e);
        }
    }

    /** A data directory to read from must not sit below a file; it need not exist. */
    private static void readableDataDir(Path dir) {
        for (Path p = dir; p != null; p = p.getParent()) {
            if (Files.exists(p) && !Files.isDirectory(p)) {
                throw unusable(dir, new java.nio.file.NotDirectoryException(p.toString()));
            }
        }
    }

    private static CliFailure unusable(Path dir, IOException e) {
        return new CliFailure(
                ExitCodes.USAGE,
                "The data directory '" + dir + "' cannot be used (" + Errors.describeIo(e)
                        + "); pass a writable directory with --data-dir.",
                e);
    }

    /**
     * Aborts the S3 multipart uploads of this bucket initiated before {@code before}
     * ({@link StorageFacade#abortIncompleteUploads}); none on the local store, whose writes leave no such parts.
     *
     * @return how many were aborted
     */
    int abortIncompleteUploads(java.time.Instant before) {
        return facade != null && localDirectory == null ? facade.abortIncompleteUploads(before) : 0;
    }

    ObjectStore objects() {
        return objects;
    }

    /** Where the store is, for messages. */
    String where() {
        return where;
    }

    /** Whether the store is an S3 endpoint (so retries, breaker trips and cached reads can happen). */
    boolean remote() {
        return http != null;
    }

    /**
     * The counters every summary ends with: attempts retried (by the HTTP layer, and reads resumed by the
     * S3 store after their body stalled or was cut), circuit breaker trips
     * and reads served from the last-known-good cache, for an S3 endpoint; empty for the local store,
     * which has none of them.
     */
    String counters() {
        if (!remote()) {
            return "";
        }
        return "; attempts retried " + counting.retries.sum() + ", breaker trips " + counting.breakerTrips.sum()
                + ", degraded reads " + facade.stats().degradedReads();
    }

    @Override
    public void close() {
        try {
            if (facade != null) {
                facade.close();
            }
        } finally {
            if (http != null) {
                http.close();
            }
            if (selectors != null) {
                selectors.stop(); // after the close: no request is in flight
            }
        }
    }
}
