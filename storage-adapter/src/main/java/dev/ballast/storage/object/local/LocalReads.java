package dev.ballast.storage.object.local;

import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.UnsupportedCapabilityException;
import dev.ballast.storage.internal.BlockDigests;
import dev.ballast.storage.internal.ObjectKeys;
import dev.ballast.storage.internal.RangeInputStream;
import dev.ballast.storage.internal.Sha256;
import dev.ballast.storage.internal.VerifyingInputStream;
import dev.ballast.storage.object.ByteRange;
import dev.ballast.storage.object.Freshness;
import dev.ballast.storage.object.ObjectMetadata;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.ServerSideEncryption;
import dev.ballast.storage.object.Source;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The read room of {@link LocalObjectStore}: a version's bytes from its pack, its index row or its
 * content file, verified as they are read. Thread-safe.
 */
final class LocalReads {
    private final Path root;
    private final LocalStoreConfig config;
    private final Blobs blobs;
    private final Packs packs;
    private final IndexConnections connections;

    LocalReads(Path root, LocalStoreConfig config, Blobs blobs, Packs packs, IndexConnections connections) {
        this.root = root;
        this.config = config;
        this.blobs = blobs;
        this.packs = packs;
        this.connections = connections;
    }

    /**
     * Reads the latest version, or the one {@link ReadOptions#versionId()} names, verified as it is
     * read. The store is the single source of its versions, so a read is never stale and never comes
     * from a cache; a version without a recorded generation reads as {@link Freshness#UNKNOWN}.
     *
     * @throws ObjectNotFoundException if the key or version does not exist or is a delete marker
     * @throws StorageUnavailableException if the index cannot be read
     */
    ObjectRead get(String key, ReadOptions options) {
        validate(key);
        Objects.requireNonNull(options, "options");
        if (options.customerKey() != null) {
            throw new UnsupportedCapabilityException("The local object store '" + root + "' has no server-side"
                    + " encryption (capability SSE_C absent), so it takes no SSE-C key; read '" + key
                    + "' without one");
        }
        String versionId = options.versionId();
        boolean ranged = options.range() != null;
        Found found = read(
                ix -> {
                    VersionIndex.Row r = versionId == null ? ix.currentWithContent(key) : ix.version(key, versionId);
                    if (r == null || r.deleteMarker() || !ix.attributesPresent()) {
                        return new Found(r, ObjectMetadata.NONE, null);
                    }
                    byte[] table = ranged && options.verifyRange() && BlockDigests.needsTable(r.size())
                            ? IndexAttributes.blockDigests(ix.connection(), r.content())
                            : null;
                    return new Found(r, IndexAttributes.metadata(ix.connection(), r.versionId()), table);
                },
                key,
                "Reading '" + key + "'");
        VersionIndex.Row row = found.row;
        if (row == null || row.deleteMarker()) {
            throw new ObjectNotFoundException(key, versionId, row != null, null);
        }
        String recorded = row.sha256() == null ? null : Sha256.hex(row.sha256());
        // Without a recorded SHA-256 the bytes are still checked against their address, the SHA-256 of
        // what was stored, so damage at rest is caught either way.
        String expected = recorded != null ? recorded : Sha256.hex(row.content());
        ObjectVersion version = new ObjectVersion(
                key,
                row.versionId(),
                LocalObjectStore.eTag(row.versionId()),
                row.size(),
                recorded == null ? "" : recorded,
                row.generation(),
                Instant.ofEpochMilli(row.modifiedMillis()),
                found.metadata,
                ServerSideEncryption.NONE);
        Freshness freshness = row.generation() == 0 ? Freshness.UNKNOWN : Freshness.FRESH;
        if (!ranged) {
            return new ObjectRead(
                    version,
                    new VerifyingInputStream(key, open(key, row, 0, row.size()), row.size(), expected),
                    Source.LIVE,
                    freshness,
                    Duration.ZERO,
                    null);
        }
        ByteRange range = options.range().resolve(key, row.size());
        // A content of one block has its SHA-256 as its one digest; a larger one, the table recorded at write time.
        // Not checked at all where the caller authenticates the bytes itself (verifyRange false).
        BlockDigests digests = !options.verifyRange()
                ? null
                : !BlockDigests.needsTable(row.size())
                        ? BlockDigests.single(row.size(), Sha256.hex(row.content()))
                        : found.blockTable == null ? null : BlockDigests.of(row.size(), found.blockTable);
        long from = digests == null ? range.offset() : RangeInputStream.alignedStart(range);
        long to = digests == null ? range.offset() + range.length() : RangeInputStream.alignedEnd(range, row.size());
        InputStream stored = RangeInputStream.limited(open(key, row, from, to), to - from);
        return new ObjectRead(
                version,
                RangeInputStream.of(key, row.versionId(), stored, digests, range),
                Source.LIVE,
                freshness,
                Duration.ZERO,
                null,
                range,
                digests != null);
    }

