package dev.ballast.storage.object.local;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The pack files of a {@link LocalObjectStore}: small contents (up to the inline threshold) appended
 * one after another to {@code packs/NNNNNNNN.pack}, each located by an index row (pack, offset,
 * size), as restic packs small blobs rather than giving each a file or a database page of its own. A
 * commit appends its batch's contents in one write and syncs the pack before the index transaction
 * naming them commits, so a committed row never points at bytes that are not on disk; bytes a crash
 * or a failed commit left behind belong to no row and are reclaimed by {@link
 * LocalObjectStore#compact()}.
 *
 * <p>A pack is created (its {@code packs} row inserted in the transaction of the first batch written
 * to it) when there is none or the current one has reached {@link LocalStoreConfig#packSize()}; a pack file with no
 * row is left over from a crash or a compaction and is deleted when a writer opens the store.
 *
 * <p>Writing is confined to the store's writer under its write lock; reading is thread-safe.
 */
final class Packs {

    static final String PACKS = "packs";

    private final Path dir;
    /** A pack this large is not appended to any more: the next batch starts a new one. */
    private final long packSize;

    // The writer's state: the pack being appended to, its length, and the batch being gathered.
    private @Nullable FileChannel current;
    private long currentId;
    private long end;
    /** Set when the next batch must go to a new pack, not the newest one (which is being compacted). */
    private boolean startNew;
    /** Whether the current batch created the pack it appends to (its row is in the batch's transaction). */
    private boolean createdInBatch;

    private final List<ByteBuffer> batch = new ArrayList<>();
    private long batchBytes;

    Packs(Path root, long packSize) {
        this.dir = root.resolve(PACKS);
        this.packSize = packSize;
    }

    /** The file of pack {@code id}. */
    Path path(long id) {
        return dir.resolve(String.format("%08x.pack", id));
    }

    /**
     * Deletes pack files that no {@code packs} row names (a crash between creating a pack and its
     * first commit, or between a compaction's commit and its deletions); call only while holding the
     * writer lock, before the first write.
     *
     * @return how many were deleted
     */
    int removeOrphans(Set<Long> known) throws IOException {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        int removed = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                Long id = idOf(f.getFileName().toString());
                if (id != null && !known.contains(id)) { // a file that is no pack's name is not ours to delete
                    Files.deleteIfExists(f);
                    removed++;
                }
            }
        }
        return removed;
    }

    /** The ID a pack file's name gives, or null for a name that is not a pack's. */
    static @Nullable Long idOf(String name) {
        if (!name.endsWith(".pack") || name.length() < 13 || name.length() > 21) {
            return null;
        }
        try {
            return Long.parseUnsignedLong(name.substring(0, name.length() - ".pack".length()), 16);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** The callbacks a batch needs from the index: the newest pack's ID, a new one, and recording it. */
    interface Catalogue {
        long newestPack() throws java.sql.SQLException;

        long nextPackId() throws java.sql.SQLException;

        void addPack(long id) throws java.sql.SQLException;
    }

    /**
     * Starts a batch: picks the pack to append to (the newest one, if it is below
     * the pack size; else a new one, recorded in the caller's open transaction). The pack this writer
     * appended to last is kept only while it is still the newest one the index names: another writer
     * of the directory may have compacted it away. Call inside the caller's write transaction.
     *
     * @return the pack the batch's contents go to
     */
    long beginBatch(Catalogue catalogue) throws IOException, java.sql.SQLException {
        batch.clear();
        batchBytes = 0;
        createdInBatch = false;
        if (current != null && catalogue.newestPack() != currentId) {
            // Another writer of this directory (a second store opened in this process) started a newer
            // pack or compacted this one away: its row is gone and its file deleted, so bytes appended
            // through this channel would land in no file a row can name. IDs are never reused, so the
            // newest row still naming this ID means the file is the one this channel has open.
            closeCurrent();
        }
        if (current == null && !startNew) {
            long newest = catalogue.newestPack();
            if (newest != 0) {
                // Only a regular file is appended to: a FIFO would block the write forever, a directory
                // refuses it, and a link would be written through while readers (which do not follow
                // links) call its contents damaged. Anything else is treated as a missing pack: its
                // contents are reported damaged when read, and the batch starts a new pack.
                Path file = path(newest);
                try {
                    BasicFileAttributes attrs =
                            Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                    if (attrs.isRegularFile()) {
                        current = FileChannel.open(file, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
                        currentId = newest;
                    } else {
                        currentId = newest; // the new pack's ID comes after it
                    }
                } catch (NoSuchFileException e) {
                    currentId = newest;
                } catch (IOException e) {
                    currentId = newest; // unreadable (permissions): start a new pack rather than fail every write
                }
            }
        }
        if (current != null) {
            // The file's own length, not the last known end: a failed write may have left bytes past it.
            end = current.size();
            if (end < packSize) {
                return currentId;
            }
            closeCurrent();
        }
        long id = Math.max(catalogue.nextPackId(), currentId + 1);
        Files.createDirectories(dir);
        // No row names this ID yet, so any file by its name is a leftover of a failed batch: start it anew.
        current = FileChannel.open(
                path(id),
                StandardOpenOption.CREATE,
                StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING,
                LinkOption.NOFOLLOW_LINKS);
        currentId = id;
        end = 0;
        startNew = false;
        createdInBatch = true;
        Blobs.syncDirectory(dir);
        catalogue.addPack(id);
        return id;
    }

    /** Adds {@code bytes} to the batch; returns their offset in the batch's pack. */
    long add(byte[] bytes) {
        long offset = end + batchBytes;
        batch.add(ByteBuffer.wrap(bytes));
        batchBytes += bytes.length;
        return offset;
    }

    /**
     * Writes the batch's contents after the pack's end; {@link #force} then syncs them, before the
     * rows naming them commit.
     */
    void writeBatch() throws IOException {
        if (batch.isEmpty()) {
            return;
        }
        FileChannel channel = current;
        ByteBuffer[] buffers = batch.toArray(new ByteBuffer[0]);
        channel.position(end);
        long left = batchBytes;
        while (left > 0) {
            left -= channel.write(buffers);
        }
        end += batchBytes;
        batch.clear();
        batchBytes = 0;
    }

    /** Syncs the pack being appended to (its data; its length is synced with it, as fdatasync does). */
    void force() throws IOException {
        FileChannel channel = current;
        if (channel != null) {
            channel.force(false);
        }
    }

    /**
     * After a batch whose transaction rolled back: a pack it created has no row (the row went with the
     * transaction), so nothing more may be appended to it; the next batch starts a new one, and the
     * next writer to open the store deletes the file.
     */
    void batchFailed() {
        batch.clear();
        batchBytes = 0;
        if (createdInBatch) {
            createdInBatch = false;
            startNewPack();
        }
    }

    /** Closes the pack being appended to; the next batch starts a new one (the old one may be deleted). */
    void startNewPack() {
        closeCurrent();
        startNew = true;
    }

    /** Closes the pack being appended to. */
    void close() {
        closeCurrent();
    }

    private void closeCurrent() {
        if (current != null) {
            try {
                current.close();
            } catch (IOException ignored) {
                // written and synced batch by batch: nothing is lost by a failed close
            }
            current = null;
        }
    }

    /** Pack files open for reading, by ID; bounded by {@link #MAX_OPEN_FOR_READING}. */
    private final java.util.concurrent.ConcurrentHashMap<Long, FileChannel> reading =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** At most this many packs are kept open for reading (a restore reads one pack after another). */
    static final int MAX_OPEN_FOR_READING = 16;

    /**
     * Reads {@code size} bytes at {@code offset} of pack {@code id}, through a channel kept open for
     * the next read of that pack. Thread-safe (positional reads).
     *
     * @throws NoSuchFileException if the pack file is missing
     * @throws Blobs.NotAContentFile if something other than a regular file stands in its place
     * @throws java.io.EOFException if the pack file ends before those bytes
     */
    byte[] read(long id, long offset, int size) throws IOException {
        for (int attempt = 1; ; attempt++) {
            FileChannel channel = reading.get(id);
            if (channel == null) {
                channel = openForReading(id);
            }
            byte[] bytes = new byte[size];
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            try {
                while (buffer.hasRemaining()) {
                    if (channel.read(buffer, offset + buffer.position()) < 0) {
                        throw new java.io.EOFException(path(id) + " ends at byte " + channel.size()
                                + ", before the end of the " + size + " bytes at offset " + offset);
                    }
                }
                return bytes;
            } catch (java.nio.channels.ClosedChannelException e) {
                // Closed by another thread making room for its pack (or by a compaction): open it again, once.
                reading.remove(id, channel);
                if (attempt == 2 || Thread.currentThread().isInterrupted()) {
                    throw e;
                }
            }
        }
    }

    private FileChannel openForReading(long id) throws IOException {
        Path file = path(id);
        BasicFileAttributes attrs = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!attrs.isRegularFile()) {
            throw new Blobs.NotAContentFile(file);
        }
        FileChannel opened = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
        if (reading.size() >= MAX_OPEN_FOR_READING) {
            closeReaders(); // a reader still using one of them reopens it
        }
        FileChannel raced = reading.putIfAbsent(id, opened);
        if (raced != null) {
            opened.close();
            return raced;
        }
        return opened;
    }

    /** Closes pack {@code id} if it is open for reading (it was deleted). */
    void closeReader(long id) {
        FileChannel c = reading.remove(id);
        if (c != null) {
            try {
                c.close();
            } catch (IOException ignored) {
                // read-only
            }
        }
    }

    /** Closes the packs open for reading. */
    void closeReaders() {
        for (Long id : List.copyOf(reading.keySet())) {
            FileChannel c = reading.remove(id);
            if (c != null) {
                try {
                    c.close();
                } catch (IOException ignored) {
                    // read-only
                }
            }
        }
    }
}
