package dev.ballast.storage.object.local;

import dev.ballast.storage.internal.Sha256;
import dev.ballast.storage.object.ObjectContent;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;

/**
 * The content files of a {@link LocalObjectStore}: write-once files under {@code blobs/xx/} named by
 * the SHA-256 of their bytes, so identical content is stored once. A file is written under
 * {@code tmp/}, synced, renamed into place (an atomic replace: a reader holding the old file keeps
 * reading it) and its directory synced before any index row may point at it; a crash at any step
 * leaves at most a temporary file, removed when a writer next opens the store, or an unreferenced
 * content file, never a torn one. Runs of 64 KiB of zeros are not written (the file gets holes), so
 * sparse and zero-filled content costs no disk.
 *
 * <p>Stateless apart from its directories; thread-safe.
 */
final class Blobs {

    static final String BLOBS = "blobs";
    static final String TMP = "tmp";

    private static final HexFormat HEX = HexFormat.of();
    private static final int BUFFER_BYTES = 1024 * 1024;
    private static final int SPARSE_BLOCK = 64 * 1024;
    private static final byte[] ZEROS = new byte[SPARSE_BLOCK];

    private final Path blobsDir;
    private final Path tmpDir;

    Blobs(Path root) {
        this.blobsDir = root.resolve(BLOBS);
        this.tmpDir = root.resolve(TMP);
    }

    /**
     * Creates {@code blobs/} and {@code tmp/}; the caller syncs the root. A subdirectory
     * {@code blobs/xx/} is made when its first content file is published (see {@link #publish}), so a
     * store that only ever holds small contents (in packs) has none.
     */
    void create() throws IOException {
        Files.createDirectories(tmpDir);
        Files.createDirectories(blobsDir);
    }

