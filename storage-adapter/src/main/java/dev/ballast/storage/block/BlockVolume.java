package dev.ballast.storage.block;

import dev.ballast.http.Ticker;
import dev.ballast.storage.StorageListener;
import dev.ballast.storage.VolumeInUseException;
import dev.ballast.storage.internal.ObservedOperation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.jspecify.annotations.Nullable;

/**
 * A local block volume: one regular file under a root directory, addressed by byte offset, with
 * in-place writes and durability by {@code fsync}. This is the storage for data that changes a few
 * bytes at a time; object storage has no offset writes (see {@code ObjectStore}).
 *
 * <h2>One writer</h2>
 * A volume has exactly one open {@code BlockVolume} at a time, across processes and inside this
 * JVM. Opening takes an exclusive {@link FileLock} on the file (held for the JVM, so it alone
 * cannot separate two openers in one JVM: a second {@code FileChannel.lock} there throws
 * {@link OverlappingFileLockException}) and registers the file's real path in a JVM-wide registry
 * of open volumes. Either being taken gives {@link VolumeInUseException} naming the volume. The
 * one writer may be used from several threads: reads and writes are positional
 * ({@link FileChannel#write(ByteBuffer, long)}), so concurrent calls at disjoint offsets do not
 * interfere; overlapping concurrent writes leave one of them, byte by byte, unspecified.
 *
 * <h2>Durability</h2>
 * Writes reach the operating system when the call returns; {@link #force()} makes them durable
 * ({@code FileChannel.force(true)}, data and metadata) and, the first time after this volume
 * created its file, also fsyncs the root directory so the new directory entry survives a crash.
 *
 * <p>I/O failures are reported as {@link UncheckedIOException} naming the volume; any method
 * after {@link #close()} throws {@link IllegalStateException}. Thread-safe.
 */
public final class BlockVolume implements AutoCloseable {

    private static final ConcurrentMap<Path, Object> OPEN = new ConcurrentHashMap<>();

    private final String name;
    private final Path file;
    private final FileChannel channel;
    private final FileLock lock;
    private final Object directorySyncLock = new Object();
    private volatile boolean directoryEntryDurable;
    private volatile boolean closed;
    private volatile StorageListener listener = StorageListener.NONE;
    private volatile Ticker ticker = Ticker.systemTicker();

    private BlockVolume(String name, Path file, FileChannel channel, FileLock lock, boolean created) {
        this.name = name;
        this.file = file;
        this.channel = channel;
        this.lock = lock;
        this.directoryEntryDurable = !created;
    }

