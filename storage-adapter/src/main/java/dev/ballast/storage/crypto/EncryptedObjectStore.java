package dev.ballast.storage.crypto;

import dev.ballast.storage.EncryptionKeyException;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.UnsupportedCapabilityException;
import dev.ballast.storage.internal.ReservedMetadata;
import dev.ballast.storage.object.ByteRange;
import dev.ballast.storage.object.ListEntry;
import dev.ballast.storage.object.ListRequest;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.PresignRequest;
import dev.ballast.storage.object.PresignedRequest;
import dev.ballast.storage.object.PutOptions;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.StoreCapabilities;
import dev.ballast.storage.object.VersionEntry;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.stream.Stream;
import javax.crypto.SecretKey;

/**
 * An {@link ObjectStore} decorator that encrypts every object on the client (envelope encryption), so
 * the store below, whoever runs it, holds ciphertext only. Works over any store: S3, the local store,
 * the last-known-good cache.
 *
 * <h2>What is stored</h2>
 * Each put draws a new 256-bit data key (from {@link SecureRandom}), wraps it with
 * {@link ClientSideEncryption#current()} (AES key wrap, or a KMS key) and stores one object: an envelope
 * (format tag {@code BCE1}, the wrapping scheme and key ID, the wrapped data key, the segment size), then
 * the content encrypted in Tink's AES-GCM-HKDF streaming format (segments of
 * {@link ClientSideEncryption#segmentSize()} bytes, 64 KiB by default, each AES-256-GCM with its own tag
 * and a nonce made of a random prefix, the segment's index and a last-segment flag; the segment key
 * derived by HKDF-SHA256 from the data key, a random salt and, as associated data, the envelope's bytes
 * and the object key). Each object costs {@code 4 + 7 + key ID + wrapped key + 40} bytes of envelope and
 * header and 16 bytes per segment (0.02% at 64 KiB). An object's ciphertext copied under another key, a
 * changed envelope, segments reordered, dropped or cut off all fail to decrypt.
 *
 * <h2>What a read guarantees</h2>
 * No byte of a segment is handed over before its GCM tag is checked: a damaged or changed byte fails the
 * read of its segment with {@link IntegrityException} naming it; a whole-object read also reads the
 * store's stream to its end, so that the store's own check of the stored bytes runs. A read with none of
 * the keys recorded in the envelope, or with a key under that ID that does not unwrap the data key (a
 * wrong key), throws {@link EncryptionKeyException} from {@code get}, before any byte; an object that
 * was not written through this decorator (no envelope) throws {@link IntegrityException}: it is never
 * passed off as plaintext.
 *
 * <h2>Versions, sizes and SHA-256</h2>
 * The {@link ObjectVersion} that {@code put}, {@code get} and {@code head} return carries the plaintext's
 * size; its {@code sha256} is the store's, the SHA-256 of the stored (encrypted) bytes, which the store
 * records and verifies on every read as for any object. No digest of the plaintext is stored anywhere:
 * it would let whoever holds the store confirm a guessed plaintext. {@link #versions}, {@link #list},
 * {@link #listing} and {@link #listVersions} are the store's, with the stored sizes. (The object store
 * contract's cases that compare a version's SHA-256 or a listed size with the plaintext's are skipped
 * for this decorator by its declared behaviour {@code CIPHERTEXT_DIGESTS_AND_SIZES}.)
 *
 * <h2>Ranged reads</h2>
 * {@code get(key, options.withRange(range))} returns the plaintext bytes of the range
 * ({@link ByteRange#of}, {@link ByteRange#from}, {@link ByteRange#last} are resolved against the
 * plaintext's size; one starting at or past its end is refused with 416, as the stores refuse theirs).
 * Over a store with {@link StoreCapabilities.Feature#RANGED_READS} it makes two ranged reads: the
 * object's head (4 KiB: the envelope and stream header), then exactly the ciphertext of the segments
 * that hold the range, pinned to the head's version. Each segment is authenticated by its GCM tag before
 * any of its bytes is handed over, so the read is {@link ObjectRead#verified()}; a damaged segment fails
 * with {@link IntegrityException} naming it and its plaintext bytes. Over a store without ranged reads
 * the stored bytes are read from the start up to the range's last segment and the rest closed unread.
 * Through a last-known-good store, both reads are served from its cached copy while the store is down,
 * marked degraded.
 *
 * <h2>Metadata and server-side encryption</h2>
 * {@link #put(String, ObjectContent, PutOptions)} passes the {@link PutOptions} to the store below:
 * {@link dev.ballast.storage.object.ObjectMetadata} is stored in clear, not encrypted (as the S3
 * encryption clients do), and server-side encryption is applied by the store on top of this one.
 *
 * <h2>The mark</h2>
 * Every put ({@code putAsync} too) adds Ballast's reserved user metadata entry
 * {@code ballast-cse} ({@code BCE1/<scheme>/<key ID>}) when the store below has
 * {@link StoreCapabilities.Feature#METADATA}, so that a plain read of the object (a
 * {@code LastKnownGoodStore}, what a facade without client-side encryption returns) refuses it with
 * {@link EncryptionKeyException} instead of handing over ciphertext. Reads through this decorator ask
 * the store below with {@link ReadOptions#rawCiphertext()} and never show the mark in the metadata
 * they return.
 *
 * <p>Thread-safe.
 */
