package dev.ballast.storage.internal;

import dev.ballast.storage.object.ObjectContent;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Content ready to upload: re-readable (bytes or a file, so any region can be sent again by a
 * retry), with its length and SHA-256 known before the first request, since both travel in the
 * request headers. A one-shot stream is copied into memory when small, else spooled to a temporary
 * file that {@link #close()} deletes; a consumed stream is never read again.
 *
 * <p>Every digest an upload needs is computed in the one read {@link #prepare(ObjectContent, Path,
 * Digests)} makes: the whole content's SHA-256 and, as {@link Digests} asks, the MD5 of each part
 * ({@code Content-MD5}, RFC 1864) and the SHA-256 of each part (the SigV4 payload hash and
 * {@code x-amz-checksum-sha256} of an UploadPart). Each byte goes through each digest once; a single
 * part's SHA-256 is the whole content's, not computed twice.
 *
 * <p>Not thread-safe for {@link #close()}; {@link #open(long, long)} may be called concurrently.
 */
public final class Payload implements AutoCloseable {

    /** Streams up to this many bytes are held in memory instead of spooled to disk. */
    public static final int IN_MEMORY_LIMIT = 1024 * 1024;

    /** The read size when hashing a file or spooling a stream. */
    private static final int BUFFER_SIZE = 64 * 1024;

    private final byte @Nullable [] bytes;
    private final @Nullable Path file;
    private final boolean temporary;
    private final long length;
    private final byte[] sha256;
    private final long partSize;
    private final byte @Nullable [][] partMd5;
    private final byte @Nullable [][] partSha256;
    private final byte @Nullable [] blockTable;

    private Payload(byte @Nullable [] bytes, @Nullable Path file, boolean temporary, long length, Hasher hasher) {
        this.bytes = bytes;
        this.file = file;
        this.temporary = temporary;
        this.length = length;
        this.sha256 = hasher.whole.digest();
        this.partSize = hasher.partSize;
        this.partMd5 = hasher.md5s();
        this.partSha256 = hasher.shas(sha256);
        this.blockTable = hasher.blocks == null ? null : hasher.blocks.build().table();
    }

    /**
     * The {@link BlockDigests} table, when it was asked for and the content has more than one block;
     * else null.
     */
    public byte @Nullable [] blockTable() {
        return blockTable == null ? null : blockTable.clone();
    }

    /**
     * Which digests {@link #prepare(ObjectContent, Path, Digests)} computes besides the whole
     * content's SHA-256, in the same read.
     *
     * @param partSize the size of each part but the last, in bytes, or 0 for one part holding the
     *     whole content
     * @param md5 whether to compute each part's MD5
     * @param partSha256 whether to compute each part's SHA-256 (with one part, the whole content's)
     * @param blocks whether to compute the content's {@link BlockDigests} table when it has more than
     *     one block
     */
    public record Digests(long partSize, boolean md5, boolean partSha256, boolean blocks) {
        /** The whole content's SHA-256 only. */
        public static final Digests SHA256_ONLY = new Digests(0, false, false);

        public Digests {
            if (partSize < 0) {
                throw new IllegalArgumentException("partSize must be >= 0 but was " + partSize);
            }
        }

        /** Digests without the block table. */
        public Digests(long partSize, boolean md5, boolean partSha256) {
            this(partSize, md5, partSha256, false);
        }
    }

    /**
     * Prepares {@code content}: hashes it and, for a stream, copies exactly its declared length.
     *
     * @param spoolDirectory where large streams are spooled
     * @throws IllegalArgumentException if a stream ends before its declared length, or a file's size
     *     changed since the content was created
     * @throws UncheckedIOException if reading the content or spooling fails
     */
    public static Payload prepare(ObjectContent content, Path spoolDirectory) {
        return prepare(content, spoolDirectory, Digests.SHA256_ONLY);
    }

    /**
     * Prepares {@code content} as {@link #prepare(ObjectContent, Path)} does, computing {@code digests}
     * in the same read.
     *
     * @param spoolDirectory where large streams are spooled
     * @throws IllegalArgumentException if a stream ends before its declared length, or a file's size
     *     changed since the content was created
     * @throws UncheckedIOException if reading the content or spooling fails
     */
    public static Payload prepare(ObjectContent content, Path spoolDirectory, Digests digests) {
        Objects.requireNonNull(content, "content");
        Objects.requireNonNull(digests, "digests");
        Hasher hasher = new Hasher(content.length(), digests);
        try {
            if (content instanceof ObjectContent.Bytes b) {
                hasher.update(b.bytes(), 0, b.bytes().length);
                return new Payload(b.bytes(), null, false, b.bytes().length, hasher);
            }
            if (content instanceof ObjectContent.FileRegion f) {
                long size = Files.size(f.file());
                if (size != f.length()) {
                    throw new IllegalArgumentException("file " + f.file() + " must still be " + f.length()
                            + " bytes long but is now " + size + " bytes");
                }
                // Hash exactly the bytes that will be sent: a file growing meanwhile must not put bytes past
                // its length into the recorded SHA-256, and one shrinking must not be hashed short.
                long hashed = 0;
                byte[] buf = new byte[BUFFER_SIZE];
                try (InputStream in = Files.newInputStream(f.file())) {
                    while (hashed < f.length()) {
                        int n = in.read(buf, 0, (int) Math.min(buf.length, f.length() - hashed));
                        if (n == -1) {
                            throw new IllegalArgumentException("file " + f.file() + " must still be " + f.length()
                                    + " bytes long but ended after " + hashed + " bytes");
                        }
                        hasher.update(buf, 0, n);
                        hashed += n;
                    }
                }
                return new Payload(null, f.file(), false, f.length(), hasher);
            }
            ObjectContent.Stream s = (ObjectContent.Stream) content;
            return s.length() <= IN_MEMORY_LIMIT ? bufferStream(s, hasher) : spoolStream(s, spoolDirectory, hasher);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read the content to upload", e);
        }
    }

    private static Payload bufferStream(ObjectContent.Stream s, Hasher hasher) throws IOException {
        byte[] data = s.stream().readNBytes((int) s.length());
        if (data.length < s.length()) {
            throw shortStream(s.length(), data.length);
        }
        requireEnd(s);
        hasher.update(data, 0, data.length);
        return new Payload(data, null, false, data.length, hasher);
    }

    private static Payload spoolStream(ObjectContent.Stream s, Path spoolDirectory, Hasher hasher) throws IOException {
        Objects.requireNonNull(spoolDirectory, "spoolDirectory");
        Path tmp = Files.createTempFile(spoolDirectory, "ballast-put-", ".spool");
        try {
            long copied = 0;
            byte[] buf = new byte[BUFFER_SIZE];
            try (OutputStream out = Files.newOutputStream(tmp, StandardOpenOption.WRITE)) {
                while (copied < s.length()) {
                    int n = s.stream().read(buf, 0, (int) Math.min(buf.length, s.length() - copied));
                    if (n == -1) {
                        throw shortStream(s.length(), copied);
                    }
                    hasher.update(buf, 0, n);
                    out.write(buf, 0, n);
                    copied += n;
                }
            }
            requireEnd(s);
            return new Payload(null, tmp, true, copied, hasher);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
    }

    /**
     * A stream that still has bytes after its declared length does not hold the object the caller
     * described: storing only its prefix would acknowledge a truncated object.
     */
    private static void requireEnd(ObjectContent.Stream s) throws IOException {
        if (s.stream().read() != -1) {
            throw new IllegalArgumentException(
                    "stream must yield exactly its declared length of " + s.length() + " bytes but had more");
        }
    }

    private static IllegalArgumentException shortStream(long declared, long actual) {
        return new IllegalArgumentException(
                "stream must yield its declared length of " + declared + " bytes but ended after " + actual + " bytes");
    }

    /** Length in bytes. */
    public long length() {
        return length;
    }

    /** Raw SHA-256 of the whole content. */
    public byte[] sha256() {
        return sha256.clone();
    }

    /** Lowercase hex SHA-256 of the whole content. */
    public String sha256Hex() {
        return Sha256.hex(sha256);
    }

    /** The size of each part but the last, in bytes: the whole length (at least 1) for one part. */
    public long partSize() {
        return partSize;
    }

    /** How many parts the content was hashed in: 1 when {@link Digests#partSize()} was 0. */
    public int partCount() {
        return partMd5 != null ? partMd5.length : partSha256 != null ? partSha256.length : 1;
    }

    /**
     * The raw MD5 of part {@code index} (0-based), as {@code Content-MD5} carries it in Base64.
     *
     * @throws IllegalStateException if MD5s were not asked for
     */
    public byte[] md5(int index) {
        if (partMd5 == null) {
            throw new IllegalStateException("MD5s were not computed for this payload");
        }
        return partMd5[index].clone();
    }

    /**
     * The raw SHA-256 of part {@code index} (0-based); with one part, the whole content's.
     *
     * @throws IllegalStateException if part SHA-256s were not asked for
     */
    public byte[] sha256(int index) {
        if (partSha256 == null) {
            throw new IllegalStateException("part SHA-256s were not computed for this payload");
        }
        return partSha256[index].clone();
    }

    /** Whether each part's SHA-256 is known. */
    public boolean hasPartSha256() {
        return partSha256 != null;
    }

    /** Whether the content came from a stream spooled to a temporary file. */
    public boolean spooled() {
        return temporary;
    }

    /**
     * A fresh stream over {@code [offset, offset + count)}: each call re-reads the region from the
     * bytes or the file, so a retried request never depends on a consumed stream.
     */
    public InputStream open(long offset, long count) {
        if (offset < 0 || count < 0 || offset + count > length) {
            throw new IllegalArgumentException(
                    "region [" + offset + ", " + (offset + count) + ") must lie within [0, " + length + "]");
        }
        if (bytes != null) {
            return new ByteArrayInputStream(bytes, (int) offset, (int) count);
        }
        try {
            FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
            channel.position(offset);
            return new BoundedInputStream(Channels.newInputStream(channel), count);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "Could not reopen " + file + " to send bytes " + offset + ".." + (offset + count), e);
        }
    }

    /** Deletes the spool file, if any. */
    @Override
    public void close() {
        if (temporary) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                throw new UncheckedIOException("Could not delete spool file " + file, e);
            }
        }
    }

    /**
     * The digests of one read: the whole content's SHA-256 and, per part, the MD5 and SHA-256 asked
     * for. A part's digests are finished as soon as its last byte has been seen.
     */
    private static final class Hasher {
        final MessageDigest whole = Sha256.newDigest();
        final long partSize;
        private final boolean md5;
        private final boolean partSha;
        private final boolean wantShas;
        private final List<byte[]> md5s = new ArrayList<>();
        private final List<byte[]> shas = new ArrayList<>();
        private @Nullable MessageDigest partMd5;
        private @Nullable MessageDigest partShaDigest;
        private long inPart;
        final BlockDigests.@Nullable Builder blocks;

        Hasher(long length, Digests digests) {
            this.blocks = digests.blocks() && BlockDigests.needsTable(length) ? new BlockDigests.Builder() : null;
            long size = digests.partSize();
            this.partSize = size == 0 || size >= length ? Math.max(length, 1) : size;
            boolean onePart = partSize >= length;
            this.md5 = digests.md5();
            // One part's SHA-256 is the whole content's: it is taken from there, not computed twice.
            this.partSha = digests.partSha256() && !onePart;
            this.partMd5 = md5 ? Md5.newDigest() : null;
            this.partShaDigest = partSha ? Sha256.newDigest() : null;
            this.wantShas = digests.partSha256();
        }

        void update(byte[] b, int off, int len) {
            whole.update(b, off, len);
            if (blocks != null) {
                blocks.update(b, off, len);
            }
            if (!md5 && !partSha) {
                return;
            }
            while (len > 0) {
                int take = (int) Math.min(len, partSize - inPart);
                if (md5) {
                    partMd5.update(b, off, take);
                }
                if (partSha) {
                    partShaDigest.update(b, off, take);
                }
                inPart += take;
                off += take;
                len -= take;
                if (inPart == partSize) {
                    endPart();
                }
            }
        }

        private void endPart() {
            if (md5) {
                md5s.add(partMd5.digest());
            }
            if (partSha) {
                shas.add(partShaDigest.digest());
            }
            inPart = 0;
        }

        byte @Nullable [][] md5s() {
            if (!md5) {
                return null;
            }
            if (inPart > 0 || md5s.isEmpty()) {
                md5s.add(partMd5.digest());
            }
            return md5s.toArray(new byte[0][]);
        }

        byte @Nullable [][] shas(byte[] wholeSha256) {
            if (!wantShas) {
                return null;
            }
            if (!partSha) {
                return new byte[][] {wholeSha256};
            }
            if (inPart > 0 || shas.isEmpty()) {
                shas.add(partShaDigest.digest());
            }
            return shas.toArray(new byte[0][]);
        }
    }

    /** Reads at most {@code limit} bytes of a stream. */
    private static final class BoundedInputStream extends InputStream {
        private final InputStream in;
        private long left;

        BoundedInputStream(InputStream in, long limit) {
            this.in = in;
            this.left = limit;
        }

        @Override
        public int read() throws IOException {
            if (left <= 0) {
                return -1;
            }
            int b = in.read();
            if (b != -1) {
                left--;
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            if (left <= 0) {
                return -1;
            }
            int n = in.read(b, off, (int) Math.min(len, left));
            if (n > 0) {
                left -= n;
            }
            return n;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
