package dev.ballast.backup.snapshot;

import dev.ballast.backup.Advice;
import dev.ballast.backup.BackupException;
import dev.ballast.backup.Messages;
import dev.ballast.backup.content.Sha256;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.VersionEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/** Finding and reading the manifest versions of a backup name. */
public final class Manifests {
    private Manifests() {}

    /**
     * A manifest with the version it was read from.
     *
     * @param passedOver the newer manifest versions that were damaged and passed over to choose this one,
     *     newest first (empty when it is the newest usable one)
     */
    public record Versioned(Manifest manifest, VersionEntry version, List<String> passedOver) {
        public Versioned {
            passedOver = List.copyOf(passedOver);
        }

        public Versioned(Manifest manifest, VersionEntry version) {
            this(manifest, version, List.of());
        }

        /** Whether a damaged newer manifest version was passed over for this one. */
        public boolean olderThanNewest() {
            return !passedOver.isEmpty();
        }
    }

    /**
     * Validates the name of a new backup: it becomes the first segment of every object key of the backup,
     * and it may not begin with '-' (an existing backup so named, made by an earlier build, is still read).
     *
     * @throws BackupException with {@link BackupException.Kind#INVALID_INPUT} if it is not usable
     */
    public static String checkName(@Nullable String name) {
        if (name != null && name.startsWith("-")) {
            // every command that takes the name would read it as an option, so no later command could name it
            throw new BackupException(
                    BackupException.Kind.INVALID_INPUT,
                    "The backup name '" + name + "' is not usable because it begins with '-', which a command"
                            + " line reads as an option; " + Advice.NAME_FOR_BACKUP.text());
        }
        return checkName(name, Advice.NAME_FOR_BACKUP.text());
    }

    /**
     * Validates the name of an existing backup given to a command that reads it; one trailing slash
     * (a directory of that name completed by the shell) is dropped.
     *
     * @return the name without a trailing slash
     * @throws BackupException with {@link BackupException.Kind#INVALID_INPUT} if it is not usable
     */
    public static String checkExistingName(@Nullable String name) {
        String n =
                name != null && name.length() > 1 && name.endsWith("/") ? name.substring(0, name.length() - 1) : name;
        int colon = n == null ? -1 : n.indexOf(':');
        if (colon > 0
                && n.substring(colon).contains("/")
                && !n.substring(0, colon).contains("/")) {
            throw snapshotAndPath(n, colon);
        }
        return checkName(n, Advice.EXISTING_NAME.text());
    }

    /**
     * A restic user's {@code SNAPSHOT:SUBFOLDER} ({@code restic restore latest:/home/me/src/a --target x})
     * given where a backup's name goes: "The backup name 'latest:/a/b' is not usable because it contains
     * a slash" told them nothing of how to restore a part.
     */
    private static BackupException snapshotAndPath(String name, int colon) {
        String part = name.substring(colon + 1);
        while (part.startsWith("/")) {
            part = part.substring(1);
        }
        return new BackupException(
                BackupException.Kind.INVALID_INPUT,
                "'" + name + "' looks like restic's SNAPSHOT:SUBFOLDER; here a backup is named by its name alone,"
                        + " and a restore takes the part to restore after its target, relative to the backed-up"
                        + " directory: 'ballast restore NAME TARGET-DIR " + (part.isEmpty() ? "PATH" : part) + "' ("
                        + Advice.LIST_NAMES.text() + ").");
    }

    private static String checkName(@Nullable String name, String advice) {
        String problem = null;
        if (name == null || name.isEmpty()) {
            problem = "it is empty";
        } else if (name.length() > 200) {
            problem = "it is longer than 200 characters";
        } else if (name.contains("/") || name.contains("\\")) {
            problem = "it contains a slash";
        } else if (name.equals(".") || name.equals("..")) {
            problem = "it is '.' or '..'";
        } else if (name.startsWith(".ballast")) {
            problem = "names starting with '.ballast' are reserved";
        } else if (name.chars().anyMatch(Character::isISOControl)) {
            problem = "it contains a control character";
        }
        if (problem != null) {
            throw new BackupException(
                    BackupException.Kind.INVALID_INPUT,
                    "The backup name '" + name + "' is not usable because " + problem + "; " + advice);
        }
        return name;
    }

