package dev.ballast.backup;

import java.util.Arrays;
import java.util.Locale;

/**
 * The remedies the engine's messages (a {@link BackupException}'s message, a listener's notice, a
 * {@link FileProblem}'s reason, a prune's skip reason) name, in the library's own terms: the method
 * or option of this API that does it ({@code RestoreOptions.overwrite}, {@code Backups.repair(false)},
 * {@code Backups.snapshots(name)}). Each constant is one phrase, the same wherever it is used, so that
 * a program built on the library can word it otherwise: the {@code ballast} command replaces each
 * with its own advice ({@code --overwrite}, {@code 'ballast repair index'}, {@code 'ballast list'}).
 *
 * <p>A phrase may hold {@code %s} placeholders (a backup name, a version ID), filled in order by
 * {@link #text(Object...)}; a placeholder is always followed by more of the phrase, so that
 * {@link #pattern()} finds where it ends, and holds no white space unless it is in single quotes. Not API: part of the engine's wording, as {@link Messages}
 * is. Immutable and thread-safe.
 */
public enum Advice {
    // Longer phrases before those they contain: a program rewording them goes through them in this order.

    /** A backup name to give to {@link Backups#backup}. */
    NAME_FOR_BACKUP("pass a name such as 'photos-2026' (no slashes)."),
    /** The name of an existing backup, to read it. */
    EXISTING_NAME("pass a backup's name as Backups.names() lists it."),
    /** Another snapshot to restore, of a backup whose chosen manifest is refused. */
    ANOTHER_VERSION("another version (RestoreOptions.version)"),
    /** Where to look at a manifest the engine refuses. */
    INSPECT_MANIFEST("or inspect the object NAME/.ballast-manifest.json and its versions in the store"),
    /** A snapshot chosen by its version: {@code %s} the short ID. */
    USE_VERSION("version %s (RestoreOptions.version) to use"),
    /** Where both IDs of a snapshot are found. */
    SHORT_ID_BOTH("(SnapshotInfo.shortId() and versionId() give both)"),
    /** Where the short ID of a snapshot is found, to pass it. */
    SHORT_ID_PASS("pass the short ID SnapshotInfo.shortId() gives"),
    /** What a short ID is. */
    SHORT_ID_AS("a short ID as SnapshotInfo.shortId() gives it"),
    /** Where the snapshots of a backup are listed. */
    LIST_VERSIONS("Backups.snapshots(name) lists its versions"),
    /** Where the backup names of a store are listed. */
    LIST_NAMES("Backups.names() lists the backups there"),
    /** A run marker that outlived its run, named by a prune: its record is what ends the wait. */
    REMOVE_MARKER("deleting its run marker under .ballast-runs/ (RunMarker) ends the wait"),
    /** A prune killed on another host, whose marker a backup finds. */
    REMOVE_PRUNE_MARKER("(a prune killed on another host: delete its run marker under .ballast-runs/, RunMarker)"),
    /** A damaged snapshot that keeps prune away: {@code %s} the backup name, {@code %s} the version ID. */
    FORGET_VERSION("forget that version first (backup '%s', version %s, Forgetting.remove)"),
    /** Repairing the index of packs. */
    REPAIR_INDEX("Backups.repair(false)"),
    /** Repairing the packs, reading them whole. */
    REPAIR_PACKS("Backups.repair(true)"),
    /** Recording the damaged versions of the earlier formats: a verify, or the next backup. */
    VERIFY_RECORDS("until Backups.verify or the next backup records them"),
    /** Which files of a backup are damaged. */
    VERIFY_NAME("Backups.verify(name, version, null)"),
    /** Which backups are damaged. */
    VERIFY("Backups.verify"),
    /** A snapshot none of whose versions opens, by its stored key: what names it and how it is removed. */
    CHECK_UNNAMED("Backups.check names it with how to remove it"),
    /** Making a repository again after an interrupted init. */
    INIT_AGAIN("call Backups.init again"),
    /** Another store for a repository. */
    ANOTHER_STORE("use another store."),
    /** An empty store for a new repository. */
    EMPTY_STORE("init a new repository in an empty store."),
    /** Where the IDs of a repository's keys are listed. */
    KEY_LIST("KeyFiles.list returns"),
    /** Adding a key. */
    KEY_ADD("KeyFiles.add"),
    /** Changing a key's password. */
    KEY_PASSWD("KeyFiles.changePassword"),
    /** Removing a key. */
    KEY_REMOVE("KeyFiles.remove"),
    /** The password a repository was opened with. */
    PASSWORD("the password given to Backups.open"),
    /** Restoring over the existing files. */
    OVERWRITE_AGAIN("restore again with RestoreOptions.overwrite"),
    /** Where a restore's glob patterns go. */
    INCLUDE_PATTERNS("RestoreOptions.includes"),
    /** The restore option replacing existing files. */
    OVERWRITE("RestoreOptions.overwrite"),
    /** A backup name taken from a directory that holds another directory's backups: {@code %s} the name. */
    OWN_NAME("back this directory up under a name of its own, or under '%s' given explicitly"),
    /** The number of transfer threads. */
    TRANSFERS("The number of transfer threads (Backups.withTransfers)"),
    /** A count of a retention policy. */
    KEEP_COUNT("a keep count of a RetentionPolicy"),
    /** The JVM's heap. */
    HEAP("raise the JVM's -Xmx");

    private final String phrase;

    Advice(String phrase) {
        this.phrase = phrase;
    }

    /** The phrase, its {@code %s} placeholders as written. */
    public String phrase() {
        return phrase;
    }

    /**
     * The phrase with its placeholders filled by {@code args}, in order.
     *
     * @throws java.util.IllegalFormatException if there are fewer {@code args} than placeholders
     */
    public String text(Object... args) {
        return args.length == 0 ? phrase : String.format(Locale.ROOT, phrase, args);
    }

    /** How many placeholders the phrase holds. */
    public int placeholders() {
        return phrase.split("%s", -1).length - 1;
    }

    /**
     * A regular expression matching the phrase as {@link #text} fills it, one capturing group per
     * placeholder, in order.
     */
    public java.util.regex.Pattern pattern() {
        String[] literal = phrase.split("%s", -1);
        StringBuilder regex = new StringBuilder();
        for (int i = 0; i < literal.length; i++) {
            if (i > 0) {
                // A quoted placeholder (a backup name) may hold spaces; an unquoted one (an ID) holds none.
                regex.append(literal[i - 1].endsWith("'") ? "(.+?)" : "(\\S+?)");
            }
            regex.append(java.util.regex.Pattern.quote(literal[i]));
        }
        return java.util.regex.Pattern.compile(regex.toString());
    }

    /** The longest part of the phrase without a placeholder: a message that lacks it does not hold the phrase. */
    public String anchor() {
        return Arrays.stream(phrase.split("%s", -1))
                .max(java.util.Comparator.comparingInt(String::length))
                .orElse(phrase);
    }
}
