package dev.ballast.storage.object.local;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.SQLException;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;

/**
 * The journal of a {@link LocalObjectStore}: every version the index records, every version it
 * removes and every content a compaction moves, appended to {@code journal/NNNNNNNN.log} and synced
 * before the index transaction that records them commits, so that the index can be rebuilt from
 * the store's own files when it is damaged, cut short or lost ({@link IndexRepair}), as restic
 * rebuilds its index from its pack files' headers.
 *
 * <h2>Format</h2>
 * A journal file is a sequence of frames: a 4-byte big-endian payload length, the CRC-32C of the
 * payload (4 bytes), the payload. A payload's first byte is its type:
 * <pre>
 *   0 HEADER   format version (int, 1), the store's inline threshold (int)
 *   1 VERSION  key (int length, UTF-8 bytes), version ID (int length, ASCII), flags (byte: 1 delete
 *              marker, 2 a SHA-256 is recorded), size (long), content address (32 bytes, not for a
 *              delete marker), SHA-256 (32 bytes, when recorded), generation (long), last-modified
 *              milliseconds (long), pack (long, 0 when the content is not in a pack), offset in the
 *              pack (long)
 *   2 REMOVE   key, version ID: the version was removed for good
 *   3 LOCATE   content address (32 bytes), pack (long), offset (long): the content is now there
 *   4 ABORT    count (int): the last count frames of this file belong to a transaction that rolled back
 *   5 COMMIT   the offset (long) in this file where the frames of the transaction that committed end, which
 *              is where the index's {@code journal_position} points; nothing in files of the earlier format,
 *              where it says that the frames before it committed
 *   6 BASE     the index position (journal file, long; offset, long) whose state this file holds, or 0 and
 *              0 when it holds a state of its own (a rebuilt index): the file, written whole under a
 *              temporary name and renamed, holds every version of the index, and the files numbered below
 *              it are superseded (see {@link JournalFold})
 * </pre>
 * Every commit records in the index the journal file and the offset its frames reached
 * ({@link Position}), so that {@link OlderIndex} tells exactly an index behind its journal from a
 * journal shorter than its index, and a rebuild tells the versions removed on purpose from those lost.
 * The frames after a file's last COMMIT belong to a transaction that may or may not have committed
 * (its writer was killed between syncing them and committing, or after committing but before the
 * marker): a rebuild keeps their versions (their content is on disk) and ignores their removals, so
 * it never loses a version the index held.
 * Each writer opening a store appends to a new file, numbered one above the highest present, whose
 * first frame is a HEADER. A frame cut short at the end of a file (a writer killed while writing
 * it) ends the file's reading; a frame that fails its CRC (a damaged byte) is skipped, and reading
 * resumes at the next valid frame (see {@link #read}). A store written before journals has
 * none; its first writer of this version writes the versions it holds as the first file.
 *
 * <p>The writer's use is confined to the store's write lock; reading is static. Writers of one
 * directory in one process share one journal, and its frames are written inside their index
 * transactions, so the journal's order is the order in which they commit; its COMMIT and ABORT
 * markers assume one transaction at a time, which SQLite's write lock gives, except in the moment
 * between one writer's commit and its marker, where another writer of the same process may begin:
 * a rebuild then takes that other writer's frames for committed ones.
 */
final class Journal {

    static final String DIR = "journal";
    static final int FORMAT = 1;

    static final byte HEADER = 0;
    static final byte VERSION = 1;
    static final byte REMOVE = 2;
    static final byte LOCATE = 3;
    static final byte ABORT = 4;
    static final byte COMMIT = 5;
    static final byte BASE = 6;

    /**
     * A place in the journal: the end of the frames of a transaction in file {@code file}, at byte
     * {@code offset}. Ordered by file, then offset.
     */
    record Position(long file, long offset) implements Comparable<Position> {
        @Override
        public int compareTo(Position o) {
            int byFile = Long.compare(file, o.file);
            return byFile != 0 ? byFile : Long.compare(offset, o.offset);
        }

        /** As the index's meta row holds it: the file's number in hex, a colon, the offset. */
        @Override
        public String toString() {
            return String.format("%08x:%d", file, offset);
        }

        static @Nullable Position parse(@Nullable String s) {
            if (s == null) {
                return null;
            }
            int colon = s.indexOf(':');
            try {
                return new Position(
                        Long.parseUnsignedLong(s.substring(0, colon), 16), Long.parseLong(s.substring(colon + 1)));
            } catch (RuntimeException e) {
                return null; // unreadable: an index without a position
            }
        }

        /** The journal file's name. */
        String fileName() {
            return String.format("%08x.log", file);
        }
    }

