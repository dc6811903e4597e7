package dev.ballast.backup.content;

import dev.ballast.backup.Futures;
import dev.ballast.backup.pack.MaxUnused;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A {@link PackedContent} whose opening (reading the repository's index: on S3 a listing, the index
 * files and a listing of {@code data/}) runs on a thread of its own, {@code ballast-index-load}, so
 * that a backup walks its tree and reads its previous snapshot meanwhile instead of after it. Every
 * method but {@link #bytesUploaded()} waits for the opening and then asks the opened content; an
 * opening that failed is thrown by each of them as itself (a {@link dev.ballast.storage.IntegrityException}
 * for a damaged index file, a {@link dev.ballast.storage.StorageException} for a store that failed),
 * as the opening would have thrown it on the caller's thread.
 *
 * <p>Thread-safe, as the content it opens.
 */
public final class PendingContent implements PackedContent {
    private final CompletableFuture<PackedContent> opened = new CompletableFuture<>();
    /** Whether {@link #close} closes the opened content (false: its opener closes it). */
    private final boolean owns;

    private PendingContent(boolean owns) {
        this.owns = owns;
    }

    /**
     * Starts {@code open} on a daemon thread of its own; {@link #close} waits for it and closes what it
     * opened.
     */
    public static PendingContent opening(Supplier<? extends PackedContent> open) {
        return start(open, true);
    }

    /**
     * Starts {@code open} on a daemon thread of its own, for content its opener closes ({@link #close}
     * leaves it open): a repository that hands out one content for a command.
     */
    public static PendingContent borrowing(Supplier<? extends PackedContent> open) {
        return start(open, false);
    }

    private static PendingContent start(Supplier<? extends PackedContent> open, boolean owns) {
        Objects.requireNonNull(open, "open");
        PendingContent pending = new PendingContent(owns);
        Thread t = new Thread(
                () -> {
                    try {
                        pending.opened.complete(Objects.requireNonNull(open.get(), "opened content"));
                    } catch (RuntimeException | Error e) {
                        pending.opened.completeExceptionally(e);
                    }
                },
                "ballast-index-load");
        t.setDaemon(true);
        t.start();
        return pending;
    }

    /** The opened content, waiting for it; the opening's failure is thrown as itself. */
    @Override
    public PackedContent opened() {
        return Futures.join(opened);
    }

    private PackedContent content() {
        return opened();
    }

    @Override
    public Stored store(Path file, LongConsumer read, BooleanSupplier stop) throws IOException {
        return content().store(file, read, stop);
    }

    @Override
    public void flush() {
        content().flush();
    }

    @Override
    public void beforeIndexing(Runnable check) {
        content().beforeIndexing(check);
    }

    @Override
    public int indexLeftBehind() {
        return content().indexLeftBehind();
    }

    /** 0 until the opening ended (nothing was uploaded through this content before), then the opened content's. */
    @Override
    public long bytesUploaded() {
        PackedContent c = opened.isDone() && !opened.isCompletedExceptionally() ? opened.join() : null;
        return c == null ? 0 : c.bytesUploaded();
    }

    /** 0 until the opening ended, then the opened content's. */
    @Override
    public long bytesStored() {
        PackedContent c = opened.isDone() && !opened.isCompletedExceptionally() ? opened.join() : null;
        return c == null ? 0 : c.bytesStored();
    }

    @Override
    public boolean holdsAll(List<String> chunks) {
        return content().holdsAll(chunks);
    }

    @Override
    public boolean readableAll(List<String> chunks) {
        return content().readableAll(chunks);
    }

    @Override
    public @Nullable Set<String> packsOf(List<String> chunks) {
        return content().packsOf(chunks);
    }

    @Override
    public Set<String> unindexedPacksRead() {
        return content().unindexedPacksRead();
    }

    @Override
    public Set<String> unindexedPacksUnreadable() {
        return content().unindexedPacksUnreadable();
    }

    @Override
    public Set<String> packsReadAround() {
        return content().packsReadAround();
    }

    @Override
    public boolean indexedAll(List<String> chunks) {
        return content().indexedAll(chunks);
    }

    @Override
    public InputStream open(List<String> chunks) {
        return content().open(chunks);
    }

    @Override
    public long writeTo(List<String> chunks, ChunkSink sink) throws IOException {
        return content().writeTo(chunks, sink);
    }

    @Override
    public AutoCloseable readAhead(List<List<String>> files) {
        return content().readAhead(files);
    }

    @Override
    public StoredAt storedAt(List<String> chunks) {
        return content().storedAt(chunks);
    }

    @Override
    public Pruned prune(Set<String> live, Instant cutoff, MaxUnused maxUnused) {
        return content().prune(live, cutoff, maxUnused);
    }

    /**
     * Waits for the opening and closes what it opened (when this content owns it); an opening that
     * failed left nothing open.
     */
    @Override
    public void close() {
        if (!owns) {
            return;
        }
        PackedContent c;
        try {
            c = opened.join();
        } catch (RuntimeException failed) {
            return;
        }
        c.close();
    }
}
