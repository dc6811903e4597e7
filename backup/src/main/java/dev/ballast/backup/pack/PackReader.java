package dev.ballast.backup.pack;

import dev.ballast.backup.keys.MasterKey;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.RequestRefusedException;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.object.ByteRange;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ReadOptions;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;
import org.jspecify.annotations.Nullable;

/**
 * Reads stored blob bytes from packs: ranges, merged ranges, whole packs. Blobs read to be opened
 * at once ({@link #read}, {@link #readSpan}) are read in blocks of {@link #BLOCK} bytes aligned to
 * the pack's start, the last {@link #BLOCKS} kept: a restore that reads the small files of a tree
 * one by one, in the order they were stored, then needs one GET per run of blocks rather than one
 * per file, and files whose chunks lie interleaved in a pack share the blocks they have in common.
 * Where a pack's end is not known, a small read fetches a read-ahead window of up to
 * {@link #WINDOW} bytes instead, kept in a cache of {@link #WINDOWS} windows. The caches hold
 * stored (sealed) bytes: every blob is still opened and checked on every read. Thread-safe.
 */
final class PackReader {
    /** Two wanted blobs at most this far apart are fetched with one GET (the gap is read and dropped). */
    static final long MERGE_GAP = 1024 * 1024;
    /**
     * A span grows to at most this many bytes (unless one blob is longer): the blobs of a big file lie
     * side by side in a pack, and spans of a few chunks each are read and opened by several threads at
     * once, where one span of a whole pack was opened by one (restore used one core).
     */
    static final long MAX_SPAN = 4L * 1024 * 1024;
    /** Spans shorter than this are read through a read-ahead window. */
    static final long SMALL = 256 * 1024;
    /** The read-ahead window, bytes. */
    static final int WINDOW = 4 * 1024 * 1024;
    /** Windows kept. */
    static final int WINDOWS = 8;
    /** The blocks spans are read in (1 MiB, the stores' digest block). */
    static final int BLOCK = 1024 * 1024;
    /**
     * Blocks kept ({@link #BLOCK} each): enough for the block a span shares with the next of its pack
     * while four read threads fetch theirs. With 64, a store of 57 MiB (20,000 small files) was held
     * in the cache whole: its blocks never made way for the next, so none was reused, and each one
     * lived through young collections into the old generation; with 16 the restore's collections
     * took about half as long (-Xlog:gc, 250-290 ms against 140-150 ms) and its peak RSS fell by 10 %.
     */
    static final int BLOCKS = 16;
    /**
     * Arrays of dropped blocks kept for the next reads: as many as the read threads' spans fetch at
     * once (four 4 MiB spans), so that a long restore takes every block's array from a dropped one.
     * With 8, most blocks were new arrays that lived through a few young collections (the cache holds
     * them) and were copied into the old generation to die there: a tenth of the CPU time of a
     * restore of a JDK tree went to the collector.
     */
    static final int SPARE_BLOCKS = 16;

    private final ObjectStore store;
    private final MasterKey key;
    private final ToLongFunction<String> dataEnd;
    private final OtherCopy otherCopy;

    private final Window[] windows = new Window[WINDOWS];
    private int nextSlot;

    /**
     * @param dataEnd where a pack's blobs end (its header starts), by the index; 0 when not known
     * @param otherCopy where a span read takes a blob that does not open in its own pack (twice): another
     *     place the index names it in (a blob stored again after its pack or index file was lost, whose old
     *     pack was indexed again), or a pack no index file names ({@link ReadableCopies#fromOtherCopy})
     */
    PackReader(ObjectStore store, MasterKey key, ToLongFunction<String> dataEnd, OtherCopy otherCopy) {
        this.store = store;
        this.key = key;
        this.dataEnd = dataEnd;
        this.otherCopy = otherCopy;
    }

    /** Reads a blob from another copy after the one a span read holds did not open, twice. */
    @FunctionalInterface
    interface OtherCopy {
        /**
         * The plain bytes of {@code loc}'s blob from another pack holding it.
         *
         * @throws IntegrityException {@code damaged}, when no other copy opens or there is none
         */
        byte[] read(BlobLocation loc, IntegrityException damaged);
    }

