package dev.ballast.storage.object.local;

import static dev.ballast.storage.object.local.Journal.ABORT;
import static dev.ballast.storage.object.local.Journal.BASE;
import static dev.ballast.storage.object.local.Journal.COMMIT;
import static dev.ballast.storage.object.local.Journal.HEADER;
import static dev.ballast.storage.object.local.Journal.LOCATE;
import static dev.ballast.storage.object.local.Journal.MAX_PAYLOAD;
import static dev.ballast.storage.object.local.Journal.REMOVE;
import static dev.ballast.storage.object.local.Journal.VERSION;

import dev.ballast.storage.object.local.Journal.Position;
import dev.ballast.storage.object.local.Journal.Version;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;

/**
 * Reading the {@link Journal}'s files back: which files there are, and the frames each holds, damage
 * skipped and named (the format is on {@link Journal}). Stateless; safe from any thread.
 */
final class JournalFiles {
    private JournalFiles() {}

    /** The journal files under {@code dir}, by number. */
    static TreeMap<Long, Path> files(Path dir) throws IOException {
        TreeMap<Long, Path> files = new TreeMap<>();
        if (!Files.isDirectory(dir)) {
            return files;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, "*.log")) {
            for (Path f : entries) {
                String name = f.getFileName().toString();
                try {
                    files.put(Long.parseUnsignedLong(name.substring(0, name.length() - 4), 16), f);
                } catch (NumberFormatException e) {
                    // not one of ours
                }
            }
        }
        return files;
    }

    /**
     * What {@code file} is when it is no regular file (without following a symbolic link): "a directory",
     * "a symbolic link", "a FIFO or other special file"; null for a regular file or none at all. Never opens it.
     */
    static @Nullable String notARegularFile(Path file) {
        if (Files.isSymbolicLink(file)) {
            return "a symbolic link";
        }
        if (Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) {
            return "a directory";
        }
        if (Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) || !Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            return null;
        }
        return "a FIFO or other special file";
    }

    /** A frame read back: its type and, for each type, the fields it carries. */
    record Frame(
            byte type,
            @Nullable Version version,
            @Nullable String key,
            @Nullable String versionId,
            byte @Nullable [] address,
            long pack,
            long offset,
            int count) {}

    /**
     * What reading one journal file found.
     *
     * @param damage where the file was damaged (each region skipped or the cut at its end), empty when intact
     * @param unreadable the versions named by frames that fail their CRC, as "KEY (version ID)", read
     *     from the damaged payload as it stands (so a name may itself be damaged)
     * @param committed how many of the frames, from the first, a COMMIT marker follows: the versions,
     *     removals and moves of transactions that committed (the others follow them)
     * @param pending the frames after the last COMMIT marker, removals included: a transaction that may
     *     or may not have committed, or is committing now
     * @param lastCommit the offset in the file the newest COMMIT marker names (for a marker of the earlier
     *     format, the marker's own offset), -1 when there is none
     * @param base the position a BASE frame says the file's state is that of ({@code 0:0} for a state of
     *     its own), null when the file is no base
     * @param firstDamage the offset in the file where the first damage (a region skipped, or the cut at its
     *     end) begins, -1 when the file is intact
     */
    record FileContents(
            Path file,
            int inlineThreshold,
            List<Frame> frames,
            List<String> damage,
            List<String> unreadable,
            int committed,
            List<Frame> pending,
            long lastCommit,
            @Nullable Position base,
            long firstDamage) {}

    /**
     * Reads one journal file. A frame that fails its CRC, has an impossible length or cannot be parsed
     * is skipped: reading resumes at the next byte where a whole frame with a plausible length, a
     * matching CRC-32C and a known type begins (the chance that damaged bytes pass as such a frame is
     * about one in four billion per candidate). A frame cut short by the end of the file ends it.
     */
    static FileContents read(Path file) throws IOException {
        return read(file, 0);
    }

    /**
     * Reads one journal file from byte {@code from} on (see {@link #read(Path)}): where no frame begins
     * there, reading resumes at the first valid frame after it, as after damage; nothing when the file
     * is no longer than that.
     */
    static FileContents read(Path file, long from) throws IOException {
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            // a FIFO's open would wait for a writer forever (a tester's: every command hung)
            throw new IOException(file + " is not a regular file, which a journal file must be");
        }
        byte[] all;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = channel.size();
            if (size - from > Integer.MAX_VALUE - 8) {
                throw new IOException(file + " is too large to be a journal file (" + size + " bytes)");
            }
            all = new byte[(int) Math.max(0, size - from)];
            ByteBuffer into = ByteBuffer.wrap(all);
            while (into.hasRemaining() && channel.read(into, from + into.position()) >= 0) {
                // until the end read at the start
            }
            if (into.hasRemaining()) {
                all = java.util.Arrays.copyOf(all, into.position());
            }
        }
        ByteBuffer in = ByteBuffer.wrap(all);
        List<Frame> frames = new ArrayList<>();
        List<String> damage = new ArrayList<>();
        List<String> unreadable = new ArrayList<>();
        int lastCommit = 0;
        long lastCommitOffset = -1;
        Position base = null;
        long firstDamage = -1;
        int floor = 0; // an ABORT never reaches back across a skipped region
        int threshold = LocalStoreConfig.DEFAULT_INLINE_THRESHOLD;
        int at = 0;
        while (at < all.length) {
            Frame f = frameAt(in, at);
            if (f == null) {
                if (firstDamage < 0) {
                    firstDamage = from + at;
                }
                if (all.length - at < 8 || cutShort(in, at)) {
                    damage.add(
                            "it ends inside the frame at byte " + (from + at) + " (a writer stopped while writing it)");
                    break;
                }
                nameDamaged(in, at, unreadable);
                int next = at + 1;
                while (next < all.length && frameAt(in, next) == null) {
                    next++;
                }
                damage.add(
                        next >= all.length
                                ? "bytes " + (from + at) + " to its end (" + (all.length - at)
                                        + " bytes) are damaged and were skipped"
                                : "bytes " + (from + at) + " to " + (from + next) + " (" + (next - at)
                                        + " bytes) are damaged and were skipped; reading resumed after them");
                at = next;
                floor = frames.size();
                continue;
            }
            long frameAt = from + at;
            at += 8 + in.getInt(at);
            if (f.type() == HEADER) {
                threshold = f.count();
            } else if (f.type() == BASE) {
                base = new Position(f.pack(), f.offset());
            } else if (f.type() == COMMIT) {
                lastCommit = frames.size();
                lastCommitOffset = Math.max(lastCommitOffset, f.offset() < 0 ? frameAt : f.offset());
            } else if (f.type() == ABORT) {
                for (int i = 0; i < f.count() && frames.size() > Math.max(lastCommit, floor); i++) {
                    frames.remove(frames.size() - 1); // a transaction that rolled back
                }
            } else {
                frames.add(f);
            }
        }
        // The last transaction's removals are uncertain: the version stays (see the class comment).
        List<Frame> certain = new ArrayList<>(frames.subList(0, lastCommit));
        for (Frame f : frames.subList(lastCommit, frames.size())) {
            if (f.type() != REMOVE) {
                certain.add(f);
            }
        }
        return new FileContents(
                file,
                threshold,
                certain,
                List.copyOf(damage),
                List.copyOf(unreadable),
                lastCommit,
                List.copyOf(frames.subList(lastCommit, frames.size())),
                lastCommitOffset,
                base,
                firstDamage);
    }

    /** The whole, valid frame at {@code at}, or null. */
    private static @Nullable Frame frameAt(ByteBuffer in, int at) {
        if (in.limit() - at < 9) {
            return null;
        }
        int length = in.getInt(at);
        if (length <= 0 || length > MAX_PAYLOAD || length > in.limit() - at - 8) {
            return null;
        }
        byte type = in.get(at + 8);
        if (type < HEADER || type > BASE) {
            return null;
        }
        CRC32C check = new CRC32C();
        check.update(in.array(), at + 8, length);
        if ((int) check.getValue() != in.getInt(at + 4)) {
            return null;
        }
        try {
            return parse(java.util.Arrays.copyOfRange(in.array(), at + 8, at + 8 + length));
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * Whether the frame at {@code at} is whole but for the end of the file: a plausible length that
     * runs past it, and no valid frame after (a writer stopped while writing its last frame).
     */
    private static boolean cutShort(ByteBuffer in, int at) {
        int length = in.getInt(at);
        if (length <= 0 || length > MAX_PAYLOAD || length <= in.limit() - at - 8) {
            return false;
        }
        for (int next = at + 1; next < in.limit(); next++) {
            if (frameAt(in, next) != null) {
                return false;
            }
        }
        return true;
    }

    /** Names the version a damaged VERSION frame at {@code at} records, when its payload still parses. */
    private static void nameDamaged(ByteBuffer in, int at, List<String> names) {
        int length = in.getInt(at);
        if (length <= 0 || length > MAX_PAYLOAD || length > in.limit() - at - 8) {
            return;
        }
        try {
            Frame f = parse(java.util.Arrays.copyOfRange(in.array(), at + 8, at + 8 + length));
            if (f.type() == VERSION && f.version() != null) {
                names.add(f.key() + " (version " + f.versionId() + ")");
            }
        } catch (IOException | RuntimeException e) {
            // too damaged to name
        }
    }

    private static Frame parse(byte[] payload) throws IOException {
        DataInputStream p = new DataInputStream(new java.io.ByteArrayInputStream(payload));
        byte type = p.readByte();
        switch (type) {
            case HEADER -> {
                p.readInt(); // format
                return new Frame(type, null, null, null, null, 0, 0, p.readInt());
            }
            case VERSION -> {
                String key = new String(readBytes(p), StandardCharsets.UTF_8);
                String versionId = new String(readBytes(p), StandardCharsets.US_ASCII);
                int flags = p.readByte();
                boolean marker = (flags & 1) != 0;
                long size = p.readLong();
                byte[] address = null;
                if (!marker) {
                    address = new byte[32];
                    p.readFully(address);
                }
                byte[] sha = null;
                if ((flags & 2) != 0) {
                    sha = new byte[32];
                    p.readFully(sha);
                }
                Version v = new Version(
                        key,
                        versionId,
                        marker,
                        size,
                        address,
                        sha,
                        p.readLong(),
                        p.readLong(),
                        p.readLong(),
                        p.readLong());
                return new Frame(type, v, key, versionId, address, v.pack(), v.offset(), 0);
            }
            case REMOVE -> {
                String key = new String(readBytes(p), StandardCharsets.UTF_8);
                String versionId = new String(readBytes(p), StandardCharsets.US_ASCII);
                return new Frame(type, null, key, versionId, null, 0, 0, 0);
            }
            case LOCATE -> {
                byte[] address = new byte[32];
                p.readFully(address);
                return new Frame(type, null, null, null, address, p.readLong(), p.readLong(), 0);
            }
            case ABORT -> {
                return new Frame(type, null, null, null, null, 0, 0, p.readInt());
            }
            case COMMIT -> {
                // the offset its transaction's frames end at; -1 for a marker of the earlier format
                return new Frame(type, null, null, null, null, 0, payload.length >= 9 ? p.readLong() : -1, 0);
            }
            case BASE -> {
                return new Frame(type, null, null, null, null, p.readLong(), p.readLong(), 0);
            }
            default -> throw new IOException("unknown journal frame type " + type);
        }
    }

    private static byte[] readBytes(DataInputStream p) throws IOException {
        int n = p.readInt();
        if (n < 0 || n > MAX_PAYLOAD) {
            throw new IOException("impossible length " + n);
        }
        byte[] b = new byte[n];
        p.readFully(b);
        return b;
    }
}
