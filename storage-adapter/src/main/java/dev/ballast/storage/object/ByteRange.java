package dev.ballast.storage.object;

import dev.ballast.storage.RequestRefusedException;

/**
 * A span of an object's bytes to read, as an HTTP {@code Range: bytes=...} header names one
 * (<a href="https://www.rfc-editor.org/rfc/rfc9110#section-14.1.2">RFC 9110 section 14.1.2</a>):
 * {@link #of} a first byte and a length, {@link #from} a first byte to the end, or the
 * {@link #last} bytes. Offsets and lengths are in bytes; the first byte of an object is 0. A range
 * that reaches past the end of the object is cut at the end, as HTTP does; one that starts at or
 * after the end is refused
 * ({@link RequestRefusedException} with status 416 and error code {@code InvalidRange}, as S3 answers). Immutable.
 *
 * @param offset the first byte, at least 0; {@code -1} for a suffix range ({@link #last})
 * @param length how many bytes, at least 1; {@code -1} for "to the end" ({@link #from}). A range
 *     reaching past byte 2<sup>62</sup> (4 EiB, beyond any object a store holds) reaches past the end
 *     of every object, and is kept as {@code -1}: to the end, so that no store's arithmetic on its last
 *     byte overflows
 */
public record ByteRange(long offset, long length) {

    /** 2<sup>62</sup> bytes: a range reaching past this offset runs to the end of any object. */
    private static final long BEYOND_ANY_OBJECT = 1L << 62;

    public ByteRange {
        if (offset < -1 || length < -1 || length == 0 || (offset == -1 && length == -1)) {
            throw new IllegalArgumentException("A byte range needs an offset of at least 0 and a length of at least 1"
                    + " (or one of them -1: a suffix or an open end), but was offset=" + offset + " length="
                    + length);
        }
        if (offset >= 0 && length > 0 && length > BEYOND_ANY_OBJECT - offset) {
            length = -1; // past any object's end, and near overflowing: the range runs to the end
        }
    }

    /**
     * {@code length} bytes from {@code offset}, as {@code bytes=offset-(offset+length-1)}.
     *
     * @throws IllegalArgumentException if {@code offset} is negative or {@code length} below 1
     */
    public static ByteRange of(long offset, long length) {
        if (offset < 0 || length < 1) {
            throw new IllegalArgumentException(
                    "ByteRange.of needs an offset >= 0 and a length >= 1, but was " + offset + " and " + length);
        }
        return new ByteRange(offset, length);
    }

    /**
     * From {@code offset} to the end, as {@code bytes=offset-}.
     *
     * @throws IllegalArgumentException if {@code offset} is negative
     */
    public static ByteRange from(long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("ByteRange.from needs an offset >= 0, but was " + offset);
        }
        return new ByteRange(offset, -1);
    }

    /**
     * The last {@code count} bytes (all of them in an object shorter than that), as {@code bytes=-count}.
     *
     * @throws IllegalArgumentException if {@code count} is below 1
     */
    public static ByteRange last(long count) {
        if (count < 1) {
            throw new IllegalArgumentException("ByteRange.last needs a count >= 1, but was " + count);
        }
        return new ByteRange(-1, count);
    }

    /** Whether this is a suffix range ({@link #last}). */
    public boolean suffix() {
        return offset == -1;
    }

    /**
     * The bytes this range names in an object of {@code size} bytes: an offset and a length both
     * within it.
     *
     * @param key the object key, for the message
     * @param size the object's size in bytes
     * @throws RequestRefusedException (416 {@code InvalidRange}) if the range starts at or past the
     *     end, or the object is empty
     */
    public ByteRange resolve(String key, long size) {
        if (suffix()) {
            if (size == 0) {
                throw notSatisfiable(key, size);
            }
            long n = Math.min(length, size);
            return new ByteRange(size - n, n);
        }
        if (offset >= size) {
            throw notSatisfiable(key, size);
        }
        long n = length == -1 ? size - offset : Math.min(length, size - offset);
        return new ByteRange(offset, n);
    }

    /** The refusal of this range for an object of {@code size} bytes: 416 {@code InvalidRange}. */
    public RequestRefusedException notSatisfiable(String key, long size) {
        return new RequestRefusedException(
                key,
                416,
                "InvalidRange",
                "The range " + this + " of '" + key + "' starts at or past its end (the object has " + size
                        + " bytes); ask for a range that starts before the end",
                null);
    }

    /** The {@code Range} header value, such as {@code bytes=0-1023}, {@code bytes=100-} or {@code bytes=-500}. */
    public String header() {
        if (suffix()) {
            return "bytes=-" + length;
        }
        return length == -1 ? "bytes=" + offset + "-" : "bytes=" + offset + "-" + (offset + length - 1);
    }

    @Override
    public String toString() {
        return header();
    }
}