    /** Stored bytes of a pack from {@code offset}; {@code bytes[i]} is the pack's byte {@code offset + i}. */
    record Window(String pack, long offset, byte[] bytes) {
        boolean covers(String p, long from, long to) {
            return pack.equals(p) && from >= offset && to <= offset + bytes.length;
        }
    }

    /**
     * A ranged read of a pack, never from a last-known-good cache ({@link ReadOptions#withAllowCache}):
     * a facade's cache keeps whole small objects only, so for a range it has no copy to offer, but its
     * read deadline moved every GET to a thread of its own (and, at three seconds by default, could
     * fail a span still arriving from a busy S3 endpoint). The store's own attempt timeouts and
     * deadlines still apply. Served as stored ({@link ReadOptions#withVerifyRange}): no store hashes
     * its blocks, nor fetches an S3 block table, since every blob is opened here before anything uses
     * it, and AES-256-GCM's tag and the blob's keyed ID catch any changed byte (a second SHA-256 of
     * every byte cost a restore of a JDK tree about 0.35 s of CPU), and only in the blob it is in,
     * where the store's check refused every blob of its 1 MiB block. A blob that does not open is
     * read once more ({@link #reread}) before it is called damaged: a byte changed on its way here (a
     * proxy, a network card) is not changed twice.
     */
    private static ReadOptions rangeOf(long offset, long length) {
        return ReadOptions.latest()
                .withAllowCache(false)
                .withRange(ByteRange.of(offset, length))
                .withVerifyRange(false);
    }

    /** {@code pack[offset, offset + length)}, exactly that long, fetched now (no cache). */
    byte[] range(String pack, long offset, long length) {
        return range(pack, offset, length, null);
    }

    /**
     * {@code span}'s stored bytes read again, exactly and past every cache (the pack's cached blocks
     * and windows are dropped), after one of its blobs did not open: a byte changed on its way is not
     * changed again; damage in the store fails the blob again, and only then is it damage.
     *
     * @throws IntegrityException naming the span's blobs when the pack is cut
     */
    Window reread(Span span) {
        String pack = span.blobs().get(0).pack();
        forget(pack);
        try {
            return new Window(pack, span.offset(), range(pack, span.offset(), span.end() - span.offset()));
        } catch (IntegrityException e) {
            IntegrityException.rethrowIfInStoreIndex(e); // the store's index, not what was read
            throw notReadIntact(pack, span, e);
        }
    }

    private static IntegrityException notReadIntact(String pack, Span span, IntegrityException e) {
        int n = span.blobs().size();
        return new IntegrityException(
                pack,
                "Blob " + span.blobs().get(0).id()
                        + (n > 1 ? " and " + (n - 1) + " more" : "") + " in pack " + pack + " "
                        + (n > 1 ? "were" : "was") + " not read intact: " + e.getMessage(),
                e);
    }

    /**
     * A span's stored bytes are read into the reading thread's buffer, reused for its next span: the
     * blobs are opened into arrays of their own at once, and a new array of up to {@link #MAX_SPAN}
     * per span was a third of what a restore allocated.
     */
    private static final ThreadLocal<byte[]> SPAN_BUFFERS = ThreadLocal.withInitial(() -> new byte[0]);

    /**
     * {@link #range(String, long, long)} read into this thread's span buffer (at least {@code length}
     * bytes long; bytes past {@code length} are not the pack's), valid until its next call on this thread.
     */
    private byte[] rangeInto(String pack, long offset, long length) {
        byte[] buffer = SPAN_BUFFERS.get();
        if (buffer.length < length) {
            buffer = new byte[Math.toIntExact(Math.max(length, MAX_SPAN))];
            SPAN_BUFFERS.set(buffer);
        }
        return range(pack, offset, length, buffer);
    }

