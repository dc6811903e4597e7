package dev.ballast.storage.object;

import dev.ballast.storage.StorageUnavailableException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The result of a read: a stream of the object's bytes, verified against the recorded SHA-256 as
 * it is read (a mismatch or truncation raises {@code IntegrityException} from the read that reaches
 * the end, before the last bytes are handed over), and where the bytes came from.
 *
 * <p>A ranged read ({@link ReadOptions#withRange}) streams only the bytes of {@link #range()}; they
 * are checked block by block against the per-block SHA-256 digests recorded at write time, and a
 * block that does not match raises {@code IntegrityException} naming the block before any of its
 * bytes are handed over. A range of a version written without block digests (by another program,
 * or larger than one block by a Ballast version before block digests) is served unchecked and
 * marked: {@link #verified()} is false. A whole-object read is always verified.
 *
 * <p>A degraded read ({@link #degraded()}) came from the last-known-good cache: its
 * {@link #age()} says how long ago it was fetched from the store and {@link #degradedReason()}
 * why the store was not used. Close it when done. Not thread-safe.
 */
public final class ObjectRead implements AutoCloseable {
    private final ObjectVersion version;
    private final InputStream stream;
    private final Source source;
    private final Freshness freshness;
    private final Duration age;
    private final @Nullable String degradedReason;
    private final @Nullable ByteRange range;
    private final boolean verified;

    /**
     * @param version the version being read
     * @param stream the verified content stream
     * @param source {@code LIVE} or {@code CACHE}
     * @param freshness the stale-read verdict
     * @param age time since the bytes were fetched from the store; {@code Duration.ZERO} for live reads
     * @param degradedReason why the store was not used; required for {@code CACHE}, null for {@code LIVE}
     */
    public ObjectRead(
            ObjectVersion version,
            InputStream stream,
            Source source,
            Freshness freshness,
            Duration age,
            @Nullable String degradedReason) {
        this(version, stream, source, freshness, age, degradedReason, null, true);
    }

    /**
     * @param version the version being read
     * @param stream the content stream (verified when {@code verified})
     * @param source {@code LIVE} or {@code CACHE}
     * @param freshness the stale-read verdict
     * @param age time since the bytes were fetched from the store; {@code Duration.ZERO} for live reads
     * @param degradedReason why the store was not used; required for {@code CACHE}, null for {@code LIVE}
     * @param range the bytes the stream holds, resolved against the version's size (offset and length
     *     both within it); null for the whole object
     * @param verified whether the stream's bytes are checked against digests recorded at write time
     */
    public ObjectRead(
            ObjectVersion version,
            InputStream stream,
            Source source,
            Freshness freshness,
            Duration age,
            @Nullable String degradedReason,
            @Nullable ByteRange range,
            boolean verified) {
        if (range != null && (range.suffix() || range.length() == -1)) {
            throw new IllegalArgumentException(
                    "An ObjectRead's range must be resolved (an offset and a length)," + " but was " + range);
        }
        this.range = range;
        this.verified = verified;
        this.version = Objects.requireNonNull(version, "version");
        this.stream = Objects.requireNonNull(stream, "stream");
        this.source = Objects.requireNonNull(source, "source");
        this.freshness = Objects.requireNonNull(freshness, "freshness");
        this.age = Objects.requireNonNull(age, "age");
        if (source == Source.CACHE && degradedReason == null) {
            throw new IllegalArgumentException("a CACHE read must carry a degradedReason");
        }
        this.degradedReason = degradedReason;
    }

    /** The version these bytes belong to. */
    public ObjectVersion version() {
        return version;
    }

    /** The verified content stream. */
    public InputStream stream() {
        return stream;
    }

    /**
     * Reads the rest of the stream fully (verified) and closes it.
     *
     * @throws dev.ballast.storage.IntegrityException if the bytes do not match the version's SHA-256
     * @throws StorageUnavailableException if the read broke off (the connection closed before the
     *     response's length, a read error of the store's file): a failure of the store, which the read
     *     changed nothing in ({@link StorageUnavailableException#outcomeUnknown()} false). It was an
     *     {@link java.io.UncheckedIOException}, which a command took for a local file's failure: a
     *     connection cut while the {@code config} of a repository was read gave "A local file operation
     *     failed (EOF reached while reading)", exit 1, where the endpoint failing is exit 3.
     */
    public byte[] readAllBytes() {
        try (InputStream in = stream) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new StorageUnavailableException(
                    version.key(), "Reading object '" + version.key() + "' failed (" + e.getMessage() + ")", e, false);
        }
    }

    /** {@code LIVE} or {@code CACHE}. */
    public Source source() {
        return source;
    }

    /** True when served from the last-known-good cache instead of the store. */
    public boolean degraded() {
        return source == Source.CACHE;
    }

    /** Whether the version is known to be the newest seen for this key. */
    public Freshness freshness() {
        return freshness;
    }

    /** Time since the bytes were fetched from the store; zero for live reads. */
    public Duration age() {
        return age;
    }

    /** Why the store was not used, for degraded reads. */
    public Optional<String> degradedReason() {
        return Optional.ofNullable(degradedReason);
    }

    /**
     * The bytes this read holds, as an offset and a length within the version, when a range was asked
     * for; empty for a whole-object read.
     */
    public Optional<ByteRange> range() {
        return Optional.ofNullable(range);
    }

    /**
     * Whether the bytes are checked against digests recorded at write time as they are read: always
     * for a whole object; for a range, when the version has per-block digests (false: served as
     * stored, unchecked).
     */
    public boolean verified() {
        return verified;
    }

    /** This read with another stream over the same bytes (a decorator's view); every mark is kept. */
    public ObjectRead withStream(InputStream other) {
        return new ObjectRead(version, other, source, freshness, age, degradedReason, range, verified);
    }

    @Override
    public void close() {
        try {
            stream.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
