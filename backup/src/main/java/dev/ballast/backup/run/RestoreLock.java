package dev.ballast.backup.run;

import dev.ballast.backup.BackupException;
import dev.ballast.backup.retention.PackedPrune;
import dev.ballast.backup.snapshot.SealedStore;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Keeps a restore and a prune (or repair) of a repository in a local store apart, as restic's shared
 * lock for a restore and exclusive lock for a prune do: a prune deletes and repacks packs, and a restore
 * that read the index before a prune deleted a pack it names finds the pack gone and would report the
 * files damaged. A restore holds a shared lock on {@code ROOT/restores.lock} while it reads (any number
 * of restores at once); a prune, and a repair that deletes packs, hold an exclusive one while they run.
 * Neither waits: a restore that finds a prune running is refused (run it again once the prune has ended),
 * and a prune or repair that finds a restore running deletes nothing and says so, as it does beside a
 * running backup.
 *
 * <p>The locks are the operating system's ({@code fcntl}), released when their process ends, however it
 * ends: a killed restore or prune never leaves a lock behind (no stale lock, no {@code unlock} needed).
 * Within one process (the library used by several threads, in-process tests) the holders are counted here,
 * since a JVM holds one lock per file. A store that cannot hold the file (a read-only disk, where no prune
 * can run either) and a store other than a local one get a lock that holds nothing. Thread-safe.
 */
public final class RestoreLock implements AutoCloseable {
    /** The lock file in the local store's directory. */
    public static final String FILE = "restores.lock";

    /** The locks this process holds, by lock file. */
    private static final Map<Path, Held> HELD = new HashMap<>();

    private static final class Held {
        final FileChannel channel;
        final FileLock lock;
        final boolean exclusive;
        int holders = 1;

        Held(FileChannel channel, FileLock lock, boolean exclusive) {
            this.channel = channel;
            this.lock = lock;
            this.exclusive = exclusive;
        }
    }

    private final @Nullable Path file;
    private final @Nullable String refused;
    private boolean closed;
    /** On a store other than a local one: the reader's run marker, which a prune finds; null when none. */
    private @Nullable RunMarker marker;

    private RestoreLock(@Nullable Path file, @Nullable String refused) {
        this.file = file;
        this.refused = refused;
    }

    /**
     * The shared lock of a {@code what} ({@code "restore"}, {@code "verify"}) reading the packs of the
     * repository seen through {@code view}: on a local store {@link #shared(Path, String)}; on any other
     * (S3) a run marker of {@link PackedPrune#READER_MARKER}, as a backup keeps one, which a prune finds
     * live and so deletes nothing ({@link PackedPrune#running}), refreshed while the reader runs and gone
     * with it (a killed reader's goes stale as a backup's does). Written before the prune's marker is
     * looked for, so of a reader and a prune starting together one sees the other. A store the reader may
     * not write (read-only credentials) gets no marker: the reader reads as before, and a prune is not kept
     * from its packs.
     *
     * @throws BackupException of kind {@link BackupException.Kind#UNAVAILABLE} while a prune or repair runs
     */
    public static RestoreLock forReading(SealedStore view, Clock clock, String what) {
        Path local = LocalStoreDirectory.of(view.raw());
        if (local != null) {
            return shared(local, what);
        }
        RestoreLock lock = new RestoreLock(null, null);
        try {
            lock.marker = RunMarker.start(view, PackedPrune.READER_MARKER, clock, false);
        } catch (RuntimeException e) {
            lock.marker = null; // read-only credentials, say: nothing to hold
        }
        try {
            PackedPrune.requireNoPrune(
                    view,
                    clock.instant(),
                    "run the " + what + " again once it has ended: it may delete packs this " + what + " would read");
        } catch (RuntimeException e) {
            lock.close();
            throw e;
        }
        return lock;
    }