    /**
     * Opens (creating it if absent) the volume {@code name} under {@code root} for exclusive use.
     * The name is validated by {@link VolumeNames#validate(String)} before anything on disk is
     * touched; {@code root} is created if it does not exist.
     *
     * @param root the directory holding the volumes
     * @param name the volume name, one path segment
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the name is invalid (nothing is created)
     * @throws VolumeInUseException if the volume is already open in this JVM or locked by another process
     * @throws UncheckedIOException if the root or the file cannot be created or opened, or the file is
     *     a symbolic link (links are never followed, so a link under the root cannot redirect writes)
     */
    public static BlockVolume open(Path root, String name) {
        Objects.requireNonNull(root, "root");
        VolumeNames.validate(name);
        Path file;
        try {
            Files.createDirectories(root);
            file = root.toRealPath().resolve(name);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "Cannot open the block volume root " + root + " for volume '" + name + "'", e);
        }
        // Registering first makes the in-JVM check atomic; the placeholder is replaced once opened.
        Object reservation = new Object();
        if (OPEN.putIfAbsent(file, reservation) != null) {
            throw new VolumeInUseException(name, null);
        }
        try {
            BlockVolume volume = openLocked(name, file);
            OPEN.replace(file, reservation, volume);
            return volume;
        } catch (RuntimeException e) {
            OPEN.remove(file, reservation);
            throw e;
        }
    }

    /**
     * As {@link #open(Path, String)}, telling {@code listener} of every {@code write}, {@code read},
     * {@code truncate} and {@code force} (store {@value StorageListener#STORE_BLOCK}, key the volume
     * name, bytes those written or read), with durations on {@code ticker}.
     *
     * @throws NullPointerException if an argument is null
     */
    public static BlockVolume open(Path root, String name, StorageListener listener, Ticker ticker) {
        Objects.requireNonNull(listener, "listener");
        Objects.requireNonNull(ticker, "ticker");
        BlockVolume volume = open(root, name);
        volume.listener = listener;
        volume.ticker = ticker;
        return volume;
    }

    /** Runs {@code body} as {@code operation}, telling the listener, if any; {@code bytes} of its result. */
    private <T> T observed(
            StorageListener.Operation operation,
            java.util.function.Supplier<T> body,
            java.util.function.ToLongFunction<T> bytes) {
        StorageListener l = listener;
        if (l == StorageListener.NONE) {
            return body.get();
        }
        ObservedOperation op = ObservedOperation.start(l, ticker, StorageListener.STORE_BLOCK, operation, name);
        T result;
        try {
            result = body.get();
        } catch (RuntimeException | Error e) {
            op.end(e, 0);
            throw e;
        }
        op.end(null, bytes.applyAsLong(result));
        return result;
    }

    private static BlockVolume openLocked(String name, Path file) {
        FileChannel channel = null;
        boolean created = false;
        try {
            try {
                channel = FileChannel.open(
                        file,
                        StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.READ,
                        StandardOpenOption.WRITE,
                        LinkOption.NOFOLLOW_LINKS);
                created = true;
            } catch (FileAlreadyExistsException exists) {
                // A symbolic link planted under the root must not redirect writes outside it.
                channel = FileChannel.open(
                        file, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
            }
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException sameJvm) {
                // Held through a channel this registry does not know (opened outside BlockVolume).
                throw new VolumeInUseException(name, sameJvm);
            }
            if (lock == null) {
                throw new VolumeInUseException(name, null);
            }
            return new BlockVolume(name, file, channel, lock, created);
        } catch (IOException e) {
            closeQuietly(channel);
            throw new UncheckedIOException("Cannot open block volume '" + name + "' at " + file, e);
        } catch (RuntimeException e) {
            closeQuietly(channel);
            throw e;
        }
    }

    /** The volume name. */
    public String name() {
        return name;
    }

    /** The file backing this volume (its real path). */
    public Path file() {
        return file;
    }

    /**
     * Writes all remaining bytes of {@code src} starting at byte {@code offset}, looping until every
     * byte is written; the buffer's position advances to its limit. Bytes outside the written range
     * are unchanged. Writing past the end extends the volume; a gap between the old end and
     * {@code offset} reads as zeros.
     *
     * @param offset the byte offset to write at, {@code >= 0}
     * @param src the bytes to write
     * @return the number of bytes written ({@code src.remaining()} on entry)
     * @throws IllegalArgumentException if {@code offset} is negative or {@code offset + src.remaining()}
     *     exceeds {@code Long.MAX_VALUE}
     * @throws UncheckedIOException if the file system refuses the write (for example beyond its
     *     largest file size)
     */
    public int write(long offset, ByteBuffer src) {
        return observed(StorageListener.Operation.WRITE, () -> writeNow(offset, src), n -> n);
    }

    private int writeNow(long offset, ByteBuffer src) {
        Objects.requireNonNull(src, "src");
        requireOffset(offset);
        if (offset > Long.MAX_VALUE - src.remaining()) {
            // offset + length would wrap to a negative position part-way through the write
            throw new IllegalArgumentException("offset + length must be <= " + Long.MAX_VALUE + " but offset " + offset
                    + " + length " + src.remaining() + " is beyond it");
        }
        ensureOpen();
        int total = 0;
        try {
            while (src.hasRemaining()) {
                total += channel.write(src, offset + total);
            }
            return total;
        } catch (IOException e) {
            throw failure("write " + src.remaining() + " bytes at offset " + (offset + total), e);
        }
    }

    /**
     * Reads up to {@code length} bytes starting at {@code offset}. Returns exactly the bytes present:
     * {@code min(length, size() - offset)} of them, or none when {@code offset >= size()}. The
     * returned buffer is a new heap buffer positioned at 0 with its limit at the number of bytes
     * read; it never contains padding.
     *
     * @param offset the byte offset to read from, {@code >= 0}
     * @param length the most bytes to read, {@code >= 0}
     * @throws IllegalArgumentException if {@code offset} or {@code length} is negative
     */
    public ByteBuffer read(long offset, int length) {
        return observed(StorageListener.Operation.READ, () -> readNow(offset, length), ByteBuffer::remaining);
    }

    private ByteBuffer readNow(long offset, int length) {
        requireOffset(offset);
        if (length < 0) {
            throw new IllegalArgumentException("length must be >= 0 but was " + length);
        }
        ensureOpen();
        try {
            long available = Math.max(0, channel.size() - offset);
            ByteBuffer dst = ByteBuffer.allocate((int) Math.min(length, available));
            while (dst.hasRemaining()) {
                int n = channel.read(dst, offset + dst.position());
                if (n < 0) {
                    break; // truncated concurrently: return what is present
                }
            }
            return dst.flip();
        } catch (IOException e) {
            throw failure("read " + length + " bytes at offset " + offset, e);
        }
    }

    /** The current size in bytes. */
    public long size() {
        ensureOpen();
        try {
            return channel.size();
        } catch (IOException e) {
            throw failure("read the size", e);
        }
    }

    /**
     * Cuts the volume to {@code newSize} bytes. A {@code newSize} at or above the current size leaves
     * the volume unchanged (as {@link FileChannel#truncate(long)} does); grow a volume by writing.
     *
     * @throws IllegalArgumentException if {@code newSize} is negative
     */
    public void truncate(long newSize) {
        observed(
                StorageListener.Operation.TRUNCATE,
                () -> {
                    truncateNow(newSize);
                    return null;
                },
                none -> 0);
    }

    private void truncateNow(long newSize) {
        if (newSize < 0) {
            throw new IllegalArgumentException("newSize must be >= 0 but was " + newSize);
        }
        ensureOpen();
        try {
            channel.truncate(newSize);
        } catch (IOException e) {
            throw failure("truncate to " + newSize + " bytes", e);
        }
    }

    /**
     * Makes every write and truncation so far durable: {@code FileChannel.force(true)} (data and
     * metadata, {@code fsync}). When this volume created its file, the first successful call also
     * fsyncs the root directory so the file's directory entry is durable too. Platforms that refuse
     * to open a directory for reading (Windows) make that directory step a no-op; there the file
     * system is responsible for the entry's durability.
     */
    public void force() {
        observed(
                StorageListener.Operation.FORCE,
                () -> {
                    forceNow();
                    return null;
                },
                none -> 0);
    }

    private void forceNow() {
        ensureOpen();
        try {
            channel.force(true);
        } catch (IOException e) {
            throw failure("force (fsync)", e);
        }
        if (!directoryEntryDurable) {
            synchronized (directorySyncLock) {
                if (!directoryEntryDurable) {
                    fsyncDirectory(file.getParent());
                    directoryEntryDurable = true;
                }
            }
        }
    }

    private void fsyncDirectory(@Nullable Path directory) {
        FileChannel dir;
        try {
            dir = FileChannel.open(directory, StandardOpenOption.READ);
        } catch (IOException platformRefuses) {
            return;
        }
        try (dir) {
            dir.force(true);
        } catch (IOException e) {
            throw failure("fsync its directory " + directory, e);
        }
    }

    /** Whether this volume is still open. */
    public boolean isOpen() {
        return !closed;
    }

    /**
     * Releases the lock, closes the file and lets another writer open the volume. Does not force:
     * call {@link #force()} first for durability. Idempotent.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        try {
            lock.release();
            channel.close();
        } catch (IOException e) {
            throw failure("close", e);
        } finally {
            closeQuietly(channel);
            OPEN.remove(file, this);
        }
    }

    @Override
    public String toString() {
        return "BlockVolume[" + name + " at " + file + (closed ? ", closed]" : "]");
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("Block volume '" + name + "' is closed");
        }
    }

    private static void requireOffset(long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("offset must be >= 0 but was " + offset);
        }
    }

    private RuntimeException failure(String action, IOException e) {
        if (e instanceof ClosedChannelException) {
            return new IllegalStateException("Block volume '" + name + "' was closed during " + action, e);
        }
        return new UncheckedIOException("Block volume '" + name + "' (" + file + ") failed to " + action, e);
    }

    private static void closeQuietly(@Nullable FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // The original failure is the one worth reporting.
            }
        }
    }
}
