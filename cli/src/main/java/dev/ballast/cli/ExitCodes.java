package dev.ballast.cli;

import dev.ballast.backup.BackupException;

/**
 * The process exit codes of every {@code ballast} command, for scripts. Only {@link #OK} means the
 * whole job was done and every checksum confirmed.
 */
public final class ExitCodes {
    /** Every file was stored (or restored, or verified) and checked: each chunk against its ID (the earlier format: the file's SHA-256). */
    public static final int OK = 0;
    /** The job ran but not every file was stored, restored or verified; the message lists which. */
    public static final int INCOMPLETE = 1;
    /** The command line or an input was invalid (unknown option, missing directory, bad name). */
    public static final int USAGE = 2;
    /**
     * The store could not be used now: the S3 endpoint could not be reached in time (down, breaker
     * open, retries exhausted), or the local store is being written by another {@code ballast}.
     */
    public static final int UNAVAILABLE = 3;
    /**
     * Bytes did not match their SHA-256, a stored version a manifest references is missing, or a
     * manifest is corrupt or names an unsafe path.
     */
    public static final int INTEGRITY = 4;
    /** The backup, manifest version or object does not exist. */
    public static final int NOT_FOUND = 5;
    /** Restore would replace an existing, different file and {@code --overwrite} was not given. */
    public static final int CONFLICT = 6;
    /**
     * The newest backup's manifest is damaged, so {@code restore} or {@code verify} used the newest
     * intact backup before it, and that one completely (restored, or verified, every file): one
     * restore point is lost, the name is not. Any other failure of the command takes precedence.
     */
    public static final int OLDER_BACKUP_USED = 7;
    /**
     * The store is an encrypted repository and no key of it opens with the password given, or it has
     * no key files at all: nothing was read beyond the key files and nothing written. 12 as restic's
     * exit code for a wrong password, so scripts written for restic read it the same.
     */
    public static final int WRONG_PASSWORD = 12;
    /** Interrupted (Ctrl-C): the work done so far is reported, nothing complete-looking is left. */
    public static final int INTERRUPTED = 130;

    /** The exit code of the engine's failures of {@code kind}. */
    static int of(BackupException.Kind kind) {
        return switch (kind) {
            case INCOMPLETE -> INCOMPLETE;
            case INVALID_INPUT -> USAGE;
            case UNAVAILABLE -> UNAVAILABLE;
            case INTEGRITY -> INTEGRITY;
            case NOT_FOUND -> NOT_FOUND;
            case CONFLICT -> CONFLICT;
            case WRONG_PASSWORD, NO_KEY -> WRONG_PASSWORD;
        };
    }

    /** The exit code list as shown at the end of {@code --help}. */
    static final String[] HELP_LINES = {
        "",
        "Exit codes:",
        "  0    every file stored, restored or verified and checked (each chunk against its ID; each file's SHA-256 in a store of the earlier format)",
        "  1    incomplete: some files were not stored, restored or verified (listed)",
        "  2    invalid command line or input",
        "  3    store unavailable: S3 endpoint down or timed out, or the local store in use by another backup",
        "  4    integrity: SHA-256 mismatch, stored version missing, corrupt manifest or unsafe manifest path",
        "  5    backup, manifest version, object or bucket not found",
        "  6    restore would overwrite a different existing file (use --overwrite)",
        "  7    the newest backup is damaged: restore or verify used the newest intact older one",
        "  12   wrong password: no key of the encrypted repository opens with it, or it has no key files",
        "  130  interrupted (Ctrl-C)",
        "  143  terminated (SIGTERM), handled as Ctrl-C",
    };