    /**
     * The shared lock of a restore from the local store in {@code storeDirectory} (null: not a local
     * store, nothing to lock).
     *
     * @throws BackupException of kind {@link BackupException.Kind#UNAVAILABLE} while a prune or repair holds
     *     the exclusive lock
     */
    public static RestoreLock shared(@Nullable Path storeDirectory) {
        return shared(storeDirectory, "restore");
    }

    /**
     * {@link #shared(Path)} for the command {@code what} ({@code "restore"}, {@code "verify"}), which the
     * refusal names.
     */
    public static RestoreLock shared(@Nullable Path storeDirectory, String what) {
        RestoreLock lock = take(storeDirectory, false);
        if (lock.refused != null) {
            throw new BackupException(
                    BackupException.Kind.UNAVAILABLE,
                    "A prune or repair of the repository in " + storeDirectory + " is running (it holds "
                            + lock.refused + "): it may delete packs this " + what + " would read; run the " + what
                            + " again once it has ended.");
        }
        return lock;
    }

    /**
     * The exclusive lock of a prune or repair of the local store in {@code storeDirectory} (null: not a
     * local store); {@link #refusedBecause()} says why it is not held when a restore holds the shared one.
     */
    public static RestoreLock exclusive(@Nullable Path storeDirectory) {
        return take(storeDirectory, true);
    }

    /**
     * Why this exclusive lock is not held (a restore is running), one clause for a prune's or repair's list
     * of reasons to do nothing; null when it is held.
     */
    public @Nullable String refusedBecause() {
        return refused == null
                ? null
                : "a restore from the repository is running (it holds " + refused + "); nothing is deleted until it"
                        + " ends, so that it reads every pack it needs";
    }

    private static RestoreLock take(@Nullable Path storeDirectory, boolean exclusive) {
        if (storeDirectory == null) {
            return new RestoreLock(null, null);
        }
        Path file = storeDirectory.resolve(FILE);
        synchronized (HELD) {
            Held held = HELD.get(file);
            if (held != null) {
                if (exclusive || held.exclusive) {
                    return new RestoreLock(null, "a lock on " + file + " in this process");
                }
                held.holders++;
                return new RestoreLock(file, null);
            }
            FileChannel channel = open(file, exclusive);
            if (channel == null) {
                return new RestoreLock(null, null);
            }
            try {
                FileLock lock = channel.tryLock(0, Long.MAX_VALUE, !exclusive);
                if (lock == null) {
                    channel.close();
                    return new RestoreLock(null, file.toString());
                }
                HELD.put(file, new Held(channel, lock, exclusive));
                return new RestoreLock(file, null);
            } catch (IOException | OverlappingFileLockException e) {
                closeQuietly(channel);
                return new RestoreLock(null, null); // a file system without locks: nothing to hold
            }
        }
    }

    /** The lock file opened to be locked, created when it can be; null when it cannot be opened at all. */
    private static @Nullable FileChannel open(Path file, boolean exclusive) {
        try {
            return FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            // A read-only disk or directory: no prune can write there either; a restore reads what exists.
            if (exclusive || !Files.isRegularFile(file)) {
                return null;
            }
            try {
                return FileChannel.open(file, StandardOpenOption.READ);
            } catch (IOException | SecurityException again) {
                return null;
            }
        }
    }

    private static void closeQuietly(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // nothing was locked through it
        }
    }

    /** Releases the lock (the last holder in this process releases the operating system's lock). */
    @Override
    public void close() {
        RunMarker m = marker;
        if (m != null) {
            marker = null;
            m.close();
        }
        if (file == null) {
            return;
        }
        synchronized (HELD) {
            if (closed) {
                return;
            }
            closed = true;
            Held held = HELD.get(file);
            if (held != null && --held.holders == 0) {
                HELD.remove(file);
                try {
                    held.lock.release();
                } catch (IOException e) {
                    // closing the channel releases it too
                }
                closeQuietly(held.channel);
            }
        }
    }
}
