package dev.ballast.backup;

/**
 * What a running job reports while it works: its progress, and the notes and warnings the
 * {@code ballast} command prints on standard error (a damaged manifest passed over, files the
 * store lost, a name last backed up from another directory), each one sentence. Both methods do
 * nothing by default.
 *
 * <p>Called from the job's own threads (the transfer threads for progress), possibly at once from
 * several: an implementation must be thread-safe and quick, and must not throw.
 */
public interface BackupListener {
    /** A listener that ignores everything. */
    BackupListener NONE = new BackupListener() {};

    /**
     * The counters after a change: a file done, more bytes moved (a backup counts a file's bytes as
     * each chunk of it is read), or more work found (a backup's totals grow while it walks the tree).
     * Called often (once per file, per chunk or buffer); sample it if it drives a display.
     */
    default void progress(BackupProgress progress) {}

    /** A note or warning, one sentence, as the {@code ballast} command words it. */
    default void notice(String message) {}
}