    /**
     * The backup names in {@code store}: in a repository of format 3 (a {@link SealedStore}) those its
     * snapshots hold ({@link SealedStore#names()}), with the stored keys of the snapshots none of whose
     * versions opens; in a store of the earlier formats the names having a manifest
     * ({@code NAME/.ballast-manifest.json}), in the store's key order, none unreadable.
     */
    public static SealedStore.Names names(ObjectStore store) {
        if (store instanceof SealedStore sealed) {
            return sealed.names();
        }
        String suffix = "/" + Manifest.FILE_NAME;
        List<String> names = store.list("").stream()
                .filter(k -> k.endsWith(suffix) && k.indexOf('/') == k.length() - suffix.length())
                .map(k -> k.substring(0, k.length() - suffix.length()))
                .toList();
        return new SealedStore.Names(names, List.of());
    }

    /**
     * The warning about a snapshot {@link #names} found none of whose versions opens, by its stored key:
     * a verify needs the name it cannot tell, so the advice is a check, which names the snapshot.
     */
    public static String unreadableName(String snapshotKey) {
        return "Warning: no version of the snapshot " + snapshotKey
                + " opens, so its backup name cannot be shown; " + Advice.CHECK_UNNAMED.text()
                + ".";
    }

    /**
     * The failure of a job given a name {@code where} (the store, as messages name it) holds no backup
     * of: {@link BackupException.Kind#NOT_FOUND}, naming where the names are listed.
     */
    public static BackupException noSuchBackup(String name, String where) {
        return new BackupException(
                BackupException.Kind.NOT_FOUND,
                "There is no backup named '" + name + "' in " + where + "; " + Advice.LIST_NAMES.text() + ".");
    }

    /**
     * As {@link #noSuchBackup(String, String)}, and when {@code name} is the ID of a snapshot of another
     * backup {@code store} holds (its short ID, or {@value #MIN_PREFIX} or more characters of its version
     * ID: a restic user's {@code restore 26c49c6c}, where restic names a snapshot by its ID alone), says
     * which backup's snapshot it is and how to pass it. Reads the versions of every backup only when
     * {@code name} looks like such an ID (hexadecimal), and never fails for that.
     */
    public static BackupException noSuchBackup(ObjectStore store, String name, String where) {
        if (name.equalsIgnoreCase(LATEST)) {
            return latestAsName(store, where);
        }
        int colon = name.indexOf(':');
        if (colon > 0) {
            String before = name.substring(0, colon);
            try {
                if (before.equalsIgnoreCase(LATEST) || names(store).names().contains(before)) {
                    return snapshotAndPath(name, colon); // restic's 'src:a', with a backup 'src'
                }
            } catch (RuntimeException e) {
                // the plain message then: the lookup was only to help
            }
        }
        if (!name.matches("[0-9a-fA-F]{" + MIN_PREFIX + ",64}")) {
            return noSuchBackup(name, where);
        }
        try {
            for (String backup : names(store).names()) {
                for (VersionEntry v : versions(store, backup)) {
                    if (v.versionId().startsWith(name) || shortId(v.versionId()).equals(name)) {
                        return new BackupException(
                                BackupException.Kind.NOT_FOUND,
                                "There is no backup named '" + name + "' in " + where + "; '" + name
                                        + "' is a snapshot of the backup '" + backup + "': pass '" + backup + "' and "
                                        + Advice.USE_VERSION.text(shortId(v.versionId())) + " it.");
                    }
                }
            }
        } catch (RuntimeException e) {
            // the plain message then: the lookup was only to help
        }
        return noSuchBackup(name, where);
    }

    /** At most this many backup names are given where {@value #LATEST} was given as one. */
    static final int NAMES_SHOWN = 5;

