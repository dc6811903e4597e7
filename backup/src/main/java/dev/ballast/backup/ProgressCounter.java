package dev.ballast.backup;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

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

    /**
     * More work found while it is under way (a backup walks its tree while it stores); {@link #onChange()}
     * runs after it too, so that a display shows the grown totals before the first file is done.
     */
    public void addTotal(long moreFiles, long moreBytes) {
        totalFiles.addAndGet(moreFiles);
        totalBytes.addAndGet(moreBytes);
        onChange();
    }

    /**
     * Counts the bytes of one file of {@code size} bytes as they are read, a chunk or a buffer at a
     * time, instead of all at once when the file is done: a file of several hundred MiB otherwise
     * showed 0 MiB done, and no rate, for as long as it was read.
     */
    public FileBytes file(long size) {
        return new FileBytes(size);
    }

    /**
     * One file's share of {@link #bytes()}: at most its size, counted as it is read. A file read twice
     * (hashed first, then stored when its bytes differ) counts only what its second read passes beyond
     * the first ({@link #readAgain}). Used by one thread at a time.
     */
    public final class FileBytes implements LongConsumer {
        private final long size;
        /** Bytes of this file counted in {@link #bytes()}, at most {@link #size}. */
        private long counted;
        /** Bytes of the current read of the file. */
        private long read;

        private FileBytes(long size) {
            this.size = Math.max(size, 0);
        }

        /** {@code n} more bytes of the file read. */
        @Override
        public void accept(long n) {
            read += n;
            long upTo = Math.min(read, size);
            if (upTo > counted) {
                long more = upTo - counted;
                counted = upTo;
                addBytes(more);
            }
        }

        /** The file is read again from its start: bytes already counted are not counted twice. */
        public void readAgain() {
            read = 0;
        }

        /** The file is dealt with (stored, found unchanged, reused): the bytes not read yet count too. */
        public void done() {
            if (counted < size) {
                long more = size - counted;
                counted = size;
                addBytes(more);
            }
        }
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

    /** Called after each {@link #addBytes}, {@link #fileDone} and {@link #addTotal}; does nothing here. */
    protected void onChange() {}

    /** The job is over; does nothing here. */
    @Override
    public void close() {}
}