    private byte[] range(String pack, long offset, long length, byte @Nullable [] into) {
        byte[] bytes;
        try (ObjectRead read = store.get(pack, rangeOf(offset, length))) {
            bytes = into == null ? readExactly(read, length) : readInto(read, into, length);
        } catch (RequestRefusedException e) {
            if (e.statusCode() == 416) {
                throw new IntegrityException(
                        pack,
                        "Pack " + pack + " ends before byte " + offset
                                + ", where the index says a blob starts: it was cut.",
                        e);
            }
            throw e;
        }
        if (bytes.length < length) {
            throw new IntegrityException(
                    pack,
                    "Pack " + pack + " ends at byte " + (offset + bytes.length) + ", before the " + length
                            + " bytes from " + offset + " the index names: it was cut.");
        }
        return bytes;
    }

    /** The whole current version of {@code pack}. */
    byte[] whole(String pack) {
        try (ObjectRead read = store.get(pack)) {
            return readAll(read);
        }
    }

    /**
     * At most {@code length} bytes of {@code read} (fewer when it ends first), read into one array of
     * that length: {@link java.io.InputStream#readAllBytes} gathers 8 KiB pieces and copies them again.
     */
    private static byte[] readExactly(ObjectRead read, long length) {
        try {
            byte[] bytes = new byte[Math.toIntExact(length)];
            int n = read.stream().readNBytes(bytes, 0, bytes.length);
            return n == bytes.length ? bytes : Arrays.copyOf(bytes, n);
        } catch (IOException e) {
            throw cut(read, e);
        }
    }

    /** {@link #readExactly} into {@code into}; a shorter read returns a copy of what was read (for the message). */
    private static byte[] readInto(ObjectRead read, byte[] into, long length) {
        try {
            int n = read.stream().readNBytes(into, 0, Math.toIntExact(length));
            return n == length ? into : Arrays.copyOf(into, n);
        } catch (IOException e) {
            throw cut(read, e);
        }
    }

    /**
     * The store's answer for {@code read} broke off while it was read ({@code e}: a body cut every time
     * it was resumed, or a local store's file that could not be read): the store failed, not a file of
     * the caller's, so a restore stops as for a store that cannot be reached (exit 3) instead of naming
     * every file "could not be written" (a fault tester's proxy cutting every body: 300 such lines, exit 1).
     */
    private static StorageUnavailableException cut(ObjectRead read, IOException e) {
        String key = read.version().key();
        return new StorageUnavailableException(
                key, "Reading '" + key + "' from the store broke off (" + e.getMessage() + ")", e, false);
    }

    private static byte[] readAll(ObjectRead read) {
        try {
            return read.stream().readAllBytes();
        } catch (IOException e) {
            throw cut(read, e);
        }
    }

    /** Opens one blob of {@code stored[offset, offset + loc.length())}, checked. */
    byte[] open(BlobLocation loc, byte[] stored, int offset) {
        return BlobCodec.decode(
                key,
                loc.pack(),
                loc.type(),
                loc.compressed(),
                loc.id(),
                loc.plainLength(),
                stored,
                offset,
                loc.length());
    }

    /** One blob. */
    byte[] read(BlobLocation loc) {
        Span span = new Span(loc.offset(), loc.end(), List.of(loc));
        Window w = spanBytes(span, true); // opened at once
        try {
            return open(loc, w.bytes(), (int) (loc.offset() - w.offset()));
        } catch (IntegrityException notOpened) {
            IntegrityException.rethrowIfInStoreIndex(notOpened); // the store's index, not what was read
            Window again = reread(span);
            return open(loc, again.bytes(), (int) (loc.offset() - again.offset()));
        }
    }

    /** A run of wanted blobs fetched with one GET. */
    record Span(long offset, long end, List<BlobLocation> blobs) {}

    /**
     * {@code blobs} of one pack, in offset order, grouped into spans no gap in which exceeds
     * {@link #MERGE_GAP} and no longer than {@link #MAX_SPAN} (a span of one blob may be longer).
     */
    static List<Span> spans(List<BlobLocation> blobs) {
        List<BlobLocation> sorted = new ArrayList<>(blobs);
        sorted.sort(Comparator.comparingLong(BlobLocation::offset));
        List<Span> out = new ArrayList<>();
        List<BlobLocation> current = new ArrayList<>();
        long start = -1;
        long end = -1;
        for (BlobLocation b : sorted) {
            if (!current.isEmpty() && (b.offset() - end > MERGE_GAP || Math.max(end, b.end()) - start > MAX_SPAN)) {
                out.add(new Span(start, end, current));
                current = new ArrayList<>();
            }
            if (current.isEmpty()) {
                start = b.offset();
            }
            current.add(b);
            end = Math.max(end, b.end());
        }
        if (!current.isEmpty()) {
            out.add(new Span(start, end, current));
        }
        return out;
    }