    /**
     * The failure of a job given {@value #LATEST} as a backup name, no backup being named so: a restic
     * user's {@code restore latest DIR}, where restic takes {@code latest} for the newest snapshot. Says
     * that a backup is chosen by its name, whose newest snapshot is used, names the backups {@code store}
     * holds, and how an older snapshot is chosen.
     */
    private static BackupException latestAsName(ObjectStore store, String where) {
        List<String> names;
        try {
            names = names(store).names();
        } catch (RuntimeException e) {
            names = List.of(); // the plain message then: the lookup was only to help
        }
        if (names.isEmpty()) {
            return noSuchBackup(LATEST, where);
        }
        String shown = String.join(
                ", ", names.stream().limit(NAMES_SHOWN).map(n -> "'" + n + "'").toList());
        return new BackupException(
                BackupException.Kind.NOT_FOUND,
                "There is no backup named '" + LATEST + "' in " + where + "; a backup is chosen by its name, and"
                        + " its newest snapshot is the one used (what restic calls 'latest'): pass "
                        + (names.size() == 1 ? shown : "one of " + shown)
                        + (names.size() > NAMES_SHOWN ? " and " + (names.size() - NAMES_SHOWN) + " more" : "")
                        + " (and " + Advice.USE_VERSION.text("ID") + " an older snapshot; " + Advice.LIST_NAMES.text()
                        + ").");
    }

    /** Manifest versions of {@code name}, newest first, delete markers left out. */
    public static List<VersionEntry> versions(ObjectStore store, String name) {
        return store.versions(Manifest.key(name)).stream()
                .filter(v -> !v.deleteMarker())
                .toList();
    }

    /**
     * Reads and parses one manifest version.
     *
     * @throws BackupException with {@link BackupException.Kind#INTEGRITY} if the version is damaged (its bytes do not
     *     match their SHA-256 or length) or is not a valid manifest ({@link #damaged(BackupException)})
     * @throws ObjectNotFoundException if there is no such version
     */
    public static Manifest read(ObjectStore store, String name, String versionId) {
        String key = Manifest.key(name);
        String where = where(store, name, versionId);
        Manifest m;
        try (ObjectRead read = store.get(key, ReadOptions.version(versionId).withAllowCache(false))) {
            m = Manifest.parse(read.readAllBytes(), where);
        } catch (IntegrityException e) {
            IntegrityException.rethrowIfInStoreIndex(e); // the store's index, not what was read
            throw damagedManifest(where, e);
        }
        if (store instanceof SealedStore && !m.name().equals(name)) {
            throw misplaced(store, name, versionId, m.name());
        }
        return m;
    }

    /**
     * A manifest version of a repository of format 3 that holds another name's snapshot (sealed with
     * the repository's key, but moved or copied under this name's ID by hand): damaged, never taken for
     * a snapshot of {@code name} (a restore would write the other name's files).
     */
    private static BackupException misplaced(ObjectStore store, String name, String versionId, String holds) {
        return damagedManifest(
                where(store, name, versionId),
                new IntegrityException(
                        Manifest.key(name),
                        "it holds a snapshot of '" + Messages.printable(holds) + "', not of '"
                                + Messages.printable(name) + "': it was moved or copied here"));
    }

    /** The failure of a manifest version whose stored bytes do not open or match ({@link #damaged} says so). */
    private static BackupException damagedManifest(String where, IntegrityException e) {
        return new BackupException(
                BackupException.Kind.INTEGRITY,
                "The manifest " + where + " is damaged (" + e.getMessage() + "); restore "
                        + Advice.ANOTHER_VERSION.text() + ".",
                e);
    }

    /**
     * What {@code list} shows of one manifest version. In a repository of format 3 that is read from the
     * snapshot's head alone when it records it (one GET of a few hundred bytes, whatever the snapshot
     * holds; its parts are neither read nor checked, as restic's {@code snapshots} does not read trees:
     * {@code check}, {@code verify} and {@code restore} read them); otherwise the manifest is read
     * whole ({@link #read}).
     *
     * @throws BackupException with {@link BackupException.Kind#INTEGRITY} if the version is damaged or
     *     not a manifest
     * @throws dev.ballast.storage.ObjectNotFoundException if there is no such version
     */
    public static ManifestSummary summary(ObjectStore store, String name, String versionId) {
        ManifestSummary s = summaryFromHead(store, name, versionId);
        return s != null ? s : ManifestSummary.of(read(store, name, versionId));
    }

