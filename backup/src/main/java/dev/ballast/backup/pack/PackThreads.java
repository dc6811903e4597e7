package dev.ballast.backup.pack;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The threads a {@link BlobRepository} uploads packs, reads packs and encodes blobs on: the caller's
 * {@link PackOptions#executor()} for uploads and reads when given (and then no encoder: blobs are
 * encoded on the caller's thread), else pools of the repository's own, of daemon threads, which
 * {@link #shutdown} stops.
 *
 * <p>Thread-safe: every field is final and set at construction; {@link #shutdown} is called once, by
 * {@link BlobRepository#close} under its write lock. One instance per repository, made with it.
 */
final class PackThreads {
    final Executor upload;
    final Executor read;
    /** Where blobs of 256 KiB and more are compressed and sealed; null when an executor was given. */
    final @Nullable Executor encoder;

    private final List<ExecutorService> own = new ArrayList<>();

    PackThreads(PackOptions options) {
        if (options.executor() != null) {
            upload = options.executor();
            read = options.executor();
        } else {
            ExecutorService up = Executors.newFixedThreadPool(options.uploadThreads(), daemon("ballast-pack-upload"));
            ExecutorService rd = Executors.newFixedThreadPool(options.readThreads(), daemon("ballast-pack-read"));
            own.add(up);
            own.add(rd);
            upload = up;
            read = rd;
        }
        Executor enc = null;
        if (options.executor() == null) {
            // Compressing and sealing run beside the caller's chunking and hashing: a big file's chunks
            // are encoded on every core, not on the one thread that reads the file.
            ExecutorService pool = Executors.newFixedThreadPool(
                    Math.max(1, Runtime.getRuntime().availableProcessors()), daemon("ballast-blob-encode"));
            own.add(pool);
            enc = pool;
        }
        encoder = enc;
    }

    private static ThreadFactory daemon(String name) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /** Stops the repository's own pools after the tasks already given to them end; nothing for an executor given. */
    void shutdown() {
        for (ExecutorService e : own) {
            e.shutdown();
        }
    }
}