    /** Deletes what a killed writer left in {@code tmp/}; call only while holding the writer lock. */
    int removeTemporaryFiles() throws IOException {
        int removed = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(tmpDir)) {
            for (Path f : files) {
                Files.deleteIfExists(f);
                removed++;
            }
        }
        return removed;
    }

    /** The file holding the content whose SHA-256 is {@code address}. */
    Path path(byte[] address) {
        String hex = HEX.formatHex(address);
        return blobsDir.resolve(hex.substring(0, 2)).resolve(hex);
    }

    /** Temporary files present now (for tests and checks). */
    long temporaryFiles() throws IOException {
        try (var files = Files.list(tmpDir)) {
            return files.count();
        }
    }

    /**
     * Content read once and hashed: held in memory ({@code inline}) or written to a synced temporary
     * file ({@code temporary}) that {@link #publish} renames into place.
     */
    record Staged(
            byte[] address,
            long size,
            byte @Nullable [] inline,
            @Nullable Path temporary,
            byte @Nullable [] blockTable) {
        Staged(byte[] address, long size, byte @Nullable [] inline, @Nullable Path temporary) {
            this(address, size, inline, temporary, inlineTable(inline));
        }

        /** The block digests of in-memory bytes larger than one block (an inline threshold above 1 MiB). */
        private static byte @Nullable [] inlineTable(byte @Nullable [] inline) {
            if (inline == null || !dev.ballast.storage.internal.BlockDigests.needsTable(inline.length)) {
                return null;
            }
            var b = new dev.ballast.storage.internal.BlockDigests.Builder();
            b.update(inline, 0, inline.length);
            return b.build().table();
        }

        String sha256Hex() {
            return Sha256.hex(address);
        }
    }

    /** The content's source failed (not the store): a read error of the caller's file or stream. */
    static final class SourceFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        SourceFailure(IOException cause) {
            super(cause.getMessage(), cause);
        }

        @Override
        public synchronized @Nullable IOException getCause() {
            return (IOException) super.getCause();
        }
    }

    /**
     * Reads exactly {@code content.length()} bytes of {@code content} once, hashing them; up to
     * {@code inlineThreshold} bytes are kept in memory, more are written to a temporary file.
     *
     * @throws IllegalArgumentException if the content ends before its length, or a stream has more
     * @throws SourceFailure if reading the content fails
     * @throws IOException if writing the temporary file fails
     */
    Staged stage(ObjectContent content, int inlineThreshold) throws IOException {
        long length = content.length();
        if (content instanceof ObjectContent.Bytes b) {
            byte[] bytes = b.bytes();
            if (length <= inlineThreshold) {
                return new Staged(Sha256.of(bytes), length, bytes, null);
            }
            try (Source source = new ArraySource(bytes)) {
                return writeTemporary(source, length, "byte array");
            }
        }
        try (Source source = open(content)) {
            if (length <= inlineThreshold) {
                byte[] bytes = new byte[(int) length];
                int n = source.readFully(bytes, 0, bytes.length);
                if (n < length) {
                    throw source.endedEarly(length, n);
                }
                source.requireEnd(length);
                return new Staged(Sha256.of(bytes), length, bytes, null);
            }
            return writeTemporary(source, length, source.describe());
        }
    }

    private static Source open(ObjectContent content) {
        if (content instanceof ObjectContent.FileRegion f) {
            try {
                return new FileSource(f.file(), FileChannel.open(f.file(), StandardOpenOption.READ));
            } catch (IOException e) {
                throw new SourceFailure(e);
            }
        }
        return new StreamSource(((ObjectContent.Stream) content).stream());
    }

    private Staged writeTemporary(Source source, long length, String what) throws IOException {
        Path tmp = tmpDir.resolve(Long.toHexString(ThreadLocalRandom.current().nextLong()) + ".tmp");
        MessageDigest digest = Sha256.newDigest();
        var blocks = new dev.ballast.storage.internal.BlockDigests.Builder();
        byte[] buffer = new byte[(int) Math.min(BUFFER_BYTES, Math.max(length, 1))];
        boolean done = false;
        try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            long position = 0;
            while (position < length) {
                int want = (int) Math.min(buffer.length, length - position);
                int n = source.readFully(buffer, 0, want);
                digest.update(buffer, 0, n);
                blocks.update(buffer, 0, n);
                writeSparse(out, buffer, n, position);
                position += n;
                if (n < want) {
                    throw source.endedEarly(length, position);
                }
            }
            source.requireEnd(length);
            if (out.size() < length) {
                out.write(ByteBuffer.wrap(new byte[1]), length - 1); // a trailing hole still counts in the size
            }
            out.force(false);
            done = true;
        } finally {
            if (!done) {
                Files.deleteIfExists(tmp);
            }
        }
        byte[] table = dev.ballast.storage.internal.BlockDigests.needsTable(length)
                ? blocks.build().table()
                : null;
        return new Staged(digest.digest(), length, null, tmp, table);
    }

    /** Writes {@code buffer[0, n)} at {@code position}, skipping 64 KiB blocks that are all zero. */
    private static void writeSparse(FileChannel out, byte[] buffer, int n, long position) throws IOException {
        int start = -1;
        for (int block = 0; block < n; block += SPARSE_BLOCK) {
            int len = Math.min(SPARSE_BLOCK, n - block);
            boolean zero = Arrays.mismatch(buffer, block, block + len, ZEROS, 0, len) == -1;
            if (!zero && start < 0) {
                start = block;
            } else if (zero && start >= 0) {
                writeFully(out, ByteBuffer.wrap(buffer, start, block - start), position + start);
                start = -1;
            }
        }
        if (start >= 0) {
            writeFully(out, ByteBuffer.wrap(buffer, start, n - start), position + start);
        }
    }

    private static void writeFully(FileChannel out, ByteBuffer bytes, long position) throws IOException {
        long at = position;
        while (bytes.hasRemaining()) {
            at += out.write(bytes, at);
        }
    }

    /**
     * Renames a synced temporary file to its content file, replacing an existing one atomically
     * (identical bytes by name; a damaged copy is healed). The caller syncs the returned directory
     * before committing an index row that points at the file.
     *
     * @return the directory to sync
     */
    @Nullable
    Path publish(Staged staged) throws IOException {
        Path target = path(staged.address());
        try {
            Files.move(staged.temporary(), target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (NoSuchFileException e) {
            // blobs/xx/ is made on first use (or was removed by hand): create it, make its name durable, retry once.
            Files.createDirectories(target.getParent());
            syncDirectory(blobsDir);
            Files.move(staged.temporary(), target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        return target.getParent();
    }

    /** Deletes the temporary file of content that will not be published. */
    void discard(Staged staged) {
        if (staged != null && staged.temporary() != null) {
            try {
                Files.deleteIfExists(staged.temporary());
            } catch (IOException ignored) {
                // removed by the next writer's open
            }
        }
    }

    /**
     * Opens the content file {@code address}, of {@code length} bytes as its index row records, for
     * reading.
     *
     * @throws java.nio.file.NoSuchFileException if it is missing
     * @throws NotAContentFile if something else than a regular file is in its place (a FIFO would
     *     block the read forever, a directory or device is no content of ours)
     * @throws WrongLength if it does not hold {@code length} bytes (cut short: a read must not hand
     *     out a prefix and fail only at its end)
     */
    InputStream open(byte[] address, long length) throws IOException {
        Path file = path(address);
        checked(file, length, true);
        return Files.newInputStream(file, java.nio.file.LinkOption.NOFOLLOW_LINKS);
    }

    /** Looks at {@code file} (one stat): a regular file of {@code length} bytes ({@code exactly}), or of at least that many. */
    private static void checked(Path file, long length, boolean exactly) throws IOException {
        java.nio.file.attribute.BasicFileAttributes attrs = Files.readAttributes(
                file, java.nio.file.attribute.BasicFileAttributes.class, java.nio.file.LinkOption.NOFOLLOW_LINKS);
        if (!attrs.isRegularFile()) {
            throw new NotAContentFile(file);
        }
        if (exactly ? attrs.size() != length : attrs.size() < length) {
            throw new WrongLength(file, attrs.size(), length, exactly);
        }
    }

    /**
     * Opens the content file {@code address} for reading from byte {@code offset} on (a seek, not a
     * read of the bytes before it).
     *
     * @throws java.nio.file.NoSuchFileException if it is missing
     * @throws NotAContentFile if something else than a regular file is in its place
     * @throws WrongLength if it ends before byte {@code end}, the end of what will be read (a file cut
     *     short still serves a range its remaining bytes hold, each block checked against its digest)
     */
    InputStream openAt(byte[] address, long offset, long end) throws IOException {
        Path file = path(address);
        checked(file, end, false);
        FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, java.nio.file.LinkOption.NOFOLLOW_LINKS);
        try {
            channel.position(offset);
        } catch (IOException e) {
            channel.close();
            throw e;
        }
        return java.nio.channels.Channels.newInputStream(channel);
    }

    /** Something other than a regular file stands where a content file should be. */
    static final class NotAContentFile extends IOException {
        private static final long serialVersionUID = 1L;

        NotAContentFile(Path file) {
            super(file + " is not a regular file");
        }
    }

    /** A content file whose length is not the one its index row records: cut short, or written over. */
    static final class WrongLength extends IOException {
        private static final long serialVersionUID = 1L;

        WrongLength(Path file, long found, long wanted, boolean exactly) {
            super(file + " has " + found + " bytes but " + wanted
                    + (exactly ? " are recorded" : " are needed to read the range asked"));
        }
    }

    /** Deletes the content file {@code address} if it exists. */
    void delete(byte[] address) throws IOException {
        Files.deleteIfExists(path(address));
    }

    /** fsync of a directory, so the names created or renamed in it survive a power cut. */
    static void syncDirectory(Path dir) throws IOException {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    /** Where content bytes come from, with the messages the store's contract asks for. */
    private abstract static class Source implements Closeable {
        /** Reads up to {@code len} bytes, fewer only at the end of the content. */
        final int readFully(byte[] b, int off, int len) {
            int total = 0;
            try {
                while (total < len) {
                    int n = read(b, off + total, len - total);
                    if (n < 0) {
                        break;
                    }
                    total += n;
                }
            } catch (IOException e) {
                throw new SourceFailure(e);
            }
            return total;
        }

        abstract int read(byte[] b, int off, int len) throws IOException;

        abstract String describe();

        IllegalArgumentException endedEarly(long declared, long actual) {
            return new IllegalArgumentException(describe() + " must yield its declared length of " + declared
                    + " bytes but ended after " + actual + " bytes");
        }

        /** A stream must end at its declared length; a file may have grown (its first bytes are stored). */
        void requireEnd(long declared) {}

        @Override
        public void close() {}
    }

    private static final class ArraySource extends Source {
        private final byte[] bytes;
        private int position;

        ArraySource(byte[] bytes) {
            this.bytes = bytes;
        }

        @Override
        int read(byte[] b, int off, int len) {
            if (position >= bytes.length) {
                return -1;
            }
            int n = Math.min(len, bytes.length - position);
            System.arraycopy(bytes, position, b, off, n);
            position += n;
            return n;
        }

        @Override
        String describe() {
            return "byte array";
        }
    }

    private static final class FileSource extends Source {
        private final Path file;
        private final FileChannel channel;

        FileSource(Path file, FileChannel channel) {
            this.file = file;
            this.channel = channel;
        }

        @Override
        int read(byte[] b, int off, int len) throws IOException {
            return channel.read(ByteBuffer.wrap(b, off, len));
        }

        @Override
        String describe() {
            return "file " + file;
        }

        @Override
        IllegalArgumentException endedEarly(long declared, long actual) {
            return new IllegalArgumentException(
                    "file " + file + " must still be " + declared + " bytes long but ended after " + actual + " bytes");
        }

        @Override
        public void close() {
            try {
                channel.close();
            } catch (IOException ignored) {
                // a read-only channel: nothing was lost
            }
        }
    }

    private static final class StreamSource extends Source {
        private final InputStream in;

        StreamSource(InputStream in) {
            this.in = in;
        }

        @Override
        int read(byte[] b, int off, int len) throws IOException {
            return in.read(b, off, len);
        }

        @Override
        String describe() {
            return "stream";
        }

        @Override
        void requireEnd(long declared) {
            int next;
            try {
                next = in.read();
            } catch (IOException e) {
                throw new SourceFailure(e);
            }
            if (next != -1) {
                throw new IllegalArgumentException(
                        "stream must yield exactly its declared length of " + declared + " bytes but had more");
            }
        }
    }
}
