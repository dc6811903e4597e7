package dev.ballast.storage.object.s3;

import dev.ballast.storage.StorageUnavailableException;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * Per-key generations and write ordering of one {@link S3ObjectStore} instance.
 *
 * <p>A generation is a hybrid logical clock: each put records
 * {@code max(known + 1, head + 1, clock millis)}, where {@code known} is the newest generation this
 * instance has written or read for the key and {@code head} the generation of the key's current
 * version, read just before the write. S3 reads after writes are strongly consistent, so a writer
 * always sees the previous writer's generation and goes past it even with a slow wall clock; the
 * wall-clock floor keeps a key written again after a delete (whose HEAD shows no generation) ahead of
 * the generations it had before. Puts to one key through one instance run one at a time
 * ({@link #lock}), so their generations strictly increase in the order the versions land.
 *
 * <p>It also keeps the ETag of the version this instance last saw current for each key (its own
 * put's answer, or a read of the latest version), so that a later put can send it as {@code If-Match}
 * instead of reading the generation with a HEAD first: if the condition holds, the current version
 * is the one whose generation is already known.
 *
 * <p>Thread-safe; memory grows with the number of distinct keys this instance wrote or read.
 */
final class KeyGenerations {
    /** User metadata key (sent as {@code x-amz-meta-ballast-generation}): the per-key generation. */
    static final String META_GENERATION = S3ObjectStore.META_GENERATION;

    private final Map<String, Known> known = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, LockEntry> locks = new ConcurrentHashMap<>();

    /** The generation for the next put of {@code key}, given the current version's generation. */
    long next(String key, long headGeneration, Clock clock) {
        return Math.max(Math.max(known(key), headGeneration) + 1, clock.millis());
    }

    /** The newest generation this instance wrote or read for {@code key}, 0 if none. */
    long known(String key) {
        Known k = known.get(key);
        return k == null ? 0 : k.generation();
    }

    /**
     * The ETag of the version of {@code key} this instance last saw current, or null when it saw none
     * (never read or written here, deleted, or found missing).
     */
    @Nullable
    String currentETag(String key) {
        Known k = known.get(key);
        return k == null ? null : k.eTag();
    }

    /**
     * Records that {@code generation} of {@code key}, with ETag {@code eTag}, was written or read as
     * the key's current version. A generation of 0 (not Ballast's) raises nothing; the ETag is kept
     * unless an older generation arrives after a newer one.
     */
    void remember(String key, long generation, String eTag) {
        known.merge(
                key,
                new Known(Math.max(0, generation), eTag),
                (old, seen) -> seen.generation() >= old.generation() || seen.generation() == 0
                        ? new Known(Math.max(old.generation(), seen.generation()), eTag)
                        : old);
    }

    /** Records that {@code key} has no current version (deleted, or found missing); its generation stays. */
    void forgetCurrent(String key) {
        known.computeIfPresent(key, (k, old) -> new Known(old.generation(), null));
    }

    /** The newest generation seen for a key and the ETag of its current version, null if unknown. */
    private record Known(long generation, @Nullable String eTag) {}

    /**
     * Forgets what this instance saw of {@code key}: after one of its versions was removed on purpose,
     * an older remaining version becomes current without being a stale read.
     */
    void forget(String key) {
        known.remove(key);
    }

    /** The generation recorded in user metadata, 0 when absent or unreadable (not written by Ballast). */
    static long of(Map<String, String> metadata) {
        String g = metadata.get(META_GENERATION);
        if (g == null) {
            return 0;
        }
        try {
            return Math.max(0, Long.parseLong(g.trim()));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** What {@link #lock} returns; closing it lets the next put of the key through. */
    interface Held extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Waits until no other put of {@code key} through this instance runs, then holds the key. An entry
     * is removed when its last user leaves, so idle keys hold no lock.
     *
     * @throws StorageUnavailableException if interrupted while waiting (the interrupt flag is restored)
     */
    Held lock(String key) {
        LockEntry entry = locks.compute(key, (k, e) -> {
            LockEntry x = e == null ? new LockEntry() : e;
            x.users++;
            return x;
        });
        try {
            entry.lock.lockInterruptibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            leave(key);
            throw new StorageUnavailableException(
                    key, "Interrupted while waiting for another put of '" + key + "' from this store to finish", e);
        }
        return () -> {
            entry.lock.unlock();
            leave(key);
        };
    }

    private void leave(String key) {
        locks.compute(key, (k, e) -> --e.users == 0 ? null : e);
    }

    private static final class LockEntry {
        final ReentrantLock lock = new ReentrantLock();
        int users;
    }
}
