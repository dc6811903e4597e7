package dev.ballast.storage.object.s3;

import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.internal.BlockDigests;
import dev.ballast.storage.internal.ObjectKeys;
import dev.ballast.storage.internal.Sha256;
import dev.ballast.storage.object.ServerSideEncryption;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * The block digest tables of {@link S3ObjectStore}: object metadata holds at most 2 KiB, so a version
 * of more than one block (1 MiB) keeps its table (32 bytes per block:
 * {@link BlockDigests}) in a sidecar object, {@code .ballast/blocks/<SHA-256 of the content>}, named
 * by its content so that every version and key holding the same bytes share it, and records the
 * table's own SHA-256 in {@value S3ObjectStore#META_BLOCKS}. A ranged read fetches the table (one GET,
 * then kept in memory: at most {@value #MAX_CACHED} tables), checks it against that SHA-256, and
 * checks each block it reads against it. Tables are immutable, so a cached one is never stale.
 * Ranged reads of one version that start at once share one GET of its table: the others wait for
 * it rather than each fetching the same table (a restore reads a pack as several ranges in parallel,
 * and every one of them fetched the table).
 * Thread-safe.
 */
final class S3BlockTables extends S3Room {
    /** Where the tables are kept. */
    static final String PREFIX = ObjectKeys.RESERVED_PREFIX + "blocks/";

    static final int MAX_CACHED = 1024;

    private final Map<String, byte[]> cached = new ConcurrentHashMap<>();
    /** The GETs of tables under way, by content SHA-256: what a read of the same content waits for. */
    private final Map<String, CompletableFuture<byte @Nullable []>> fetching = new ConcurrentHashMap<>();

    S3BlockTables(S3Room shared) {
        super(shared);
    }

    /** The sidecar key of the content whose SHA-256 is {@code contentSha256Hex}. */
    static String key(String contentSha256Hex) {
        return PREFIX + contentSha256Hex;
    }

    /** Whether this store already wrote or read the table with SHA-256 {@code tableSha} of that content. */
    boolean known(String contentSha256Hex, String tableSha) {
        byte[] table = cached.get(contentSha256Hex);
        return table != null && Sha256.hex(Sha256.of(table)).equals(tableSha);
    }

    void remember(String contentSha256Hex, byte[] table, String tableSha) {
        if (cached.size() >= MAX_CACHED) {
            cached.clear(); // tables are a few KiB and cheap to fetch again: no LRU bookkeeping
        }
        cached.put(contentSha256Hex, table);
    }

    /**
     * The digests of a version of {@code size} bytes whose content has SHA-256 {@code contentSha} and
     * whose table has SHA-256 {@code tableSha}; null when the sidecar is missing (the range is then
     * served unverified).
     *
     * @throws IntegrityException if the sidecar does not match the SHA-256 the version recorded for it
     */
    @Nullable
    BlockDigests fetch(
            String key, String contentSha, String tableSha, long size, @Nullable ServerSideEncryption customerKey) {
        byte[] table = cached.get(contentSha);
        if (table == null || !Sha256.hex(Sha256.of(table)).equals(tableSha)) {
            table = fetchedByAnother(contentSha, tableSha);
        }
        if (table == null) {
            CompletableFuture<byte @Nullable []> mine = new CompletableFuture<>();
            CompletableFuture<byte @Nullable []> running = fetching.putIfAbsent(contentSha, mine);
            if (running != null) {
                // Another reader's GET began between the look above and this one: wait for it, and fetch the
                // table here only when it failed, found no sidecar or brought another table.
                table = awaited(running, tableSha);
                if (table == null) {
                    table = download(key, contentSha, tableSha, customerKey);
                }
            } else {
                try {
                    table = download(key, contentSha, tableSha, customerKey);
                    mine.complete(table);
                } catch (RuntimeException | Error e) {
                    mine.complete(
                            null); // a reader waiting for it fetches the table itself, and meets the failure itself
                    throw e;
                } finally {
                    fetching.remove(contentSha, mine);
                }
            }
            if (table == null) {
                return null;
            }
        }
        try {
            return BlockDigests.of(size, table);
        } catch (IllegalArgumentException e) {
            throw new IntegrityException(
                    key,
                    "The block digest table of '" + key + "' does not fit its " + size + " bytes (" + e.getMessage()
                            + ")");
        }
    }

    /**
     * The table another thread's GET of it (under way) brought, once it arrived, when its SHA-256 is
     * {@code tableSha}; null when no GET of it is under way, or it failed, found no sidecar or brought
     * another table (the caller then fetches it, as if alone).
     */
    private byte @Nullable [] fetchedByAnother(String contentSha, String tableSha) {
        CompletableFuture<byte @Nullable []> running = fetching.get(contentSha);
        return running == null ? null : awaited(running, tableSha);
    }

    /** What {@code running} brought once it arrived, when its SHA-256 is {@code tableSha}; else null. */
    private static byte @Nullable [] awaited(CompletableFuture<byte @Nullable []> running, String tableSha) {
        byte[] table;
        try {
            table = running.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (ExecutionException e) {
            return null;
        }
        return table != null && Sha256.hex(Sha256.of(table)).equals(tableSha) ? table : null;
    }

    /**
     * GETs the table of the content {@code contentSha} and checks it against {@code tableSha}, keeping
     * it; null when the sidecar is missing.
     */
    private byte @Nullable [] download(
            String key, String contentSha, String tableSha, @Nullable ServerSideEncryption customerKey) {
        byte[] table;
        String sidecar = key(contentSha);
        GetObjectRequest.Builder req = GetObjectRequest.builder().bucket(bucket).key(sidecar);
        S3Attributes.apply(req, customerKey);
        try {
            ResponseBytes<GetObjectResponse> bytes = s3.getObjectAsBytes(req.build());
            table = bytes.asByteArray();
        } catch (AwsServiceException e) {
            if (e.statusCode() == 404 && !"NoSuchBucket".equals(S3Errors.errorCode(e))) {
                LOG.warn(
                        "The block digest table of '{}' ({}) is missing: its ranges are served unverified; a whole read"
                                + " is still verified against its SHA-256",
                        key,
                        sidecar);
                return null;
            }
            throw S3Errors.translate(key, describe("GET", sidecar), e);
        } catch (SdkException e) {
            throw S3Errors.translate(key, describe("GET", sidecar), e);
        } catch (UncheckedIOException e) {
            throw S3Errors.translate(key, describe("GET", sidecar), e);
        }
        if (!Sha256.hex(Sha256.of(table)).equals(tableSha)) {
            throw new IntegrityException(
                    key,
                    "The block digest table of '" + key + "' (" + sidecar + ") does not match the SHA-256 its"
                            + " version recorded for it: it is damaged, so no range of the version can be checked;"
                            + " read the whole object (verified by its SHA-256) instead");
        }
        remember(contentSha, table, tableSha);
        return table;
    }
}
