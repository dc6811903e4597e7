package dev.ballast.storage.object.local;

import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.internal.Sha256;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The writer lock of one directory, shared by every writer this process opens on it, and the
 * content files they are publishing (which must not be deleted as unreferenced before their
 * version commits).
 */
final class SharedDirectory {
    private static final Map<Path, SharedDirectory> OPEN = new HashMap<>();

    private final Path root;
    private final FileChannel channel;
    private final FileLock lock;
    private final Map<String, Integer> pending = new HashMap<>();
    private @Nullable Journal journal;
    private int users;
    private boolean first = true;

    private SharedDirectory(Path root, FileChannel channel, FileLock lock) {
        this.root = root;
        this.channel = channel;
        this.lock = lock;
    }

    static SharedDirectory acquire(Path root) {
        synchronized (OPEN) {
            SharedDirectory existing = OPEN.get(root);
            if (existing != null) {
                existing.users++;
                existing.first = false;
                return existing;
            }
            FileChannel channel = null;
            try {
                channel = FileChannel.open(
                        root.resolve(LocalObjectStore.LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock lock = channel.tryLock();
                if (lock == null) {
                    throw new StorageUnavailableException(
                            null,
                            "The local object store '" + root + "' is in use by another"
                                    + " writer process (it holds " + root.resolve(LocalObjectStore.LOCK_FILE)
                                    + "); wait for it to finish, or open the"
                                    + " store read-only to read it",
                            null);
                }
                SharedDirectory shared = new SharedDirectory(root, channel, lock);
                shared.users = 1;
                OPEN.put(root, shared);
                return shared;
            } catch (IOException | OverlappingFileLockException e) {
                closeQuietly(channel);
                throw LocalObjectStore.unavailable(
                        null, "Taking the writer lock of the local object store '" + root + "'", e);
            } catch (RuntimeException e) {
                closeQuietly(channel);
                throw e;
            }
        }
    }

    /** The directory's journal, shared by this process's writers of it. */
    Journal journal(int inlineThreshold) {
        synchronized (OPEN) {
            if (journal == null) {
                journal = new Journal(root, inlineThreshold);
            }
            return journal;
        }
    }

    boolean firstUser() {
        synchronized (OPEN) {
            return first;
        }
    }

    void release() {
        synchronized (OPEN) {
            if (--users > 0) {
                return;
            }
            OPEN.remove(root);
            if (journal != null) {
                journal.close();
            }
            try {
                lock.release();
            } catch (IOException ignored) {
                // closing the channel releases it too
            }
            closeQuietly(channel);
        }
    }

    synchronized void addPending(byte[] address) {
        pending.merge(Sha256.hex(address), 1, Integer::sum);
    }

    synchronized void removePending(byte[] address) {
        pending.computeIfPresent(Sha256.hex(address), (k, n) -> n == 1 ? null : n - 1);
    }

    synchronized boolean isPending(byte[] address) {
        return pending.containsKey(Sha256.hex(address));
    }

    private static void closeQuietly(@Nullable FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // nothing more to release
            }
        }
    }
}