    /**
     * The summary the head of a manifest of format 3 records; null for a store of the earlier formats,
     * a head written before it was recorded, or one that does not parse (then read whole, which says why).
     */
    private static @Nullable ManifestSummary summaryFromHead(ObjectStore store, String name, String versionId) {
        if (!(store instanceof SealedStore sealed)) {
            return null;
        }
        ManifestSummary s;
        try {
            byte[] head = sealed.manifestHead(
                    Manifest.key(name), ReadOptions.version(versionId).withAllowCache(false));
            s = ManifestJson.readSummary(head);
        } catch (IntegrityException e) {
            IntegrityException.rethrowIfInStoreIndex(e); // the store's index, not what was read
            throw damagedManifest(where(store, name, versionId), e);
        } catch (dev.ballast.storage.StorageException e) {
            throw e;
        } catch (java.io.IOException | RuntimeException e) {
            return null;
        }
        if (s != null && !s.name().equals(name)) {
            throw misplaced(store, name, versionId, s.name());
        }
        return s;
    }

    /** How many snapshot heads {@link #summaries} reads at once. */
    static final int SUMMARY_READS = 8;

    /**
     * One version's {@link #summary}, or the failure reading it threw (a {@link BackupException} for a
     * damaged one, {@link ObjectNotFoundException} for one deleted since it was listed, a store's
     * failure).
     */
    public record SummaryRead(
            VersionEntry version,
            @Nullable ManifestSummary summary,
            @Nullable RuntimeException failure) {}

    /**
     * {@link #summary} of each of {@code versions} of {@code name}, in their order: the heads read up to
     * {@link #SUMMARY_READS} at once (on threads of their own), so a name with hundreds of snapshots is
     * listed in a few round trips' time, not one per snapshot after the other; a manifest whose head
     * records no summary (written before it was) is then read whole, one at a time (a manifest of a
     * million files takes hundreds of MiB of heap while it is read).
     */
    public static List<SummaryRead> summaries(ObjectStore store, String name, List<VersionEntry> versions) {
        List<SummaryRead> heads = new ArrayList<>();
        if (versions.size() <= 1) {
            versions.forEach(v -> heads.add(fromHead(store, name, v)));
        } else {
            java.util.concurrent.ExecutorService pool =
                    java.util.concurrent.Executors.newFixedThreadPool(Math.min(SUMMARY_READS, versions.size()), r -> {
                        Thread t = new Thread(r, "ballast-snapshot-heads");
                        t.setDaemon(true);
                        return t;
                    });
            try {
                List<java.util.concurrent.CompletableFuture<SummaryRead>> reads = new ArrayList<>();
                for (VersionEntry v : versions) {
                    reads.add(java.util.concurrent.CompletableFuture.supplyAsync(() -> fromHead(store, name, v), pool));
                }
                reads.forEach(r -> heads.add(dev.ballast.backup.Futures.join(r)));
            } finally {
                pool.shutdownNow();
            }
        }
        List<SummaryRead> out = new ArrayList<>();
        for (SummaryRead h : heads) {
            if (h.summary() != null || h.failure() != null) {
                out.add(h);
                continue;
            }
            try {
                out.add(new SummaryRead(
                        h.version(),
                        ManifestSummary.of(read(store, name, h.version().versionId())),
                        null));
            } catch (RuntimeException e) {
                out.add(new SummaryRead(h.version(), null, e));
            }
        }
        return out;
    }

    /** The summary {@code v}'s head records (null when it records none), or the failure reading it. */
    private static SummaryRead fromHead(ObjectStore store, String name, VersionEntry v) {
        try {
            return new SummaryRead(v, summaryFromHead(store, name, v.versionId()), null);
        } catch (RuntimeException e) {
            return new SummaryRead(v, null, e);
        }
    }

    /**
     * A manifest version as messages name it, by the object that holds it: {@code 'NAME/.ballast-manifest.json'
     * version ID} in a store of the earlier formats, {@code of 'NAME' (stored as 'snapshots/<id>') version ID}
     * in a repository of format 3, whose store has no object of the first name.
     */
    public static String where(ObjectStore store, String name, String versionId) {
        return store instanceof SealedStore sealed
                ? "of '" + name + "' (stored as '" + sealed.snapshotKey(name) + "') version " + versionId
                : "'" + Manifest.key(name) + "' version " + versionId;
    }