    /** A version's row with what the index keeps beside it. */
    private record Found(VersionIndex.@Nullable Row row, ObjectMetadata metadata, byte @Nullable [] blockTable) {}

    /**
     * The stored bytes of {@code row} from byte {@code from} on, of which those before {@code to} are
     * read. A content file that ends before {@code to} (cut short) is an {@link IntegrityException}
     * before any byte is handed out; a whole read ({@code from} 0, {@code to} its size) also wants
     * the file no longer than its size.
     */
    private InputStream open(String key, VersionIndex.Row row, long from, long to) {
        if (row.size() == 0) {
            return InputStream.nullInputStream();
        }
        if (row.inlineData() != null) {
            return new ByteArrayInputStream(row.inlineData(), (int) from, row.inlineData().length - (int) from);
        }
        if (row.packed()) {
            InputStream whole = openPacked(key, row);
            try {
                whole.skipNBytes(from); // a packed content is at most the inline threshold, in memory already
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            return whole;
        }
        try {
            return from == 0 && to == row.size()
                    ? blobs.open(row.content(), row.size())
                    : blobs.openAt(row.content(), from, to);
        } catch (NoSuchFileException e) {
            throw new IntegrityException(
                    key,
                    "Version '" + row.versionId() + "' of '" + key + "' is damaged: its content file "
                            + blobs.path(row.content()) + " is missing");
        } catch (Blobs.NotAContentFile e) {
            throw new IntegrityException(
                    key,
                    "Version '" + row.versionId() + "' of '" + key + "' is damaged: its content file "
                            + blobs.path(row.content()) + " is not a regular file");
        } catch (Blobs.WrongLength e) {
            throw new IntegrityException(
                    key,
                    "Version '" + row.versionId() + "' of '" + key + "' is damaged: its content file "
                            + e.getMessage());
        } catch (IOException e) {
            throw LocalErrors.unavailable(key, "Opening the content of '" + key + "'", e);
        }
    }

    private InputStream openPacked(String key, VersionIndex.Row row) {
        Path file = packs.path(row.pack());
        try {
            return new ByteArrayInputStream(packs.read(row.pack(), row.packOffset(), (int) row.size()));
        } catch (NoSuchFileException e) {
            // A compaction may have moved the content and deleted the pack since the row was read.
            VersionIndex.Row now = read(ix -> ix.version(key, row.versionId()), key, "Reading '" + key + "'");
            if (now != null && now.packed() && (now.pack() != row.pack() || now.packOffset() != row.packOffset())) {
                return openPacked(key, now);
            }
            throw new IntegrityException(
                    key,
                    "Version '" + row.versionId() + "' of '" + key + "' is damaged: its pack file " + file
                            + " is missing");
        } catch (Blobs.NotAContentFile e) {
            throw new IntegrityException(
                    key,
                    "Version '" + row.versionId() + "' of '" + key + "' is damaged: its pack file " + file
                            + " is not a regular file");
        } catch (java.io.EOFException e) {
            throw new IntegrityException(
                    key,
                    "Version '" + row.versionId() + "' of '" + key + "' is damaged: its pack file " + e.getMessage());
        } catch (IOException e) {
            throw LocalErrors.unavailable(key, "Reading the content of '" + key + "' from " + file, e);
        }
    }

    private void validate(String key) {
        ObjectKeys.validate(key, config.allowDotSegmentsAndLeadingSlash());
    }

    private <T> T read(IndexConnections.IndexQuery<T> query, @Nullable String key, String what) {
        return connections.read(query, key, what);
    }
}