    /** A frame's payload is never larger than this (a key is at most 1 KiB in S3, 64 KiB here). */
    static final int MAX_PAYLOAD = 1 << 20;

    private final Path dir;
    private final int inlineThreshold;
    private @Nullable FileChannel current;
    /** The number of {@link #current}. */
    private long currentId;

    private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
    private final DataOutputStream out = new DataOutputStream(pending);
    /** Frames added and not yet written. */
    private int pendingFrames;
    /** Frames written since the last {@link #committed} (for ABORT). */
    private int uncommitted;

    Journal(Path root, int inlineThreshold) {
        this.dir = root.resolve(DIR);
        this.inlineThreshold = inlineThreshold;
    }

    /** One recorded version (or delete marker). */
    record Version(
            String key,
            String versionId,
            boolean deleteMarker,
            long size,
            byte @Nullable [] address,
            byte @Nullable [] sha256,
            long generation,
            long modifiedMillis,
            long pack,
            long offset) {}

    /** Adds a VERSION frame to the next {@link #write}. */
    void version(Version v) throws IOException {
        frame(versionPayload(v));
    }

    static byte[] versionPayload(Version v) throws IOException {
        ByteArrayOutputStream payload = new ByteArrayOutputStream(96 + v.key().length());
        DataOutputStream p = new DataOutputStream(payload);
        p.writeByte(VERSION);
        bytes(p, v.key().getBytes(StandardCharsets.UTF_8));
        bytes(p, v.versionId().getBytes(StandardCharsets.US_ASCII));
        p.writeByte((v.deleteMarker() ? 1 : 0) | (v.sha256() != null ? 2 : 0));
        p.writeLong(v.size());
        if (!v.deleteMarker()) {
            p.write(v.address());
        }
        if (v.sha256() != null) {
            p.write(v.sha256());
        }
        p.writeLong(v.generation());
        p.writeLong(v.modifiedMillis());
        p.writeLong(v.pack());
        p.writeLong(v.offset());
        return payload.toByteArray();
    }

    /** Adds a REMOVE frame to the next {@link #write}. */
    void remove(String key, String versionId) throws IOException {
        ByteArrayOutputStream payload = new ByteArrayOutputStream(32 + key.length());
        DataOutputStream p = new DataOutputStream(payload);
        p.writeByte(REMOVE);
        bytes(p, key.getBytes(StandardCharsets.UTF_8));
        bytes(p, versionId.getBytes(StandardCharsets.US_ASCII));
        frame(payload.toByteArray());
    }

    /** Adds a LOCATE frame to the next {@link #write}. */
    void locate(byte[] address, long pack, long offset) throws IOException {
        ByteArrayOutputStream payload = new ByteArrayOutputStream(49);
        DataOutputStream p = new DataOutputStream(payload);
        p.writeByte(LOCATE);
        p.write(address);
        p.writeLong(pack);
        p.writeLong(offset);
        frame(payload.toByteArray());
    }

    /**
     * Appends the frames added since the last write to the journal file (opening a new one first if
     * needed). Called only inside an index transaction, so that the journal's order is the order in
     * which the transactions commit.
     */
    synchronized void write() throws IOException {
        if (pending.size() == 0) {
            return;
        }
        if (current == null) {
            open();
        }
        ByteBuffer buffer = ByteBuffer.wrap(pending.toByteArray());
        int frames = pendingFrames;
        pending.reset();
        pendingFrames = 0;
        while (buffer.hasRemaining()) {
            current.write(buffer);
        }
        uncommitted += frames;
    }

    /** Syncs what was written. */
    synchronized void force() throws IOException {
        if (current != null) {
            current.force(false);
        }
    }

    /**
     * Where the frames written so far end, to be recorded in the index by the transaction that wrote
     * them ({@link VersionIndex#recordJournalPosition}); null when nothing was written.
     */
    synchronized @Nullable Position position() throws IOException {
        return current == null ? null : new Position(currentId, current.position());
    }

    /**
     * Records in the index, inside its transaction, where the journal's frames end: called after the
     * transaction's last {@link #write} (and its sync), before its commit.
     *
     * @return the position recorded, for {@link #committed(Position)}; null when nothing was written
     */
    @Nullable
    Position record(VersionIndex writer) throws IOException, java.sql.SQLException {
        Position at = position();
        if (at != null) {
            writer.recordJournalPosition(at);
        }
        return at;
    }

    /** The transaction whose frames end at {@code at} (see {@link #record}) committed. */
    synchronized void committed(@Nullable Position at) {
        int n = uncommitted;
        uncommitted = 0;
        if (n == 0 || current == null || at == null || at.file() != currentId) {
            return;
        }
        // Written, not synced: it survives the process being killed, and a rebuild that misses it
        // (a power cut) only treats the transaction as possibly uncommitted, keeping every version.
        try {
            frame(commitPayload(at.offset()));
            write();
        } catch (IOException e) {
            pending.reset(); // the transaction did commit; a missing marker costs no version
            pendingFrames = 0;
        }
        uncommitted = 0;
    }