    /** Whether {@code f}, thrown by {@link #read}, says the manifest version is damaged or invalid. */
    public static boolean damaged(BackupException f) {
        // The store's own index damaged is not this version damaged: every version would read so, and
        // passing over them all ended in "back the source up again" where 'repair index' brings them back.
        return f.kind() == BackupException.Kind.INTEGRITY && IntegrityException.inStoreIndexCause(f) == null;
    }

    /** Why a manifest version is unusable, for one line: the cause's message without the advice. */
    public static String why(BackupException f) {
        String m = f.getCause() instanceof IntegrityException ie ? ie.getMessage() : f.getMessage();
        int advice = m.indexOf("; ");
        return advice > 0 && !(f.getCause() instanceof IntegrityException) ? m.substring(0, advice) : m;
    }

    /**
     * The newest intact manifest version of {@code name} other than {@code skip}, newest first, with a
     * note on {@code err} for each damaged one passed over; null when there is none.
     */
    public static @Nullable Versioned newestIntact(
            ObjectStore store, String name, @Nullable String skip, Consumer<String> err) {
        for (VersionEntry v : versions(store, name)) {
            if (v.versionId().equals(skip)) {
                continue;
            }
            Manifest m = readOrPassOver(store, name, v.versionId(), err);
            if (m != null) {
                return new Versioned(m, v);
            }
        }
        return null;
    }

    /**
     * Reads one manifest version as {@link #read} does, or returns null when it was removed meanwhile
     * or is damaged (with a note on {@code err} saying it is passed over).
     *
     * @throws BackupException for any other failure than damage
     */
    public static @Nullable Manifest readOrPassOver(
            ObjectStore store, String name, String versionId, Consumer<String> err) {
        try {
            return read(store, name, versionId);
        } catch (ObjectNotFoundException e) {
            return null;
        } catch (BackupException f) {
            if (!damaged(f)) {
                throw f;
            }
            err.accept("Warning: manifest version " + label(versionId) + " of '" + name
                    + "' is damaged and is passed over (" + Messages.printable(why(f)) + ").");
            return null;
        }
    }

    /** What {@code --manifest-version} takes for the newest complete manifest, as restic's {@code latest}. */
    public static final String LATEST = "latest";

    /** Shortest prefix of a version ID that selects it, as restic's short snapshot IDs (8 hex digits). */
    public static final int MIN_PREFIX = 8;

    /**
     * The forms {@code --manifest-version} accepts, as every command's help says them (the same as
     * docs/cli.md), ending with {@code 'latest'}: one shared description so the commands cannot drift
     * apart. Each command adds what {@code latest} means for it ({@link #VERSION_HELP}, or forget's).
     */
    public static final String VERSION_FORMS = "the short ID 'ballast list' shows (8 hex digits), the version ID, its"
            + " first " + MIN_PREFIX + " or more characters when no other version starts with them, or '" + LATEST
            + "'";

    /** {@link #VERSION_FORMS} for the commands that read a version: {@code latest} is what they read without it. */
    public static final String VERSION_HELP = VERSION_FORMS + " (the newest complete one, as without the option).";