    /**
     * Stored bytes covering {@code span}: from the cache, a read-ahead window, or one GET of exactly the
     * span. A damaged read names the blobs it was for.
     */
    Window spanBytes(Span span) {
        return spanBytes(span, false);
    }

    /**
     * {@link #spanBytes(Span)}; with {@code scratch}, a GET of exactly the span is read into this
     * thread's scratch buffer, valid only until this thread's next such read (for a caller that opens
     * the blobs at once and keeps nothing of the window).
     */
    private Window spanBytes(Span span, boolean scratch) {
        String pack = span.blobs().get(0).pack();
        Window cached = cached(pack, span.offset(), span.end());
        if (cached != null) {
            return cached;
        }
        long length = span.end() - span.offset();
        if (scratch) {
            Window w = viaBlocks(pack, span);
            if (w != null) {
                return w;
            }
        }
        if (length < SMALL) {
            long end = Math.min(dataEnd.applyAsLong(pack), span.offset() + WINDOW);
            if (end > span.end()) {
                Window w = readAhead(pack, span.offset(), end);
                if (w != null && w.covers(pack, span.offset(), span.end())) {
                    remember(w);
                    return w;
                }
            }
        }
        try {
            byte[] bytes = scratch ? rangeInto(pack, span.offset(), length) : range(pack, span.offset(), length);
            return new Window(pack, span.offset(), bytes);
        } catch (IntegrityException e) {
            IntegrityException.rethrowIfInStoreIndex(e); // the store's index, not what was read
            throw notReadIntact(pack, span, e);
        }
    }

    /** A pack's stored bytes {@code [index * BLOCK, (index + 1) * BLOCK)} (shorter where its blobs end). */
    private record BlockKey(String pack, long index) {
        // written out: a record's own link an ObjectMethods call site at first use, on each reading thread
        // that gets there first (about 15 ms of a restore's start)
        @Override
        public boolean equals(Object o) {
            return o instanceof BlockKey k && k.index == index && k.pack.equals(pack);
        }

        @Override
        public int hashCode() {
            return pack.hashCode() * 31 + Long.hashCode(index);
        }
    }

    /** Recently read blocks, least recently used first. Guarded by itself. */
    private final LinkedHashMap<BlockKey, byte[]> blocks = new LinkedHashMap<>(2 * BLOCKS, 0.75f, true);
    /** Full-size arrays of blocks dropped from {@link #blocks}, for the next ones. Guarded by {@link #blocks}. */
    private final ArrayDeque<byte[]> spareBlocks = new ArrayDeque<>();