    /**
     * The batch written since the last {@link #committed} rolled back: drops frames not yet written
     * and appends an ABORT frame for those that were (unsynced: a rebuild that misses it keeps
     * versions whose content is on disk, never loses one).
     */
    synchronized void rolledBack() {
        pending.reset();
        pendingFrames = 0;
        int n = uncommitted;
        uncommitted = 0;
        if (n == 0 || current == null) {
            return;
        }
        try {
            ByteArrayOutputStream payload = new ByteArrayOutputStream(5);
            DataOutputStream p = new DataOutputStream(payload);
            p.writeByte(ABORT);
            p.writeInt(n);
            frame(payload.toByteArray());
            write();
            uncommitted = 0;
        } catch (IOException e) {
            pending.reset(); // the journal file is failing: the next write reports it
            pendingFrames = 0;
        }
    }

    static byte[] commitPayload(long offset) {
        return ByteBuffer.allocate(9).put(COMMIT).putLong(offset).array();
    }

    synchronized void close() {
        if (current != null) {
            try {
                current.close();
            } catch (IOException ignored) {
                // synced frame by frame
            }
            current = null;
        }
    }

    private void open() throws IOException {
        Files.createDirectories(dir);
        long id = 1;
        for (long existing : JournalFiles.files(dir).keySet()) {
            id = Math.max(id, existing + 1);
        }
        while (true) {
            try {
                current = FileChannel.open(
                        dir.resolve(String.format("%08x.log", id)),
                        StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.WRITE,
                        LinkOption.NOFOLLOW_LINKS);
                break;
            } catch (java.nio.file.FileAlreadyExistsException taken) {
                id++;
            }
        }
        currentId = id;
        Blobs.syncDirectory(dir);
        byte[] rest = pending.toByteArray();
        int frames = pendingFrames;
        pending.reset();
        frame(headerPayload(inlineThreshold));
        out.write(rest);
        pendingFrames = frames; // the header is not part of any transaction
    }

    private synchronized void frame(byte[] payload) throws IOException {
        pendingFrames++;
        frame(out, payload);
    }

    /** Writes one frame of {@code payload} to {@code to}. */
    static void frame(DataOutputStream to, byte[] payload) throws IOException {
        CRC32C crc = new CRC32C();
        crc.update(payload);
        to.writeInt(payload.length);
        to.writeInt((int) crc.getValue());
        to.write(payload);
    }

    static byte[] headerPayload(int inlineThreshold) {
        return ByteBuffer.allocate(9)
                .put(HEADER)
                .putInt(FORMAT)
                .putInt(inlineThreshold)
                .array();
    }

    /**
     * Closes the file being appended to, so that the next write opens a new one numbered above every
     * file present ({@link JournalFold} writes its base first). Called inside an index transaction.
     */
    synchronized void startNewFile() {
        close();
    }

    int inlineThreshold() {
        return inlineThreshold;
    }

    private static void bytes(DataOutputStream p, byte[] b) throws IOException {
        p.writeInt(b.length);
        p.write(b);
    }

    /**
     * Writes every version of a store written before journals to its journal, once (the index then
     * records that it did), so that its index can be rebuilt from then on.
     */
    static void journalEveryVersion(Path dir, VersionIndex writer, Journal journal) throws SQLException, IOException {
        if (writer.journalled()) {
            return;
        }
        writer.begin();
        try {
            long[] count = new long[1];
            long inline = writer.forEachVersion(v -> {
                journal.version(v);
                if (++count[0] % 4096 == 0) {
                    journal.write();
                }
            });
            journal.write();
            journal.force();
            writer.markJournalled();
            Position at = journal.record(writer);
            writer.commit();
            journal.committed(at);
            LocalObjectStore.LOG.info(
                    "Wrote the {} version(s) of '{}' to its journal, so that its index can be rebuilt", count[0], dir);
            if (inline > 0) {
                LocalObjectStore.LOG.warn(
                        "{} version(s) of '{}' keep their content inside its index (the first layout): a rebuilt"
                                + " index cannot recover that content",
                        inline,
                        dir);
            }
        } catch (SQLException | IOException | RuntimeException e) {
            try {
                writer.rollback();
            } catch (SQLException ignored) {
                // the first failure is the one reported
            }
            journal.rolledBack();
            throw e;
        }
    }

    // ------------------------------------------------------------------------------------------ reading
}
