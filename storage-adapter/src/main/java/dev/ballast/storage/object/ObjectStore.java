package dev.ballast.storage.object;

import dev.ballast.storage.AlreadyExistsException;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.PreconditionFailedException;
import dev.ballast.storage.StaleReadException;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.UnsupportedCapabilityException;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

/**
 * Whole-object, versioned storage: every write replaces the whole object and creates a new
 * version; there is no write at a byte offset. To change part of an object, read it, change the
 * bytes, and write the whole object back conditionally on the version you read:
 *
 * <pre>{@code
 * try (ObjectRead read = store.get("config.json")) {
 *   byte[] updated = edit(read.readAllBytes());
 *   store.putIfMatch("config.json", read.version().eTag(), ObjectContent.ofBytes(updated));
 * } catch (PreconditionFailedException lostRace) {
 *   // someone else wrote a newer version in between: read again and retry the edit
 * }
 * }</pre>
 *
 * <p>Keys follow S3's rules (1 to 1024 UTF-8 bytes) and are never normalised: {@code a//b},
 * {@code x y+z} and the NFC and NFD forms of a name are different keys. Keys with control
 * characters are rejected, and so, by default, are {@code ..} segments and a leading {@code /}.
 *
 * <p>Implementations are thread-safe.
 */
public interface ObjectStore {

    /** What the endpoint was found to guarantee at start-up. */
    StoreCapabilities capabilities();

    /**
     * Writes a new version of {@code key}. A SHA-256 of the content is recorded with the object and
     * every read verifies it. A put retried after an ambiguous failure never creates a second
     * version when the first attempt already landed.
     *
     * @return the version written
     * @throws IllegalArgumentException if the key is invalid
     * @throws StorageUnavailableException if the store could not be reached
     */
    ObjectVersion put(String key, ObjectContent content);