    /**
     * The short ID {@code list} shows for a version: the first 8 hex digits of the SHA-256 of its
     * version ID (UTF-8). Version IDs are time-ordered (the local store's start with the time in
     * milliseconds, 12 hex digits), so versions written within about a minute of each other share
     * their first 8 characters and up to 12 are needed to tell them apart; a hash's first 8 differ
     * as restic's short snapshot IDs do (two of 1,000 versions share one with a probability of about
     * 1 in 10,000, and then the command names both and asks for more).
     */
    public static String shortId(String versionId) {

        java.security.MessageDigest digest = Sha256.newDigest();
        digest.update(versionId.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return Sha256.hex(digest).substring(0, MIN_PREFIX);
    }

    /**
     * A version as messages name it to the user: its short ID, then its version ID in parentheses
     * ({@code "3dc7957f (0194f1c2a3b40000a1b2c3d4e5f60718)"}), so either can be passed back to
     * {@code --manifest-version}.
     */
    public static String label(String versionId) {
        return shortId(versionId) + " (" + versionId + ")";
    }

    /**
     * The version whose ID is {@code id}, or else the one version whose short ID ({@link #shortId})
     * is {@code id} or whose ID starts with it (at least {@value #MIN_PREFIX} characters: IDs and
     * prefixes used before short IDs were shown go on selecting the same version).
     *
     * @throws BackupException with {@link BackupException.Kind#NOT_FOUND} if none matches, {@link BackupException.Kind#INVALID_INPUT} if
     *     several do (each is named)
     */
    public static VersionEntry byIdOrPrefix(List<VersionEntry> versions, String name, String id) {
        for (VersionEntry v : versions) {
            if (v.versionId().equals(id)) {
                return v;
            }
        }
        if (id.length() < MIN_PREFIX) {
            throw new BackupException(
                    BackupException.Kind.INVALID_INPUT,
                    "Manifest version '" + id + "' is too short: give the " + MIN_PREFIX
                            + "-character short ID or at least " + MIN_PREFIX
                            + " characters of the version ID " + Advice.SHORT_ID_BOTH.text() + ", or '" + LATEST
                            + "'.");
        }
        List<VersionEntry> matches = versions.stream()
                .filter(v ->
                        v.versionId().startsWith(id) || shortId(v.versionId()).equals(id))
                .toList();
        if (matches.size() > 1) {
            StringBuilder each = new StringBuilder();
            for (VersionEntry v : matches) {
                each.append(each.length() == 0 ? "" : ", ")
                        .append(v.versionId())
                        .append(" (short ID ")
                        .append(shortId(v.versionId()))
                        .append(")");
                // No time: the store's write time of each, all this method has, is neither the time
                // SnapshotTime shows everywhere else (when the run started) nor in its form ("12:39:25 UTC"
                // in list, "2026-12-05T12:39:25.274Z" here, a newcomer's); list shows each short ID's.
            }
            throw new BackupException(
                    BackupException.Kind.INVALID_INPUT,
                    "'" + id + "' matches " + matches.size() + " manifest versions of '" + name + "': " + each + "; "
                            + Advice.SHORT_ID_PASS.text() + " or the whole version ID (" + Advice.LIST_VERSIONS.text()
                            + " with their times).");
        }
        if (matches.isEmpty()) {
            throw new BackupException(
                    BackupException.Kind.NOT_FOUND,
                    "Backup '" + name + "' has no manifest version '" + id + "' (" + Advice.SHORT_ID_AS.text()
                            + ", a version ID or its first " + MIN_PREFIX + " or more characters, or '"
                            + LATEST + "'); " + Advice.LIST_VERSIONS.text() + ".");
        }
        return matches.get(0);
    }

    /**
     * The version {@code --manifest-version latest} (and a command without the option) selects: the
     * newest whose manifest is readable, intact and complete; {@code null} if there is none.
     *
     * @param versions the versions of {@code name}, newest first, as {@link #versions} returns them
     */
    public static @Nullable VersionEntry newestComplete(ObjectStore store, String name, List<VersionEntry> versions) {
        for (VersionEntry v : versions) {
            try {
                if (read(store, name, v.versionId()).complete()) {
                    return v;
                }
            } catch (ObjectNotFoundException | IntegrityException | BackupException e) {
                IntegrityException.rethrowIfInStoreIndex(e); // the store's index, not what was read
                // removed, damaged or unreadable: select() passes over it too
            }
        }
        return null;
    }

    /**
     * The manifest to restore or verify: the given version, or the newest complete one. Says on
     * {@code err} when an incomplete manifest is used or passed over.
     *
     * @throws BackupException with {@link BackupException.Kind#NOT_FOUND} if there is no such backup or version
     */
    public static Versioned select(
            ObjectStore store, String name, String versionId, String where, Consumer<String> err) {
        List<VersionEntry> versions = versions(store, name);
        if (versions.isEmpty()) {
            throw noSuchBackup(store, name, where);
        }
        if (versionId != null && !versionId.equals(LATEST)) {
            VersionEntry v = byIdOrPrefix(versions, name, versionId);
            Manifest m = read(store, name, v.versionId());
            if (!m.complete()) {
                err.accept("Note: manifest version " + label(v.versionId()) + " of '" + name + "' is incomplete ("
                        + (m.incompleteBecause() != null ? m.incompleteBecause() : "not every file was stored")
                        + "): it lists the "
                        + Messages.count(m.files().size(), "file") + " that run stored and confirmed; "
                        + Messages.count(m.notStored().size(), "file")
                        + " of the source "
                        + (m.notStored().size() == 1 ? "was" : "were")
                        + " not stored.");
            }
            noteStale(m, v, err);
            return new Versioned(m, v);
        }
        String newestPartial = null;
        List<String> damaged = new ArrayList<>();
        for (VersionEntry v : versions) {
            Manifest m;
            try {
                m = read(store, name, v.versionId());
            } catch (ObjectNotFoundException e) {
                continue;
            } catch (BackupException f) {
                if (!damaged(f)) {
                    throw f;
                }
                damaged.add(v.versionId());
                err.accept("Warning: manifest version " + label(v.versionId()) + " of '" + name
                        + "' is damaged and cannot be used (" + Messages.printable(why(f)) + ").");
                continue;
            }
            if (m.complete()) {
                if (!damaged.isEmpty()) {
                    err.accept("Note: using the newest intact backup of '" + name + "', manifest version "
                            + label(v.versionId()) + " of " + SnapshotTime.of(m) + ", instead of the damaged "
                            + String.join(
                                    ", ", damaged.stream().map(Manifests::label).toList()) + ".");
                }
                if (newestPartial != null) {
                    err.accept("Note: the newest backup of '" + name + "' (manifest version " + label(newestPartial)
                            + ") is "
                            + "incomplete; using the newest complete one, version " + label(v.versionId())
                            + ". Pass " + Advice.USE_VERSION.text(shortId(newestPartial)) + " the partial one.");
                }
                noteStale(m, v, err);
                return new Versioned(m, v, damaged);
            }
            if (newestPartial == null) {
                newestPartial = v.versionId();
                err.accept("Note: manifest version " + label(v.versionId()) + " of '" + name + "' is incomplete ("
                        + (m.incompleteBecause() != null ? m.incompleteBecause() : "not every file was stored") + "): "
                        + Messages.count(m.notStored().size(), "file") + " not stored.");
            }
        }
        if (newestPartial == null) {
            throw new BackupException(
                    BackupException.Kind.INTEGRITY,
                    "Every manifest version of '" + name + "' is damaged ("
                            + String.join(
                                    ", ", damaged.stream().map(Manifests::label).toList())
                            + "), so there is no backup to use; back the source up again.");
        }
        throw new BackupException(
                BackupException.Kind.NOT_FOUND,
                "Backup '" + name + "' has no complete manifest"
                        + (damaged.isEmpty() ? "" : " that is intact") + "; pass "
                        + Advice.USE_VERSION.text(shortId(newestPartial))
                        + " the files that run stored.");
    }

    /** Lists, on {@code err}, the files of a snapshot kept with an earlier version because its run could not store them. */
    public static void noteStale(Manifest m, VersionEntry v, Consumer<String> err) {
        if (m.complete()) {
            java.util.Set<String> kept = new java.util.HashSet<>();
            m.stale().forEach(s -> kept.add(s.path()));
            for (String p : m.notStored()) {
                if (!kept.contains(p)) {
                    err.accept("Not in this backup: " + Messages.printable(p)
                            + " (its run could not store it and no earlier " + "backup had)");
                }
            }
        }
        if (m.stale().isEmpty()) {
            return;
        }
        // A folder the run could not read is stale too: it keeps the entries an earlier run recorded in it.
        java.util.Set<String> folders = new java.util.HashSet<>();
        m.tree().directories().forEach(d -> folders.add(d.path()));
        long staleFolders =
                m.stale().stream().filter(s -> folders.contains(s.path())).count();
        err.accept("Note: manifest version " + label(v.versionId()) + " of '" + m.name() + "' holds "
                + (m.stale().size() - staleFolders)
                + " stale file(s)"
                + (staleFolders > 0 ? " and " + staleFolders + " folder(s) the run could not read" : "")
                + ": the run could not store them, so they keep the version an earlier run stored.");
        for (Manifest.Stale s : m.stale()) {
            err.accept("Stale: " + Messages.printable(s.path()) + (folders.contains(s.path()) ? "/" : "")
                    + " (not stored by this run: " + Messages.printable(s.reason()) + ")");
        }
    }
}
