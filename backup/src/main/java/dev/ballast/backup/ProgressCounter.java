package dev.ballast.backup;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The counters of one job over files and bytes (a backup, a restore, a verify), which the engine
 * advances as it works; {@link #onChange()} runs after each change, on the thread that made it
 * (any of the job's transfer threads). Thread-safe.
 */
public class ProgressCounter implements AutoCloseable {
    private final AtomicLong files = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong totalFiles = new AtomicLong();
    private final AtomicLong totalBytes = new AtomicLong();

    /** Counters with the totals known at the start (0 when the job discovers its work as it goes). */
    public ProgressCounter(long totalFiles, long totalBytes) {
        this.totalFiles.set(totalFiles);
        this.totalBytes.set(totalBytes);
    }

    /** {@code n} more bytes read, written or verified. */
    public void addBytes(long n) {
        bytes.addAndGet(n);
        onChange();
    }

    /** One more file done (whatever its outcome). */
    public void fileDone() {
        files.incrementAndGet();
        onChange();
    }

    /** More work found while it is under way (a backup walks its tree while it stores). */
    public void addTotal(long moreFiles, long moreBytes) {
        totalFiles.addAndGet(moreFiles);
        totalBytes.addAndGet(moreBytes);
    }

    /** The counters now. */
    public BackupProgress snapshot() {
        return new BackupProgress(files.get(), totalFiles.get(), bytes.get(), totalBytes.get());
    }

    /** Files done so far. */
    public long files() {
        return files.get();
    }

    /** Bytes done so far. */
    public long bytes() {
        return bytes.get();
    }

    /** Files known so far. */
    public long totalFiles() {
        return totalFiles.get();
    }

    /** Bytes known so far. */
    public long totalBytes() {
        return totalBytes.get();
    }

    /** Called after each {@link #addBytes} and {@link #fileDone}; does nothing here. */
    protected void onChange() {}

    /** The job is over; does nothing here. */
    @Override
    public void close() {}
}
