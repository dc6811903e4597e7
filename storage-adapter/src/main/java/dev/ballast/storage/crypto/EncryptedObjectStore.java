package dev.ballast.storage.crypto;

import dev.ballast.storage.EncryptionKeyException;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.UnsupportedCapabilityException;
import dev.ballast.storage.object.ListEntry;
import dev.ballast.storage.object.ListRequest;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.PresignRequest;
import dev.ballast.storage.object.PresignedRequest;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.StoreCapabilities;
import dev.ballast.storage.object.VersionEntry;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Collection;
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
 * it would let whoever holds the store confirm a guessed plaintext. {@link #versions}, {@link #list} and
 * {@link #listVersions} are the store's, with the stored sizes.
 *
 * <h2>Ranged reads</h2>
 * {@link #getRange(String, ReadOptions, long, long)} decrypts only the segments that hold the range. The
 * store below reads whole objects (ranged reads of the store are another change), so until then it
 * reads the stored bytes from the start up to the range's last segment and closes the rest unread.
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

    @Override
    public StoreCapabilities capabilities() {
        return delegate.capabilities().withPresignedUrls(false);
    }

    @Override
    public boolean confirmsWrites() {
        return delegate.confirmsWrites();
    }

    @Override
    public ObjectVersion put(String key, ObjectContent content) {
        return encrypted(key, content, c -> delegate.put(key, c));
    }

    @Override
    public CompletableFuture<ObjectVersion> putAsync(String key, ObjectContent content) {
        long[] plain = new long[1];
        CompletableFuture<ObjectVersion> stored = encryptedAsync(key, content, plain);
        return stored.thenApply(v -> plaintextVersion(v, plain[0]));
    }

    @Override
    public ObjectVersion putIfAbsent(String key, ObjectContent content) {
        return encrypted(key, content, c -> delegate.putIfAbsent(key, c));
    }

    @Override
    public ObjectVersion putIfMatch(String key, String eTag, ObjectContent content) {
        Objects.requireNonNull(eTag, "eTag");
        return encrypted(key, content, c -> delegate.putIfMatch(key, eTag, c));
    }

    private ObjectVersion encrypted(String key, ObjectContent content, Function<ObjectContent, ObjectVersion> put) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(content, "content");
        try (Sealed sealed = seal(key, content)) {
            return plaintextVersion(put.apply(sealed.content), content.length());
        }
    }

    private CompletableFuture<ObjectVersion> encryptedAsync(String key, ObjectContent content, long[] plain) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(content, "content");
        plain[0] = content.length();
        try (Sealed sealed = seal(key, content)) {
            // The store has read the content in full when putAsync returns, so the source may be closed.
            return delegate.putAsync(key, sealed.content);
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
            Encrypting stream = new Encrypting(envelope, source, format, segmentKey, header, content.length());
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

    private static ObjectVersion plaintextVersion(ObjectVersion stored, long plainSize) {
        return new ObjectVersion(
                stored.key(),
                stored.versionId(),
                stored.eTag(),
                plainSize,
                stored.sha256(),
                stored.generation(),
                stored.lastModified());
    }

    @Override
    public ObjectRead get(String key) {
        return get(key, ReadOptions.latest());
    }

    /**
     * Reads and decrypts the object; see the class documentation for what is checked.
     *
     * @throws EncryptionKeyException if none of the keys given is the one the object was encrypted under,
     *     or the one with its ID does not unwrap its data key
     * @throws IntegrityException if the object was not encrypted by this decorator, or its stored length
     *     cannot be that of a whole encrypted object (and, from the stream's reads, if a segment fails its
     *     tag)
     */
    @Override
    public ObjectRead get(String key, ReadOptions options) {
        Opened opened = open(key, options);
        long plain = opened.format.plaintextLength(opened.streamLength);
        return opened.read(0, 0, plain, plain);
    }

    /**
     * Reads {@code length} bytes of the object's plaintext from {@code offset} (fewer when the object ends
     * first), decrypting only the segments that hold them; each is authenticated before any of its bytes
     * is handed over. The returned read's {@code version().size()} is the whole object's plaintext size.
     * Not cached by a last-known-good store below (a partly read object is never kept), but served from its
     * copy when it holds one and the store is unavailable.
     *
     * @param offset the first plaintext byte, 0 to the object's size
     * @param length how many bytes at most, 0 or more
     * @throws IllegalArgumentException if {@code offset} is negative or beyond the object's size, or
     *     {@code length} is negative
     * @throws EncryptionKeyException as {@link #get(String, ReadOptions)}
     */
    public ObjectRead getRange(String key, ReadOptions options, long offset, long length) {
        if (offset < 0 || length < 0) {
            throw new IllegalArgumentException(
                    "offset and length must be >= 0 but were " + offset + " and " + length + " for '" + key + "'");
        }
        Opened opened = open(key, options);
        long plain = opened.format.plaintextLength(opened.streamLength);
        if (offset > plain) {
            opened.read.close();
            throw new IllegalArgumentException("offset " + offset + " is beyond the " + plain + " bytes of object '"
                    + key + "' version " + opened.read.version().versionId());
        }
        long first = opened.format.segmentOf(Math.min(offset, Math.max(0, plain - 1)));
        return opened.read(first, offset - opened.format.plainStart(first), Math.min(length, plain - offset), plain);
    }

    /** A stored object whose envelope and stream header were read and whose key was unwrapped. */
    private record Opened(
            ObjectRead read, StreamFormat format, SecretKey segmentKey, byte[] header, long streamLength) {

        /** The plaintext of segments from {@code first} on, {@code skip} bytes into it, {@code length} bytes. */
        ObjectRead read(long first, long skip, long length, long plainSize) {
            InputStream in = read.stream();
            try {
                in.skipNBytes(format.cipherStart(first) - StreamFormat.HEADER_BYTES);
            } catch (IOException e) {
                read.close();
                throw new UncheckedIOException(
                        "Reading object '" + read.version().key() + "' failed", e);
            }
            ObjectVersion version = read.version();
            Decrypting plain = new Decrypting(
                    in,
                    format,
                    segmentKey,
                    header,
                    streamLength,
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
                    read.degradedReason().orElse(null));
        }
    }

    private Opened open(String key, ReadOptions options) {
        ObjectRead read = delegate.get(key, options);
        try {
            return opened(key, read);
        } catch (RuntimeException e) {
            read.close();
            throw e;
        }
    }

    private Opened opened(String key, ObjectRead read) {
        ObjectVersion version = read.version();
        InputStream in = read.stream();
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
            throw new UncheckedIOException("Reading object '" + key + "' failed", e);
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
            return new Opened(read, format, segmentKey, header, streamLength);
        } catch (GeneralSecurityException e) {
            throw new IntegrityException(
                    key,
                    "Object '" + key + "' version " + version.versionId() + " has a damaged stream header: "
                            + e.getMessage(),
                    e);
        } catch (IOException e) {
            throw new UncheckedIOException("Reading object '" + key + "' failed", e);
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
     * The version as {@link #get(String, ReadOptions)} reads it (its plaintext size): the envelope is read,
     * and the key checked, with one GET.
     */
    @Override
    public ObjectVersion head(String key, String versionId) {
        try (ObjectRead read = get(key, ReadOptions.version(versionId).withAllowCache(false))) {
            return read.version();
        }
    }

    @Override
    public List<VersionEntry> versions(String key) {
        return delegate.versions(key);
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
        return delegate.listVersions(prefix);
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
}
