package dev.ballast.backup.keys;

import dev.ballast.backup.Futures;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ReadOptions;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The reads {@link KeyFiles#open(ObjectStore, char[], byte[], KeyDerivationAhead, KeyFileReads)} makes
 * of a repository's key files (the listing of {@code keys/}, then each key file), started ahead on a
 * thread of their own: a command that opens a repository on an S3 endpoint then waits for one round
 * trip, the read of {@code config} it makes meanwhile, where the three one after another cost three
 * (about 0.1 s from Ceph RGW on loopback; a round trip each to a distant endpoint). The reads are the
 * ones {@code open} would make, of the store's latest versions and never of a cache; a read that failed
 * here fails there with the same exception, when {@code open} comes to it.
 *
 * <p>Thread-safe. The thread is a daemon: a command that needs none of it (the store is not a
 * repository) does not wait for it, and its reads end with the store's close.
 */
public final class KeyFileReads {
    /** How many key files are read ahead: a repository has one or two; the rest are read when needed. */
    static final int READ_AHEAD = 4;

    private static final ReadOptions LIVE = ReadOptions.latest().withAllowCache(false);

    private final ObjectStore store;
    private final CompletableFuture<List<String>> names = new CompletableFuture<>();
    private final Map<String, CompletableFuture<byte[]>> files = new ConcurrentHashMap<>();

    private KeyFileReads(ObjectStore store) {
        this.store = store;
    }

    /**
     * Starts listing {@code store}'s key files and reading the first {@value #READ_AHEAD} of them, on a
     * daemon thread of their own.
     */
    public static KeyFileReads start(ObjectStore store) {
        KeyFileReads reads = new KeyFileReads(Objects.requireNonNull(store, "store"));
        Thread t = new Thread(reads::run, "ballast-key-files");
        t.setDaemon(true);
        t.start();
        return reads;
    }

    private void run() {
        List<String> listed;
        try {
            listed = store.list(KeyFiles.KEYS_PREFIX);
        } catch (RuntimeException | Error e) {
            names.completeExceptionally(e);
            return;
        }
        List<String> ahead = listed.subList(0, Math.min(READ_AHEAD, listed.size()));
        ahead.forEach(name -> files.put(name, new CompletableFuture<>())); // before the names: bytes() waits for these
        names.complete(listed);
        for (String name : ahead) {
            CompletableFuture<byte[]> f = files.get(name);
            try {
                f.complete(read(store, name));
            } catch (RuntimeException | Error e) {
                f.completeExceptionally(e);
            }
        }
    }

    /** The names of the key files, as {@link ObjectStore#list} gave them; its failure rethrown. */
    List<String> names() {
        return Futures.join(names);
    }

    /**
     * The stored bytes of the key file {@code name}: read ahead, waited for if under way, else read
     * now; a failure of the read rethrown as it was thrown.
     */
    byte[] bytes(String name) {
        CompletableFuture<byte[]> ahead = files.get(name);
        return ahead != null ? Futures.join(ahead) : read(store, name);
    }

    /** One read of the latest version of key file {@code name}, whole. */
    static byte[] read(ObjectStore store, String name) {
        try (ObjectRead read = store.get(name, LIVE)) {
            return read.readAllBytes();
        }
    }
}