public final class EncryptedObjectStore implements ObjectStore {

    private static final SecureRandom RANDOM = new SecureRandom();

    private final ObjectStore delegate;
    private final ClientSideEncryption encryption;

    private EncryptedObjectStore(ObjectStore delegate, ClientSideEncryption encryption) {
        this.delegate = delegate;
        this.encryption = encryption;
    }

    /**
     * Wraps {@code delegate}: puts encrypt with {@code encryption}'s current key, reads decrypt with any of
     * its keys.
     */
    public static EncryptedObjectStore wrap(ObjectStore delegate, ClientSideEncryption encryption) {
        return new EncryptedObjectStore(
                Objects.requireNonNull(delegate, "delegate"), Objects.requireNonNull(encryption, "encryption"));
    }

    /** The store that holds the ciphertext. */
    public ObjectStore delegate() {
        return delegate;
    }

    /** The keys and segment size. */
    public ClientSideEncryption encryption() {
        return encryption;
    }

    /**
     * The store's capabilities, without presigned URLs (they would bypass the encryption) and with
     * {@link StoreCapabilities.Feature#RANGED_READS} and {@link StoreCapabilities.Feature#BLOCK_DIGESTS}:
     * every range is decrypted from its segments, each authenticated by its AES-GCM tag before any of its
     * bytes is handed over (the unit is the segment, 64 KiB by default, not the stores' 1 MiB SHA-256
     * block). {@code METADATA} and {@code SSE_*} are the store's: both are passed to it.
     */
    @Override
    public StoreCapabilities capabilities() {
        return delegate.capabilities()
                .withPresignedUrls(false)
                .withFeatures(
                        EnumSet.of(StoreCapabilities.Feature.RANGED_READS, StoreCapabilities.Feature.BLOCK_DIGESTS));
    }

    @Override
    public boolean confirmsWrites() {
        return delegate.confirmsWrites();
    }

    @Override
    public ObjectVersion put(String key, ObjectContent content) {
        return encrypted(key, content, c -> delegate.put(key, c, marked(PutOptions.defaults())));
    }

    @Override
    public CompletableFuture<ObjectVersion> putAsync(String key, ObjectContent content) {
        return putAsync(key, content, PutOptions.defaults());
    }

    /** As {@link #put(String, ObjectContent, PutOptions)}, acknowledged when the store below acknowledges it. */
    @Override
    public CompletableFuture<ObjectVersion> putAsync(String key, ObjectContent content, PutOptions options) {
        long[] plain = new long[1];
        CompletableFuture<ObjectVersion> stored = encryptedAsync(key, content, marked(options), plain);
        return stored.thenApply(v -> plaintextVersion(v, plain[0]));
    }

    @Override
    public ObjectVersion putIfAbsent(String key, ObjectContent content) {
        return encrypted(key, content, c -> delegate.putIfAbsent(key, c, marked(PutOptions.defaults())));
    }

    @Override
    public ObjectVersion putIfMatch(String key, String eTag, ObjectContent content) {
        Objects.requireNonNull(eTag, "eTag");
        return encrypted(key, content, c -> delegate.putIfMatch(key, eTag, c, marked(PutOptions.defaults())));
    }

