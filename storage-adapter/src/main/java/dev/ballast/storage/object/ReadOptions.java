package dev.ballast.storage.object;

import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * How to read an object. Immutable.
 *
 * @param versionId a specific version to read, or null for the latest
 * @param acceptStale if true a detected stale read is returned marked {@link Freshness#STALE}
 *     instead of raising {@code StaleReadException}
 * @param allowCache if true (the default) a last-known-good copy may be served, marked, when the
 *     store is unavailable
 * @param range the bytes to read, or null for the whole object; the read's bytes are verified
 *     against the per-block SHA-256 digests recorded at write time (see {@link ObjectRead#verified()})
 * @param customerKey the SSE-C key the version was written with ({@link ServerSideEncryption#customerKey}),
 *     or null; S3 refuses to read an SSE-C object without it
 * @param rawCiphertext if true, an object written through client-side encryption
 *     ({@code dev.ballast.storage.crypto.EncryptedObjectStore}) is read as stored, its envelope and
 *     ciphertext, by a store that would otherwise refuse it ({@code LastKnownGoodStore}, what
 *     {@code StorageFacade.objects()} returns without client-side encryption, throws
 *     {@code EncryptionKeyException}); false by default. For tools that copy or inspect ciphertext;
 *     {@code EncryptedObjectStore} sets it on its own reads of the store below
 * @param verifyRange if true (the default) a ranged read is checked block by block as above; if
 *     false it is served as stored: the range is not widened to whole blocks, no block table is
 *     fetched (one GET fewer per S3 object) and no block is hashed, and {@link ObjectRead#verified()}
 *     is false. For a caller that authenticates every byte it reads itself (an AEAD tag, a content
 *     hash), as the backup library does each blob of a pack; a whole-object read is verified either way
 */
public record ReadOptions(
        @Nullable String versionId,
        boolean acceptStale,
        boolean allowCache,
        @Nullable ByteRange range,
        @Nullable ServerSideEncryption customerKey,
        boolean rawCiphertext,
        boolean verifyRange) {

    public ReadOptions {
        if (customerKey != null && customerKey.kind() != ServerSideEncryption.Kind.CUSTOMER_KEY) {
            throw new IllegalArgumentException("A read takes an SSE-C key (ServerSideEncryption.customerKey(...)),"
                    + " not " + customerKey + ": SSE-S3 and SSE-KMS objects are decrypted without one");
        }
    }

    /** Options whose ranged reads are verified ({@code verifyRange} true). */
    public ReadOptions(
            @Nullable String versionId,
            boolean acceptStale,
            boolean allowCache,
            @Nullable ByteRange range,
            @Nullable ServerSideEncryption customerKey,
            boolean rawCiphertext) {
        this(versionId, acceptStale, allowCache, range, customerKey, rawCiphertext, true);
    }

    /** Options that refuse client-side encrypted objects where a store checks ({@code rawCiphertext} false). */
    public ReadOptions(
            @Nullable String versionId,
            boolean acceptStale,
            boolean allowCache,
            @Nullable ByteRange range,
            @Nullable ServerSideEncryption customerKey) {
        this(versionId, acceptStale, allowCache, range, customerKey, false);
    }

    /** Options without a range or SSE-C key, as before ranges existed. */
    public ReadOptions(@Nullable String versionId, boolean acceptStale, boolean allowCache) {
        this(versionId, acceptStale, allowCache, null, null);
    }

    /** The latest version, stale reads raised, cache fallback allowed. */
    public static ReadOptions latest() {
        return new ReadOptions(null, false, true);
    }

    /** A specific version. */
    public static ReadOptions version(String versionId) {
        return new ReadOptions(Objects.requireNonNull(versionId, "versionId"), false, true);
    }

    /** A copy of these options that returns stale reads marked instead of raising. */
    public ReadOptions withAcceptStale(boolean accept) {
        return new ReadOptions(versionId, accept, allowCache, range, customerKey, rawCiphertext, verifyRange);
    }

    /** A copy of these options with the cache fallback allowed or not. */
    public ReadOptions withAllowCache(boolean allow) {
        return new ReadOptions(versionId, acceptStale, allow, range, customerKey, rawCiphertext, verifyRange);
    }

    /** A copy of these options that reads {@code range} only (null: the whole object). */
    public ReadOptions withRange(@Nullable ByteRange range) {
        return new ReadOptions(versionId, acceptStale, allowCache, range, customerKey, rawCiphertext, verifyRange);
    }

    /** A copy of these options that sends the SSE-C key {@code key} (null: none). */
    public ReadOptions withCustomerKey(@Nullable ServerSideEncryption key) {
        return new ReadOptions(versionId, acceptStale, allowCache, range, key, rawCiphertext, verifyRange);
    }

    /**
     * A copy of these options that reads a client-side encrypted object as stored (true) or refuses it
     * where a store checks (false); see {@code rawCiphertext} above.
     */
    public ReadOptions withRawCiphertext(boolean raw) {
        return new ReadOptions(versionId, acceptStale, allowCache, range, customerKey, raw, verifyRange);
    }

    /** A copy of these options whose ranged read is checked block by block (true) or served as stored (false). */
    public ReadOptions withVerifyRange(boolean verify) {
        return new ReadOptions(versionId, acceptStale, allowCache, range, customerKey, rawCiphertext, verify);
    }

    /** The requested version ID, if any. */
    public Optional<String> requestedVersion() {
        return Optional.ofNullable(versionId);
    }

    /** The requested range, if any. */
    public Optional<ByteRange> requestedRange() {
        return Optional.ofNullable(range);
    }
}