    /**
     * Writes a new version of {@code key} as {@link #put} does, but lets the store acknowledge it
     * later, so that it can make many writes durable together (group commit). The content has been
     * read in full when this method returns (a file may then change or be deleted without affecting
     * the write); the returned future completes with the version once it is as durable as
     * {@code put} would have made it, or exceptionally with the exception {@code put} would have
     * thrown. Futures may complete on another caller's thread, so dependent actions must be short.
     *
     * <p>The default calls {@code put} and returns its outcome as a completed future.
     *
     * <p>This method blocks while the content is read (and, for a store that does not group
     * commits, while it is written): call it from as many threads as writes should run at once.
     * @throws IllegalArgumentException if the key is invalid, before any content is read
     */
    default CompletableFuture<ObjectVersion> putAsync(String key, ObjectContent content) {
        try {
            return CompletableFuture.completedFuture(put(key, content));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw e;
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * {@link #putAsync(String, ObjectContent)} with {@code options}, as
     * {@link #put(String, ObjectContent, PutOptions)} takes them: the content has been read in full when
     * this method returns, and the future completes once the version, with its metadata, is durable.
     *
     * <p>The default calls {@link #putAsync(String, ObjectContent)} when the options are
     * {@link PutOptions#defaults()}, and otherwise {@link #put(String, ObjectContent, PutOptions)},
     * returning its outcome as a completed future; a store that groups commits overrides it.
     *
     * @throws IllegalArgumentException if the key is invalid, before any content is read
     * @throws UnsupportedCapabilityException if the store lacks a feature the options need, before any
     *     content is read
     */
    default CompletableFuture<ObjectVersion> putAsync(String key, ObjectContent content, PutOptions options) {
        Objects.requireNonNull(options, "options");
        if (options.isDefault()) {
            return putAsync(key, content);
        }
        options.requireSupportedBy(capabilities(), getClass().getSimpleName());
        try {
            return CompletableFuture.completedFuture(put(key, content, options));
        } catch (IllegalArgumentException | NullPointerException | UnsupportedCapabilityException e) {
            throw e;
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Whether the SHA-256 in the {@link ObjectVersion} a successful put returns is proven to be that of
     * the bytes the store now holds, so that a caller need not read a new version back to confirm it:
     * a store that hashes the bytes as it writes them, or an endpoint that validates a checksum sent
     * with the body. The default is {@link StoreCapabilities#additionalChecksums()}.
     */
    default boolean confirmsWrites() {
        return capabilities().additionalChecksums();
    }

    /**
     * Writes {@code key} only if no current version exists ({@code If-None-Match: *}).
     *
     * @throws AlreadyExistsException if the key already has a current version (HTTP 412)
     * @throws UnsupportedCapabilityException if the endpoint does not honour conditional writes
     */
    ObjectVersion putIfAbsent(String key, ObjectContent content);

    /**
     * Writes {@code key} only if its current ETag equals {@code eTag} ({@code If-Match}).
     *
     * @throws PreconditionFailedException if the current ETag differs (HTTP 412)
     * @throws ObjectNotFoundException if the key has no current version (HTTP 404)
     * @throws UnsupportedCapabilityException if the endpoint does not honour conditional writes
     */
    ObjectVersion putIfMatch(String key, String eTag, ObjectContent content);

    /**
     * Writes a new version of {@code key} as {@link #put(String, ObjectContent)} does, with
     * {@code options}: metadata kept with the version and returned by reads, {@link #head} and
     * version listings, and server-side encryption asked for and checked in the store's answer.
     *
     * <p>The default writes a plain put when the options are {@link PutOptions#defaults()} and
     * otherwise refuses, before anything is written; stores that keep metadata or encrypt override it.
     *
     * @throws UnsupportedCapabilityException if the store lacks a feature the options need
     *     ({@link StoreCapabilities.Feature}), or the store's answer does not show the encryption asked
     *     for applied (the version written is then removed)
     */
    default ObjectVersion put(String key, ObjectContent content, PutOptions options) {
        Objects.requireNonNull(options, "options");
        options.requireSupportedBy(capabilities(), getClass().getSimpleName());
        return put(key, content);
    }

    /**
     * {@link #putIfAbsent(String, ObjectContent)} with {@code options}, as
     * {@link #put(String, ObjectContent, PutOptions)}.
     */
    default ObjectVersion putIfAbsent(String key, ObjectContent content, PutOptions options) {
        Objects.requireNonNull(options, "options");
        options.requireSupportedBy(capabilities(), getClass().getSimpleName());
        return putIfAbsent(key, content);
    }

    /**
     * {@link #putIfMatch(String, String, ObjectContent)} with {@code options}, as
     * {@link #put(String, ObjectContent, PutOptions)}.
     */
    default ObjectVersion putIfMatch(String key, String eTag, ObjectContent content, PutOptions options) {
        Objects.requireNonNull(options, "options");
        options.requireSupportedBy(capabilities(), getClass().getSimpleName());
        return putIfMatch(key, eTag, content);
    }

    /** Reads the latest version; same as {@code get(key, ReadOptions.latest())}. */
    ObjectRead get(String key);

    /**
     * Reads {@code key} as a stream verified against its recorded SHA-256 while it is read; with
     * {@link ReadOptions#withRange} only the bytes of the range, verified block by block against the
     * per-block digests recorded at write time where the version has them (see
     * {@link ObjectRead#verified()}).
     *
     * @throws ObjectNotFoundException if the key or version does not exist (or was deleted)
     * @throws StaleReadException if the store keeps returning a version older than one already seen
     *     and the options do not accept stale reads
     * @throws StorageUnavailableException if the store is unreachable and no acceptable
     *     last-known-good copy exists
     * @throws IntegrityException from the returned stream's reads if the bytes do not match (for a
     *     range: naming the block that does not)
     * @throws dev.ballast.storage.RequestRefusedException (416 {@code InvalidRange}) if the range starts
     *     at or past the end of the version
     */
    ObjectRead get(String key, ReadOptions options);

    /**
     * Every version of {@code key}, delete markers included, newest first, paginated to the end.
     * Empty when the key never existed.
     */
    List<VersionEntry> versions(String key);

    /**
     * Deletes {@code key} by creating a delete marker; earlier versions stay readable by version ID.
     *
     * @return the delete marker's version entry
     */
    VersionEntry delete(String key);

    /**
     * Lists the current (non-deleted) keys that start with {@code prefix}, in UTF-8 binary order,
     * paginated to the end, held in memory: a convenience for small prefixes. For a bucket of millions
     * of keys, delimiters or {@code start-after}, stream with {@link #listing(ListRequest)}.
     */
    List<String> list(String prefix);

    /**
     * The current (non-deleted) keys {@code request} selects, as S3's
     * <a href="https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html">ListObjectsV2</a>
     * lists them, fetched a page ({@link ListRequest#pageSize()} keys) at a time as the stream is
     * consumed: in UTF-8 binary order, with each key's current size, ETag and date; with a delimiter,
     * keys rolled up into common prefixes ({@link ListEntry#commonPrefix()}), each listed once where its
     * first key would be; only what comes after {@code startAfter}. The stream holds one page, never what it
     * already handed out, so it iterates any number of keys in bounded memory; it fetches nothing until
     * its first entry is needed. Keys under Ballast's reserved {@code .ballast/} prefix are never listed.
     *
     * <p>Not a snapshot: a key written or deleted while the stream is consumed may or may not appear
     * (S3 gives no more). Streams are sequential and single-use; closing one is not required, but
     * harmless. {@link #list(String)} returns the same keys, held in one list.
     *
     * <p>The default lists every version under the prefix with {@link #listVersions} at the first entry
     * and holds them (correct, not bounded); every store and decorator of Ballast overrides it with a
     * paged listing.
     *
     * @throws NullPointerException if {@code request} is null
     * @throws StorageUnavailableException from the stream's traversal, if a page could not be fetched
     */
    default Stream<ListEntry> listing(ListRequest request) {
        Objects.requireNonNull(request, "request");
        return dev.ballast.storage.internal.Listings.lazily(() -> dev.ballast.storage.internal.Listings.ofAll(
                request,
                listVersions(request.prefix()).stream()
                        .filter(v -> v.latest() && !v.deleteMarker())
                        .map(v -> ListEntry.object(v.key(), v.size(), v.eTag(), v.lastModified()))
                        .toList()));
    }

    /**
     * A URL that lets whoever holds it, without credentials, read or write one object until it expires,
     * as the AWS SDK's {@code S3Presigner} signs it (SigV4 query parameters): method, key, expiry,
     * content type and checksums bound into the signature ({@link PresignRequest}). Nothing is sent: the
     * URL is signed locally, so it is handed out even for a key that does not exist or an endpoint that is
     * down. A PUT through it creates a new version as any PUT does, outside this store's conditional
     * writes and put tokens; with {@link PresignRequest#withSha256} its SHA-256 is recorded, so reads
     * through the store verify it.
     *
     * <p>Only stores whose {@link StoreCapabilities#presignedUrls()} is true hand them out (S3); the
     * default throws {@link UnsupportedCapabilityException}. Thread-safe.
     *
     * @throws NullPointerException if {@code request} is null
     * @throws IllegalArgumentException if the key is invalid
     * @throws UnsupportedCapabilityException if the store cannot hand out presigned URLs (the local store)
     */
    default PresignedRequest presign(PresignRequest request) {
        Objects.requireNonNull(request, "request");
        throw new UnsupportedCapabilityException("Presigned URLs are not supported by "
                + getClass().getSimpleName() + ", which no HTTP client can reach; read or write '" + request.key()
                + "' through the store itself.");
    }

    /**
     * Every version and delete marker of every key that starts with {@code prefix}, keys whose current
     * version is a delete marker included, as S3's
     * <a href="https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectVersions.html">ListObjectVersions</a>
     * with a prefix returns them, paginated to the end: grouped by key in UTF-8 binary order, each
     * key's newest first.
     *
     * <p>The default lists the current keys with {@link #list} and asks {@link #versions} for each,
     * so it misses keys whose current version is a delete marker; stores override it with one
     * listing.
     *
     * @throws StorageUnavailableException if the store could not be reached
     */
    default List<VersionEntry> listVersions(String prefix) {
        List<VersionEntry> all = new java.util.ArrayList<>();
        for (String key : list(prefix)) {
            all.addAll(versions(key));
        }
        return List.copyOf(all);
    }

    /**
     * What the store recorded of one version, its bytes not read: as S3's HeadObject with a
     * {@code versionId}, one request. The SHA-256 is the one recorded at write time (empty when the
     * version was not written by Ballast).
     *
     * <p>The default opens the version with {@link #get(String, ReadOptions)} (no cache) and closes it
     * unread.
     *
     * @throws ObjectNotFoundException if there is no such version (or it is a delete marker)
     * @throws StorageUnavailableException if the store could not be reached
     */
    default ObjectVersion head(String key, String versionId) {
        try (ObjectRead read = get(key, ReadOptions.version(versionId).withAllowCache(false))) {
            return read.version();
        }
    }

    /**
     * Of {@code listed}, versions this store's {@link #listVersions} or {@link #versions} returned,
     * those whose stored bytes it does not hold in full, each with why (one clause, such as "its
     * content file /d/blobs/ab/ab12... is missing"), found without reading the bytes: what a partial
     * check ({@code ballast verify --read-data-subset}) asks of the versions it does not read. Delete
     * markers and empty versions are always held.
     *
     * <p>The default finds none: a store whose listing is made from the objects it holds, as S3's
     * ListObjectVersions is, lists only versions it holds, with their stored size, so the listing
     * itself is the check. A store that lists from an index kept apart from the bytes
     * ({@link dev.ballast.storage.object.local.LocalObjectStore}) checks, for each version, that its
     * content file or pack file exists and is long enough. Thread-safe.
     *
     * @return the versions of {@code listed} not held in full (the same instances), each with why;
     *     empty when every one is held
     * @throws StorageUnavailableException if the store could not be asked
     */
    default java.util.Map<VersionEntry, String> missingContent(java.util.Collection<VersionEntry> listed) {
        Objects.requireNonNull(listed, "listed");
        return java.util.Map.of();
    }

    /**
     * Tells the store that puts of keys under {@code prefix}, most of them new, follow (a first backup,
     * a bulk import). A store that reads a key's current version before each put, to give the new
     * version a higher generation ({@link dev.ballast.storage.object.s3.S3ObjectStore} does, with a HEAD, where the endpoint has no
     * conditional writes), may instead list the prefix once, at the first such put, and skip that read
     * for every key the listing did not hold: one request per 1,000 keys instead of one per key. The
     * listing is as current as a HEAD would be at that moment; a key another writer creates after it
     * and before this store's first put of the key is the same race a HEAD followed by a PUT has. Only
     * a key's first put uses the listing.
     *
     * <p>The default does nothing. Thread-safe; calling it again for the same prefix does nothing.
     *
     * @param prefix a key prefix, such as {@code "photos/"}
     */
    default void prepareWrites(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
    }

    /**
     * Removes one version (or delete marker) of {@code key} for good, as S3's
     * <a href="https://docs.aws.amazon.com/AmazonS3/latest/API/API_DeleteObject.html">DeleteObject</a>
     * with a {@code versionId} does: it cannot be read again. When it was the current version, the
     * newest remaining one becomes current. Removing a version that does not exist is not an error
     * (S3 answers it with 204 too).
     *
     * <p>The default throws {@link UnsupportedCapabilityException}.
     *
     * @return false if the store knows the version did not exist; true if it was removed, or if the
     *     store cannot tell (S3 answers both with 204)
     * @throws IllegalArgumentException if the key is invalid
     * @throws StorageUnavailableException if the store could not be reached
     * @throws UnsupportedCapabilityException if the store cannot remove single versions
     */
    default boolean deleteVersion(String key, String versionId) {
        throw new UnsupportedCapabilityException("Removing a single version of '" + key + "' (" + versionId
                + ") is not supported by " + getClass().getSimpleName());
    }
}