    /**
     * The stored bytes of {@code span} from blocks of {@link #BLOCK} bytes aligned to the pack's start:
     * the blocks already read are taken from {@link #blocks}, each run of missing ones is read with
     * one GET and kept. The chunks of files backed up side by side lie interleaved in a pack: a span of one
     * file's chunks, merged across the others' ({@link #MERGE_GAP}), fetched bytes its neighbours
     * fetched again (a JDK tree's restore from S3 read three times its packs' bytes). Returns the span
     * in this thread's scratch buffer ({@link #rangeInto}), or null when the span is too long to keep,
     * where the pack's blobs end is not known, or an aligned read fails or comes back short (the
     * caller then reads exactly the span, which decides and names what is damaged).
     */
    private @Nullable Window viaBlocks(String pack, Span span) {
        long end = dataEnd.applyAsLong(pack);
        long first = span.offset() / BLOCK;
        long last = (span.end() - 1) / BLOCK;
        int n = (int) (last - first + 1);
        if (end < span.end() || n > BLOCKS / 2) {
            return null;
        }
        int length = (int) (span.end() - span.offset());
        byte[] out = SPAN_BUFFERS.get();
        if (out.length < length) {
            out = new byte[Math.max(length, (int) MAX_SPAN)];
            SPAN_BUFFERS.set(out);
        }
        // A kept block is copied out while the lock is held: once it is let go, another thread may drop
        // it from the cache and reuse its array for a block of another pack.
        boolean[] have = new boolean[n];
        synchronized (blocks) {
            for (int i = 0; i < n; i++) {
                byte[] block = blocks.get(new BlockKey(pack, first + i));
                if (block != null) {
                    if (!copyOut(span, first + i, block, out)) {
                        return null; // a block shorter than the index says: read exactly
                    }
                    have[i] = true;
                }
            }
        }
        for (int i = 0; i < n; ) {
            if (have[i]) {
                i++;
                continue;
            }
            int j = i;
            while (j < n && !have[j]) {
                j++;
            }
            long from = (first + i) * BLOCK;
            long to = Math.min((first + j) * BLOCK, end);
            // Each block read straight into an array of its own (kept afterwards), not through one
            // array of the whole run copied again: a third of what a restore allocated.
            byte[][] read = new byte[j - i][];
            try (ObjectRead r = store.get(pack, rangeOf(from, to - from))) {
                java.io.InputStream in = r.stream();
                for (int k = i; k < j; k++) {
                    int len = (int) Math.min(BLOCK, to - (first + k) * BLOCK);
                    byte[] block = spareBlock(len);
                    if (in.readNBytes(block, 0, len) != len) {
                        return null; // a cut pack: the exact read decides
                    }
                    read[k - i] = block;
                }
            } catch (ObjectNotFoundException e) {
                throw e;
            } catch (IOException | RuntimeException e) {
                return null; // a cut pack, or a damaged block: the exact read decides
            }
            for (int k = i; k < j; k++) {
                if (!copyOut(span, first + k, read[k - i], out)) {
                    return null;
                }
            }
            for (int k = i; k < j; k++) {
                keep(new BlockKey(pack, first + k), read[k - i]);
            }
            i = j;
        }
        return new Window(pack, span.offset(), out);
    }

    /**
     * Copies the part of block {@code index} ({@code block}, its stored bytes) that {@code span} covers
     * into {@code out} (the span's bytes from its start); false when the block is too short for it.
     */
    private static boolean copyOut(Span span, long index, byte[] block, byte[] out) {
        long blockStart = index * BLOCK;
        long from = Math.max(span.offset(), blockStart);
        long to = Math.min(span.end(), blockStart + BLOCK);
        if (to - blockStart > block.length) {
            return false;
        }
        System.arraycopy(block, (int) (from - blockStart), out, (int) (from - span.offset()), (int) (to - from));
        return true;
    }

    private byte[] spareBlock(int len) {
        if (len == BLOCK) {
            synchronized (blocks) {
                byte[] spare = spareBlocks.poll();
                if (spare != null) {
                    return spare;
                }
            }
        }
        return new byte[len];
    }

    private void keep(BlockKey key, byte[] block) {
        synchronized (blocks) {
            blocks.put(key, block);
            if (blocks.size() > BLOCKS) {
                Iterator<Map.Entry<BlockKey, byte[]>> eldest = blocks.entrySet().iterator();
                byte[] dropped = eldest.next().getValue();
                eldest.remove();
                if (dropped.length == BLOCK && spareBlocks.size() < SPARE_BLOCKS) {
                    spareBlocks.push(dropped);
                }
            }
        }
    }

    /** The window {@code [from, to)} as far as the pack holds it intact; null when that read fails. */
    private Window readAhead(String pack, long from, long to) {
        try (ObjectRead read = store.get(pack, rangeOf(from, to - from))) {
            return new Window(pack, from, readExactly(read, to - from));
        } catch (ObjectNotFoundException e) {
            throw e;
        } catch (RuntimeException e) {
            // a cut pack, or a damaged block elsewhere in the window: the exact read decides
            return null;
        }
    }