    /**
     * The exit code list at the end of {@code ballast COMMAND --help}: the codes that command can end
     * with, each in that command's words ({@code command} is its qualified name, e.g.
     * {@code "ballast repair index"}). An unknown command gets {@link #HELP_LINES}.
     */
    static String[] helpLines(String command) {
        String store =
                "  3    store unavailable: S3 endpoint down or timed out, or the local store in use by another backup";
        String integrity = "  4    integrity: the local store's index damaged or missing, or a corrupt manifest";
        String notFound = "  5    backup, manifest version or bucket not found";
        String usage = "  2    invalid command line or input";
        String interrupted = "  130  interrupted (Ctrl-C); 143 terminated (SIGTERM), handled as Ctrl-C";
        String password =
                "  12   wrong password: no key of the encrypted repository opens with it, or it has no key files";
        java.util.List<String> l = new java.util.ArrayList<>(java.util.List.of("", "Exit codes:"));
        switch (command.replaceFirst("^ballast ", "")) {
            case "backup" ->
                l.addAll(java.util.List.of(
                        "  0    every file stored and its SHA-256 confirmed",
                        "  1    incomplete: some files were not stored (listed)",
                        usage,
                        "  3    store unavailable (S3 endpoint down or timed out, the local store in use by another backup),"
                                + " or it refused or failed the backup's writes: the snapshot is marked incomplete",
                        integrity,
                        notFound,
                        password,
                        interrupted));
            case "restore" ->
                l.addAll(java.util.List.of(
                        "  0    every file restored and checked: each chunk against its ID and the file's size (each file's SHA-256 in a store of the earlier format)",
                        "  1    incomplete: some files were not restored (listed; counted when the target is read-only or full)",
                        usage,
                        store,
                        "  4    integrity: SHA-256 mismatch, stored version missing, corrupt manifest or unsafe manifest path",
                        notFound,
                        "  6    restore would overwrite a different existing file (use --overwrite)",
                        "  7    the newest backup is damaged: the newest intact older one was restored",
                        password,
                        interrupted));
            case "verify" ->
                l.addAll(java.util.List.of(
                        "  0    every file verified: each chunk read and checked against its ID (each file's SHA-256 in a store of the earlier format)",
                        "  1    incomplete: some files could not be verified (listed)",
                        usage,
                        store,
                        "  4    integrity: SHA-256 mismatch, stored version missing or corrupt manifest",
                        notFound,
                        "  7    the newest backup is damaged: the newest intact older one was verified",
                        password,
                        interrupted));
            case "list" ->
                l.addAll(java.util.List.of(
                        "  0    listed, every manifest version intact",
                        usage,
                        store,
                        "  4    integrity: a manifest version listed DAMAGED, or the local store's index damaged or"
                                + " missing",
                        notFound,
                        password,
                        interrupted));
            case "ls", "versions" ->
                l.addAll(java.util.List.of("  0    listed", usage, store, integrity, notFound, password, interrupted));
            case "forget" ->
                l.addAll(java.util.List.of(
                        "  0    the manifest versions were removed (with --dry-run: listed)",
                        "  1    with --prune: some unreferenced objects could not be deleted (listed)",
                        "  2    invalid command line or input, or the newest manifest version named",
                        store,
                        integrity,
                        notFound,
                        password,
                        interrupted));
            case "prune" ->
                l.addAll(java.util.List.of(
                        "  0    every unreferenced object past the grace period deleted (with --dry-run: listed)",
                        "  1    some unreferenced objects could not be deleted (listed)",
                        usage,
                        store,
                        integrity,
                        notFound,
                        password,
                        interrupted));
            case "unlock" ->
                l.addAll(java.util.List.of(
                        "  0    the stale run markers were removed, or there were none",
                        usage,
                        store,
                        password,
                        interrupted));
            case "repair", "repair index", "repair packs" ->
                l.addAll(java.util.List.of(
                        "  0    the index was rebuilt (or repaired); nothing lost",
                        "  1    rebuilt, but the journal was damaged: what it recorded after that point is missing (listed)",
                        usage,
                        "  3    store unavailable, or (encrypted repository) a backup or prune is running: nothing was changed",
                        "  4    content lost (listed: chunks of missing or damaged packs, stored again by the next backup"
                                + " of a source that has them), backups still lacking such chunks (each named), or no"
                                + " journal to rebuild from",
                        "  5    the local store not found",
                        password,
                        interrupted));
            case "init" ->
                l.addAll(java.util.List.of(
                        "  0    the repository was created",
                        "  2    invalid command line or input, no password given, or the store already holds a"
                                + " repository or backups",
                        store,
                        interrupted));
            case "key", "key list" ->
                l.addAll(java.util.List.of(
                        "  0    listed",
                        usage,
                        store,
                        "  4    integrity: a key file or the repository's config is damaged (named)",
                        "  5    the store is not an encrypted repository",
                        password,
                        interrupted));
            case "key add", "key remove", "key passwd" ->
                l.addAll(java.util.List.of(
                        "  0    done",
                        "  2    invalid command line or input, no password given, or the key is the one in use",
                        store,
                        "  4    integrity: a key file or the repository's config is damaged (named)",
                        "  5    the store is not an encrypted repository, or no key has that ID",
                        password,
                        interrupted));
            default -> {
                return HELP_LINES;
            }
        }
        return l.toArray(String[]::new);
    }

    private ExitCodes() {}
}
