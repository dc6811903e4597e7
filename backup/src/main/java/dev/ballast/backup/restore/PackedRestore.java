package dev.ballast.backup.restore;

import dev.ballast.backup.ProgressCounter;
import dev.ballast.backup.content.PackedContent;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.storage.IntegrityException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Reading a file of a repository of format 3 for {@link RestoreRunner}: its chunks from the packs,
 * each written at its place in the file as soon as it is opened with AES-GCM and checked against its
 * keyed ID, an HMAC-SHA-256 of its plain bytes ({@link PackedContent#writeTo}), then the whole file
 * against the length the manifest records, before it takes its name. A damaged chunk is an {@link IntegrityException}: the
 * file is reported damaged and nothing is written under its name.
 *
 * <p>The file's SHA-256 in the manifest is not computed again: the manifest is sealed, so its list
 * of chunk IDs is authentic, and every chunk's bytes are checked against their ID, so the bytes
 * written are the chunks the backup cut from the file it hashed. A second SHA-256 of every restored
 * byte cost about a third of a restore's CPU time (docs/backup-format.md, "Speed").
 */
final class PackedRestore {
    private PackedRestore() {}

    /**
     * The order to write the files of {@code m} in: those of format 3 by where their first chunk is
     * stored ({@code storedAt}: {@link PackedContent#storedAt} of the repository), so that reads ahead
     * fetch each stretch of a pack once; files without chunks, of the earlier formats or not found keep
     * the manifest's order, after them. Without {@code storedAt} (a store of the earlier formats), the
     * manifest's order.
     */
    static int[] writeOrder(@Nullable Function<List<String>, PackedContent.@Nullable StoredAt> storedAt, Manifest m) {
        int n = m.files().size();
        if (storedAt == null) {
            int[] order = new int[n];
            for (int i = 0; i < n; i++) {
                order[i] = i;
            }
            return order;
        }
        List<Integer> order = new ArrayList<>(n);
        PackedContent.StoredAt[] at = new PackedContent.StoredAt[n];
        for (int i = 0; i < n; i++) {
            ManifestEntry e = m.files().get(i);
            at[i] = e.packed() ? storedAt.apply(e.chunks()) : null;
            order.add(i);
        }
        order.sort((a, b) -> {
            if (at[a] == null || at[b] == null) {
                return at[a] == null ? (at[b] == null ? Integer.compare(a, b) : 1) : -1;
            }
            int c = at[a].compareTo(at[b]);
            return c != 0 ? c : Integer.compare(a, b);
        });
        int[] out = new int[n];
        for (int i = 0; i < n; i++) {
            out[i] = order.get(i);
        }
        return out;
    }

    /**
     * {@code order} cut into {@code lanes} stretches of as many files each, taken in turn (the first
     * file of each stretch, then the second of each, ...): {@code lanes} transfer threads taking files
     * in this order each work through a stretch of their own, so they create and rename files in
     * different directories, where a directory's files written at once wait for its lock in the kernel
     * (ext4 allocates a new file's inode under the lock of its directory). Each stretch keeps the
     * order of where its chunks are stored.
     */
    static int[] interleave(int[] order, int lanes) {
        int n = order.length;
        if (lanes <= 1 || n <= lanes) {
            return order;
        }
        int per = (n + lanes - 1) / lanes;
        int[] out = new int[n];
        int k = 0;
        for (int step = 0; step < per; step++) {
            for (int lane = 0; lane < lanes; lane++) {
                int at = lane * per + step;
                if (at < n) {
                    out[k++] = order[at];
                }
            }
        }
        return out;
    }

    /**
     * Starts reading ahead the chunks of the files of {@code m} to be written (not {@code present}),
     * in the order they are written ({@code order}, indices into the manifest's files;
     * {@link PackedContent#readAhead}).
     */
    static AutoCloseable readAhead(PackedContent packed, Manifest m, boolean[] present, int[] order) {
        List<List<String>> files = new ArrayList<>();
        for (int i : order) {
            ManifestEntry e = m.files().get(i);
            if (!present[i] && e.packed()) {
                files.add(e.chunks());
            }
        }
        return packed.readAhead(files);
    }

    /** Stops a read ahead; null is nothing to stop. */
    static void close(@Nullable AutoCloseable readAhead) {
        if (readAhead != null) {
            try {
                readAhead.close();
            } catch (Exception e) {
                // what was read ahead and not taken is dropped; nothing else to undo
            }
        }
    }

    /**
     * Writes the file's chunks, in whatever order the
     * read threads hand them on ({@link PackedContent#writeTo}), into {@code out}, a file this restore
     * has just created (empty), leaving the runs of zeros that fill whole blocks of
     * {@value #SPARSE_BLOCK} bytes of the file unwritten (a sparse file comes back sparse), and extends
     * the file to its length. Stops with {@code interrupted}'s exception between chunks once
     * {@code cancelled} says so.
     *
     * @return the file's length now: the bytes its chunks hold (kept here as they are written, so the
     *     file's size is not asked of the file system)
     * @throws dev.ballast.storage.IntegrityException when a chunk is damaged (the file holds part of the
     *     content: the caller drops it)
     * @throws IOException when the file cannot be written
     */
    static long write(
            PackedContent packed,
            ManifestEntry e,
            FileChannel out,
            ProgressCounter progress,
            BooleanSupplier cancelled,
            Supplier<? extends RuntimeException> interrupted)
            throws IOException {
        long[] end = new long[1]; // where the last byte written ends: the file's size, as it was empty
        long length = packed.writeTo(e.chunks(), (position, plain, n) -> {
            if (cancelled.getAsBoolean()) {
                throw interrupted.get();
            }
            long written = writeSparse(out, position, plain, n);
            synchronized (end) {
                end[0] = Math.max(end[0], written);
            }
            progress.addBytes(n);
        });
        if (end[0] < length) {
            out.write(ByteBuffer.wrap(new byte[1]), length - 1);
            end[0] = length;
        }
        return end[0];
    }

    /** Runs of zeros at least this long, aligned to the file's start, are not written. */
    static final int SPARSE_BLOCK = 64 * 1024;

    private static final byte[] ZEROS = new byte[SPARSE_BLOCK];

    /**
     * Writes {@code b[0, n)} at {@code position} of {@code out}, except the whole blocks of
     * {@link #SPARSE_BLOCK} bytes (aligned to the file's start) that hold only zeros; what is written
     * is written with one positional write per run between such blocks.
     *
     * @return where the last byte written ends in the file ({@code position} when nothing was written)
     */
    static long writeSparse(FileChannel out, long position, byte[] b, int n) throws IOException {
        long writtenEnd = position;
        int from = 0; // start of the run not yet written
        int i = 0;
        while (i < n) {
            int end = (int) Math.min(n, i + (SPARSE_BLOCK - (position + i) % SPARSE_BLOCK));
            if (end - i == SPARSE_BLOCK && Arrays.mismatch(b, i, end, ZEROS, 0, SPARSE_BLOCK) == -1) {
                if (i > from) {
                    writeFully(out, position + from, b, from, i - from);
                    writtenEnd = position + i;
                }
                from = end;
            }
            i = end;
        }
        if (n > from) {
            writeFully(out, position + from, b, from, n - from);
            writtenEnd = position + n;
        }
        return writtenEnd;
    }

    private static void writeFully(FileChannel out, long position, byte[] b, int offset, int length)
            throws IOException {
        ByteBuffer bb = ByteBuffer.wrap(b, offset, length);
        long at = position;
        while (bb.hasRemaining()) {
            at += out.write(bb, at);
        }
    }

    /**
     * Refuses a file whose written length is not the manifest's (its chunks name fewer or more bytes
     * than the file had).
     *
     * @throws IntegrityException naming the file
     */
    static void check(ManifestEntry e, long written) {
        if (written != e.size()) {
            throw new IntegrityException(
                    e.path(),
                    "'" + e.path() + "' has " + written + " bytes in its chunks but the manifest records " + e.size()
                            + "; it was not written");
        }
    }
}
