package dev.ballast.storage.object;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The bytes of one object to write, with a known length. Immutable and thread-safe for bytes and
 * files; a stream can be consumed once, so a put from a stream cannot be replayed by a retry
 * (Ballast buffers or fails it rather than send a truncated body).
 */
public sealed interface ObjectContent {

    /** Length in bytes, at least 0. */
    long length();

    /** Content held in memory. The array is not copied: do not modify it while the put runs. */
    static ObjectContent ofBytes(byte[] bytes) {
        return new Bytes(Objects.requireNonNull(bytes, "bytes"));
    }

    /**
     * Content read from a regular file. Re-readable, so any part of it can be re-sent on retry.
     *
     * @throws UncheckedIOException if the file's size cannot be read
     * @throws IllegalArgumentException if {@code file} is not a regular file
     */
    static ObjectContent ofFile(Path file) {
        Objects.requireNonNull(file, "file");
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("file must be a regular file but was: " + file);
        }
        try {
            return new FileRegion(file, Files.size(file));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the size of " + file, e);
        }
    }

    /**
     * Content read once from {@code stream}, which must yield exactly {@code length} bytes.
     *
     * @throws IllegalArgumentException if {@code length} is negative
     */
    static ObjectContent ofStream(InputStream stream, long length) {
        Objects.requireNonNull(stream, "stream");
        if (length < 0) {
            throw new IllegalArgumentException("length must be >= 0 but was " + length);
        }
        return new Stream(stream, length);
    }

    /** In-memory content. */
    record Bytes(byte[] bytes) implements ObjectContent {
        public Bytes {
            Objects.requireNonNull(bytes, "bytes");
        }

        @Override
        public long length() {
            return bytes.length;
        }
    }

    /** A whole regular file, with its size taken when the content was created. */
    record FileRegion(Path file, long length) implements ObjectContent {
        public FileRegion {
            Objects.requireNonNull(file, "file");
        }
    }

    /** A one-shot stream of a known length. */
    record Stream(InputStream stream, long length) implements ObjectContent {
        public Stream {
            Objects.requireNonNull(stream, "stream");
        }
    }
}
