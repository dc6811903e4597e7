package dev.ballast.storage.crypto;

import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.RequestRefusedException;
import dev.ballast.storage.object.ByteRange;
import dev.ballast.storage.object.Freshness;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.ReadOptions;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * A plaintext range of an encrypted object read with two ranged reads of the store below: the head
 * (envelope and stream header, {@value #HEAD_BYTES} bytes, which holds them unless the wrapped key or key
 * ID is unusually long, when a second read of the longest possible envelope follows), then exactly the
 * ciphertext of the segments that hold the range, pinned to the version the head came from. Each segment
 * is authenticated by its AES-GCM tag before any of its bytes is handed over ({@link Decrypting}).
 * Stateless.
 */
final class SegmentRanges {
    /** Bytes of the stored object's head read first: enough for an envelope with an AES-KW or KMS key. */
    static final int HEAD_BYTES = 4096;

    private SegmentRanges() {}

    static ObjectRead read(ObjectStore store, Unlocked.Unlocker unlocker, String key, ReadOptions options) {
        ByteRange asked = options.range();
        Head head = head(store, unlocker, key, options);
        Unlocked keys = head.keys;
        ObjectVersion stored = head.read.version();
        long plain = keys.plaintextLength();
        ByteRange wanted = asked.resolve(key, plain); // 416 past the plaintext's end
        StreamFormat format = keys.format();
        long first = format.segmentOf(wanted.offset());
        long last = format.segmentOf(wanted.offset() + wanted.length() - 1);
        long segments = format.segmentsOfCiphertext(keys.streamLength());
        long from = format.cipherStart(first);
        long to = last == segments - 1 ? keys.streamLength() : (last + 1) * format.segmentSize;
        ReadOptions pinned = new ReadOptions(
                        stored.versionId(),
                        options.acceptStale(),
                        options.allowCache(),
                        null,
                        options.customerKey(),
                        true)
                .withRange(ByteRange.of(keys.envelopeBytes() + from, to - from));
        ObjectRead cipher = store.get(key, pinned);
        ObjectVersion got = cipher.version();
        if (!got.versionId().equals(stored.versionId()) || got.size() != stored.size()) {
            cipher.close();
            throw new IntegrityException(
                    key,
                    "Object '" + key + "' version " + stored.versionId() + " was " + stored.size()
                            + " stored bytes when its envelope was read, but the read of its segments returned"
                            + " version " + got.versionId() + " of " + got.size() + " bytes");
        }
        Decrypting decrypting = new Decrypting(
                cipher.stream(),
                format,
                keys.segmentKey(),
                keys.header(),
                keys.streamLength(),
                first,
                wanted.offset() - format.plainStart(first),
                wanted.length(),
                key,
                stored.versionId());
        // The marks of the read that was degraded, if one was; a latest read served from a cache is UNKNOWN.
        ObjectRead marks = cipher.degraded() ? cipher : head.read;
        Freshness freshness = cipher.degraded() && options.versionId() == null ? Freshness.UNKNOWN : head.freshness;
        return new ObjectRead(
                EncryptedObjectStore.plaintextVersion(got, plain),
                decrypting,
                marks.source(),
                freshness,
                marks.age(),
                marks.degradedReason().orElse(null),
                wanted,
                true);
    }

    /**
     * The version's envelope and stream header, read and unlocked; the version, without reading its
     * content (a head read).
     */
    static ObjectVersion version(ObjectStore store, Unlocked.Unlocker unlocker, String key, ReadOptions options) {
        Head head = head(store, unlocker, key, options);
        return EncryptedObjectStore.plaintextVersion(head.read.version(), head.keys.plaintextLength());
    }

    /** The head's read (its stream closed, its marks kept) and what it unlocked. */
    private record Head(ObjectRead read, Freshness freshness, Unlocked keys) {}

    private static Head head(ObjectStore store, Unlocked.Unlocker unlocker, String key, ReadOptions options) {
        ObjectRead read = headRead(store, key, options, HEAD_BYTES);
        byte[] bytes = drain(key, read);
        try {
            return new Head(
                    read, read.freshness(), unlocker.unlock(key, read.version(), new ByteArrayInputStream(bytes)));
        } catch (IntegrityException e) {
            if (bytes.length < HEAD_BYTES) {
                throw e;
            }
        }
        // An envelope longer than the head read (a long key ID or wrapped key): read the longest there can be.
        ReadOptions pinned = new ReadOptions(
                read.version().versionId(),
                options.acceptStale(),
                options.allowCache(),
                null,
                options.customerKey(),
                true);
        ObjectRead longer = headRead(store, key, pinned, Envelope.MAX_BYTES + StreamFormat.HEADER_BYTES);
        byte[] more = drain(key, longer);
        return new Head(
                longer, read.freshness(), unlocker.unlock(key, longer.version(), new ByteArrayInputStream(more)));
    }

    private static ObjectRead headRead(ObjectStore store, String key, ReadOptions options, int bytes) {
        try {
            return store.get(key, options.withRange(ByteRange.of(0, bytes)));
        } catch (RequestRefusedException e) {
            if (e.statusCode() == 416) { // an empty stored object: nothing this decorator wrote
                throw new IntegrityException(
                        key,
                        "Object '" + key + "' is not encrypted client-side (it is empty): a store with client-side"
                                + " encryption reads only what it encrypted",
                        e);
            }
            throw e;
        }
    }

    private static byte[] drain(String key, ObjectRead read) {
        try (InputStream in = read.stream()) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("Reading the envelope of object '" + key + "' failed", e);
        }
    }
}