    /**
     * Encrypts {@code content} and puts it with {@code options}, which the store below applies: its
     * metadata is stored <b>in clear</b> beside the ciphertext (as the S3 encryption clients store theirs,
     * readable by whoever can read the bucket's object headers; put nothing secret there) and returned by
     * {@code get}, {@code head} and version listings; its server-side encryption (SSE-S3, SSE-KMS or SSE-C)
     * is applied by the store on top, and SSE-C reads need the same key in {@link ReadOptions#customerKey()}.
     *
     * @throws dev.ballast.storage.UnsupportedCapabilityException from the store below, before anything is
     *     written, if it lacks what the options need ({@code METADATA}, {@code SSE_*})
     */
    @Override
    public ObjectVersion put(String key, ObjectContent content, PutOptions options) {
        Objects.requireNonNull(options, "options");
        return encrypted(key, content, c -> delegate.put(key, c, marked(options)));
    }

    /** {@link #putIfAbsent(String, ObjectContent)} with {@code options}, as {@link #put(String, ObjectContent, PutOptions)}. */
    @Override
    public ObjectVersion putIfAbsent(String key, ObjectContent content, PutOptions options) {
        Objects.requireNonNull(options, "options");
        return encrypted(key, content, c -> delegate.putIfAbsent(key, c, marked(options)));
    }

    /** {@link #putIfMatch(String, String, ObjectContent)} with {@code options}, as {@link #put(String, ObjectContent, PutOptions)}. */
    @Override
    public ObjectVersion putIfMatch(String key, String eTag, ObjectContent content, PutOptions options) {
        Objects.requireNonNull(eTag, "eTag");
        Objects.requireNonNull(options, "options");
        return encrypted(key, content, c -> delegate.putIfMatch(key, eTag, c, marked(options)));
    }

    /**
     * {@code options} with the client-side encryption mark ({@value ReservedMetadata#CLIENT_SIDE_ENCRYPTION}:
     * the envelope format and the current key's scheme and ID) in its metadata, so that a plain read of
     * the object can refuse it; unchanged over a store without {@code METADATA}, which cannot carry it.
     */
    private PutOptions marked(PutOptions options) {
        if (!delegate.capabilities().has(StoreCapabilities.Feature.METADATA)) {
            return options;
        }
        return options.withMetadata(ReservedMetadata.with(
                options.metadata(), ReservedMetadata.CLIENT_SIDE_ENCRYPTION, mark(encryption.current())));
    }

    /** {@code BCE1/<scheme>/<key ID>}, the key ID percent-encoded (printable ASCII) and cut to 200 characters. */
    static String mark(KeyWrapper wrapper) {
        String id = URLEncoder.encode(wrapper.keyId(), StandardCharsets.UTF_8);
        if (id.length() > 200) {
            id = id.substring(0, 197) + "...";
        }
        return "BCE1/" + URLEncoder.encode(wrapper.scheme(), StandardCharsets.UTF_8) + "/" + id;
    }