    private synchronized Window cached(String pack, long from, long to) {
        for (Window w : windows) {
            if (w != null && w.covers(pack, from, to)) {
                return w;
            }
        }
        return null;
    }

    private synchronized void remember(Window w) {
        windows[nextSlot] = w;
        nextSlot = (nextSlot + 1) % WINDOWS;
    }

    /** Forgets the cached windows and blocks of {@code pack} (it is being deleted or was replaced). */
    synchronized void forget(String pack) {
        synchronized (blocks) {
            blocks.keySet().removeIf(k -> k.pack().equals(pack));
        }
        for (int i = 0; i < windows.length; i++) {
            if (windows[i] != null && windows[i].pack().equals(pack)) {
                windows[i] = null;
            }
        }
    }

    /**
     * Reads {@code span} and opens each of its blobs into this thread's reused plain buffer
     * ({@link BlobCodec#decodeBorrowed}), handing each to {@code sink} as soon as it is checked: no
     * array per blob. The sink must not read spans on this thread (it would overwrite the window).
     */
    void readSpanBorrowed(Span span, BorrowedBlobSink sink) throws IOException {
        Window w = spanBytes(span, true);
        boolean reread = false;
        List<BlobLocation> blobs = span.blobs();
        for (int i = 0; i < blobs.size(); i++) {
            BlobLocation b = blobs.get(i);
            byte[] plain;
            try {
                plain = openBorrowed(b, w);
            } catch (IntegrityException notOpened) {
                IntegrityException.rethrowIfInStoreIndex(notOpened); // the store's index, not what was read
                IntegrityException damaged = notOpened;
                plain = null;
                if (!reread) {
                    // The blobs not yet handed on are read once more (see reread).
                    reread = true;
                    w = reread(new Span(b.offset(), span.end(), blobs.subList(i, blobs.size())));
                    try {
                        plain = openBorrowed(b, w);
                    } catch (IntegrityException again) {
                        IntegrityException.rethrowIfInStoreIndex(again); // the store's index, not what was read
                        damaged = again;
                    }
                }
                if (plain == null) {
                    sink.accept(b.id(), otherCopy.read(b, damaged), b.plainLength());
                    continue;
                }
            }
            sink.accept(b.id(), plain, b.plainLength());
        }
    }

    private byte[] openBorrowed(BlobLocation b, Window w) {
        return BlobCodec.decodeBorrowed(
                key,
                b.pack(),
                b.type(),
                b.compressed(),
                b.id(),
                b.plainLength(),
                w.bytes(),
                (int) (b.offset() - w.offset()),
                b.length());
    }

    /** Reads {@code span} and opens each of its blobs, handing each to {@code sink}. */
    void readSpan(Span span, BlobSink sink) throws IOException {
        // Every blob opened before any is handed on: a sink that read another span on this thread would
        // overwrite the scratch window.
        Window w = spanBytes(span, true);
        List<BlobLocation> blobs = span.blobs();
        byte[][] plain = new byte[blobs.size()][];
        boolean reread = false;
        for (int i = 0; i < plain.length; i++) {
            BlobLocation b = blobs.get(i);
            try {
                plain[i] = open(b, w.bytes(), (int) (b.offset() - w.offset()));
            } catch (IntegrityException notOpened) {
                IntegrityException.rethrowIfInStoreIndex(notOpened); // the store's index, not what was read
                IntegrityException damaged = notOpened;
                if (!reread) {
                    reread = true; // read once more (see reread)
                    w = reread(new Span(b.offset(), span.end(), blobs.subList(i, blobs.size())));
                    try {
                        plain[i] = open(b, w.bytes(), (int) (b.offset() - w.offset()));
                        continue;
                    } catch (IntegrityException again) {
                        IntegrityException.rethrowIfInStoreIndex(again); // the store's index, not what was read
                        damaged = again;
                    }
                }
                plain[i] = otherCopy.read(b, damaged);
            }
        }
        for (int i = 0; i < plain.length; i++) {
            sink.accept(blobs.get(i).id(), plain[i]);
            plain[i] = null;
        }
    }
}