    private ObjectVersion encrypted(String key, ObjectContent content, Function<ObjectContent, ObjectVersion> put) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(content, "content");
        try (Sealed sealed = seal(key, content)) {
            try {
                return plaintextVersion(put.apply(sealed.content), content.length());
            } catch (RuntimeException e) {
                if (sealed.source instanceof Encrypting encrypting && encrypting.misfit() != null) {
                    // The store saw a failed read; the caller's content is what was wrong, as a store says.
                    throw new IllegalArgumentException(
                            "The content of '" + key + "' must yield exactly its declared length of " + content.length()
                                    + " bytes but " + encrypting.misfit() + "; nothing was stored",
                            e);
                }
                throw e;
            }
        }
    }

    private CompletableFuture<ObjectVersion> encryptedAsync(
            String key, ObjectContent content, PutOptions options, long[] plain) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(content, "content");
        plain[0] = content.length();
        try (Sealed sealed = seal(key, content)) {
            // The store has read the content in full when putAsync returns, so the source may be closed.
            return delegate.putAsync(key, sealed.content, options);
        }
    }

    /** The stored form of {@code content}, and the plaintext source to close once the store read it. */
    private record Sealed(ObjectContent content, InputStream source) implements AutoCloseable {
        @Override
        public void close() {
            try {
                source.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private Sealed seal(String key, ObjectContent content) {
        byte[] dataKey = new byte[StreamFormat.KEY_BYTES];
        RANDOM.nextBytes(dataKey);
        KeyWrapper wrapper = encryption.current();
        byte[] wrapped;
        try {
            wrapped = wrapper.wrap(dataKey);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(
                    "Wrapping the data key of '" + key + "' with " + wrapper.scheme() + " key '" + wrapper.keyId()
                            + "' failed: " + e.getMessage(),
                    e);
        }
        if (wrapped.length > 65_535) {
            throw new IllegalStateException(
                    wrapper + " wrapped a data key into " + wrapped.length + " bytes; an envelope holds at most 65535");
        }
        StreamFormat format = new StreamFormat(encryption.segmentSize());
        byte[] envelope = new Envelope(wrapper.scheme(), wrapper.keyId(), wrapped, format.segmentSize).encode();
        byte[] header = StreamFormat.newHeader();
        SecretKey segmentKey;
        try {
            segmentKey = StreamFormat.segmentKey(dataKey, header, associatedData(envelope, key));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HKDF-SHA256 is not available", e);
        } finally {
            Arrays.fill(dataKey, (byte) 0);
        }
        long storedLength = envelope.length + format.ciphertextLength(content.length());
        try {
            if (content instanceof ObjectContent.Bytes bytes) {
                byte[] sealed = Encrypting.encrypt(envelope, bytes.bytes(), format, segmentKey, header);
                return new Sealed(ObjectContent.ofBytes(sealed), InputStream.nullInputStream());
            }
            InputStream source = content instanceof ObjectContent.FileRegion file
                    ? Files.newInputStream(file.file())
                    : ((ObjectContent.Stream) content).stream();
            Encrypting stream = new Encrypting(
                    envelope,
                    source,
                    format,
                    segmentKey,
                    header,
                    content.length(),
                    content instanceof ObjectContent.Stream);
            return new Sealed(ObjectContent.ofStream(stream, storedLength), stream);
        } catch (IOException e) {
            throw new UncheckedIOException("Encrypting the content of '" + key + "' failed", e);
        }
    }

    private static byte[] associatedData(byte[] envelope, String key) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        byte[] aad = Arrays.copyOf(envelope, envelope.length + k.length);
        System.arraycopy(k, 0, aad, envelope.length, k.length);
        return aad;
    }

    /**
     * {@code stored} with the plaintext's size; its metadata (without Ballast's own entries, such as the
     * client-side encryption mark) and server-side encryption kept.
     */
    static ObjectVersion plaintextVersion(ObjectVersion stored, long plainSize) {
        return new ObjectVersion(
                stored.key(),
                stored.versionId(),
                stored.eTag(),
                plainSize,
                stored.sha256(),
                stored.generation(),
                stored.lastModified(),
                ReservedMetadata.without(stored.metadata()),
                stored.encryption());
    }

    @Override
    public ObjectRead get(String key) {
        return get(key, ReadOptions.latest());
    }

    /**
     * Reads and decrypts the object, or the plaintext bytes of {@code options.range()}; see the class
     * documentation for what is checked. A ranged read's {@link ObjectRead#range()} is the plaintext range
     * served and its {@link ObjectRead#verified()} is true: every byte handed over was authenticated by its
     * segment's AES-GCM tag.
     *
     * @throws EncryptionKeyException if none of the keys given is the one the object was encrypted under,
     *     or the one with its ID does not unwrap its data key
     * @throws IntegrityException if the object was not encrypted by this decorator, or its stored length
     *     cannot be that of a whole encrypted object (and, from the stream's reads, if a segment fails its
     *     tag, naming the segment and its plaintext bytes)
     * @throws dev.ballast.storage.RequestRefusedException with status 416 if the range starts at or past
     *     the end of the plaintext (as the stores answer for their bytes)
     */
    @Override
    public ObjectRead get(String key, ReadOptions options) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(options, "options");
        options = options.withRawCiphertext(true); // the store below hands over the ciphertext to decrypt
        ByteRange range = options.range();
        if (range != null && delegate.capabilities().has(StoreCapabilities.Feature.RANGED_READS)) {
            return SegmentRanges.read(delegate, this::unlock, key, options);
        }
        ObjectRead read = delegate.get(key, options.withRange(null));
        Opened opened;
        try {
            opened = new Opened(read, unlock(key, read.version(), read.stream()));
        } catch (RuntimeException e) {
            read.close();
            throw e;
        }
        long plain = opened.keys.plaintextLength();
        if (range == null) {
            return opened.read(0, 0, plain, plain, null);
        }
        // The store below reads whole objects only: read its bytes from the start, decrypt from the range's
        // first segment, and close the rest unread.
        ByteRange wanted;
        try {
            wanted = range.resolve(key, plain);
        } catch (RuntimeException e) {
            read.close();
            throw e;
        }
        long first = opened.keys.format().segmentOf(wanted.offset());
        return opened.read(
                first, wanted.offset() - opened.keys.format().plainStart(first), wanted.length(), plain, wanted);
    }

    /**
     * {@code length} bytes of the object's plaintext from {@code offset} (fewer when the object ends
     * first): {@code get(key, options.withRange(ByteRange.of(offset, length)))}.
     *
     * @param offset the first plaintext byte, 0 or more and before the object's end
     * @param length how many bytes at most, 1 or more
     * @throws IllegalArgumentException if {@code offset} is negative or {@code length} below 1
     * @throws dev.ballast.storage.RequestRefusedException with status 416 if {@code offset} is at or past
     *     the end of the plaintext
     * @throws EncryptionKeyException as {@link #get(String, ReadOptions)}
     */
    public ObjectRead getRange(String key, ReadOptions options, long offset, long length) {
        return get(key, options.withRange(ByteRange.of(offset, length)));
    }

    /** A whole stored object being read, its envelope and stream header read and its key unwrapped. */
    private record Opened(ObjectRead read, Unlocked keys) {

        /** The plaintext of segments from {@code first} on, {@code skip} bytes into it, {@code length} bytes. */
        ObjectRead read(long first, long skip, long length, long plainSize, ByteRange range) {
            InputStream in = read.stream();
            StreamFormat format = keys.format();
            try {
                in.skipNBytes(format.cipherStart(first) - StreamFormat.HEADER_BYTES);
            } catch (IOException e) {
                read.close();
                throw readBrokeOff(read.version().key(), e);
            }
            ObjectVersion version = read.version();
            Decrypting plain = new Decrypting(
                    in,
                    format,
                    keys.segmentKey(),
                    keys.header(),
                    keys.streamLength(),
                    first,
                    skip,
                    length,
                    version.key(),
                    version.versionId());
            return new ObjectRead(
                    plaintextVersion(version, plainSize),
                    plain,
                    read.source(),
                    read.freshness(),
                    read.age(),
                    read.degradedReason().orElse(null),
                    range,
                    true);
        }
    }

    /**
     * Reads the envelope and the stream header from {@code in}, positioned at the start of the stored
     * object {@code version} (its whole stored size), and unwraps the data key; {@code in} is left at the
     * first segment's ciphertext.
     */
    Unlocked unlock(String key, ObjectVersion version, InputStream in) {
        Envelope.Read envelope;
        try {
            envelope = Envelope.read(in);
        } catch (Envelope.NotAnEnvelope e) {
            throw new IntegrityException(
                    key,
                    "Object '" + key + "' version " + version.versionId() + " is not encrypted client-side ("
                            + e.getMessage() + "): a store with client-side encryption reads only what it encrypted",
                    e);
        } catch (IOException e) {
            throw readBrokeOff(key, e);
        }
        Envelope env = envelope.envelope();
        KeyWrapper wrapper = encryption.key(env.scheme(), env.keyId());
        if (wrapper == null) {
            throw new EncryptionKeyException(
                    key,
                    env.keyId(),
                    "Object '" + key + "' version " + version.versionId() + " was encrypted client-side under "
                            + env.scheme() + " key '" + env.keyId() + "', which this store was not given (it has "
                            + describe(encryption.keys()) + ")",
                    null);
        }
        byte[] dataKey;
        try {
            dataKey = wrapper.unwrap(env.wrappedKey());
        } catch (GeneralSecurityException e) {
            throw new EncryptionKeyException(
                    key,
                    env.keyId(),
                    "Object '" + key + "' version " + version.versionId() + " cannot be decrypted: the "
                            + env.scheme() + " key given as '" + env.keyId()
                            + "' is not the key it was encrypted under (or its envelope is damaged)",
                    e);
        }
        StreamFormat format = new StreamFormat(env.segmentSize());
        long streamLength = version.size() - envelope.bytes().length;
        if (streamLength < StreamFormat.HEADER_BYTES || format.segmentsOfCiphertext(streamLength) < 0) {
            throw new IntegrityException(
                    key,
                    "Object '" + key + "' version " + version.versionId() + " has " + version.size()
                            + " stored bytes, which no encrypted content with its envelope has: cut short or grown");
        }
        try {
            byte[] header = in.readNBytes(StreamFormat.HEADER_BYTES);
            if (header.length != StreamFormat.HEADER_BYTES) {
                throw new IntegrityException(
                        key, "Object '" + key + "' version " + version.versionId() + " ends inside its stream header");
            }
            SecretKey segmentKey = StreamFormat.segmentKey(dataKey, header, associatedData(envelope.bytes(), key));
            return new Unlocked(envelope.bytes().length, format, segmentKey, header, streamLength);
        } catch (GeneralSecurityException e) {
            throw new IntegrityException(
                    key,
                    "Object '" + key + "' version " + version.versionId() + " has a damaged stream header: "
                            + e.getMessage(),
                    e);
        } catch (IOException e) {
            throw readBrokeOff(key, e);
        } finally {
            Arrays.fill(dataKey, (byte) 0);
        }
    }

    private static String describe(List<KeyWrapper> keys) {
        StringBuilder s = new StringBuilder();
        for (KeyWrapper k : keys) {
            s.append(s.length() == 0 ? "" : ", ")
                    .append(k.scheme())
                    .append(" '")
                    .append(k.keyId())
                    .append('\'');
        }
        return s.toString();
    }

    /**
     * The version as {@link #get(String, ReadOptions)} reads it (its plaintext size, its metadata): the
     * envelope is read, and the key checked, with one ranged GET of the object's head (a whole-object GET
     * where the store below lacks {@link StoreCapabilities.Feature#RANGED_READS}).
     */
    @Override
    public ObjectVersion head(String key, String versionId) {
        ReadOptions options =
                ReadOptions.version(versionId).withAllowCache(false).withRawCiphertext(true);
        if (delegate.capabilities().has(StoreCapabilities.Feature.RANGED_READS)) {
            return SegmentRanges.version(delegate, this::unlock, key, options);
        }
        try (ObjectRead read = get(key, options)) {
            return read.version();
        }
    }

    @Override
    public List<VersionEntry> versions(String key) {
        return shown(delegate.versions(key));
    }

    /** The entries with their metadata as a caller sees it: without the client-side encryption mark. */
    private static List<VersionEntry> shown(List<VersionEntry> entries) {
        return entries.stream()
                .map(e -> e.metadata() == null
                        ? e
                        : new VersionEntry(
                                e.key(),
                                e.versionId(),
                                e.eTag(),
                                e.size(),
                                e.lastModified(),
                                e.latest(),
                                e.deleteMarker(),
                                ReservedMetadata.without(e.metadata())))
                .toList();
    }

    @Override
    public VersionEntry delete(String key) {
        return delegate.delete(key);
    }

    @Override
    public List<String> list(String prefix) {
        return delegate.list(prefix);
    }

    /** The store's listing, with the stored (ciphertext) sizes, as {@link #listVersions}. */
    @Override
    public Stream<ListEntry> listing(ListRequest request) {
        return delegate.listing(request);
    }

    /**
     * Refused: whoever held a presigned URL would upload plaintext or download ciphertext past this
     * decorator.
     *
     * @throws UnsupportedCapabilityException always
     */
    @Override
    public PresignedRequest presign(PresignRequest request) {
        throw new UnsupportedCapabilityException("Presigned URLs are not supported through client-side encryption: "
                + "the URL would bypass it (a PUT would store '" + request.key()
                + "' in plaintext, a GET return ciphertext); read or write it through the store itself.");
    }

    @Override
    public List<VersionEntry> listVersions(String prefix) {
        return shown(delegate.listVersions(prefix));
    }

    @Override
    public Map<VersionEntry, String> missingContent(Collection<VersionEntry> listed) {
        return delegate.missingContent(listed);
    }

    @Override
    public void prepareWrites(String prefix) {
        delegate.prepareWrites(prefix);
    }

    @Override
    public boolean deleteVersion(String key, String versionId) {
        return delegate.deleteVersion(key, versionId);
    }

    @Override
    public String toString() {
        return "EncryptedObjectStore[" + encryption + " over " + delegate + "]";
    }

    /**
     * A read of {@code key} that broke off ({@code cause}): the store's failure, which changed nothing in it,
     * as {@link ObjectRead#readAllBytes} reports one, not a local file's.
     */
    static dev.ballast.storage.StorageUnavailableException readBrokeOff(String key, IOException cause) {
        return new dev.ballast.storage.StorageUnavailableException(
                key, "Reading object '" + key + "' failed (" + cause.getMessage() + ")", cause, false);
    }
}
