package dev.ballast.storage.object.s3;

import dev.ballast.storage.StorageException;
import dev.ballast.storage.internal.ObjectKeys;
import dev.ballast.storage.object.VersionEntry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.DeleteMarkerEntry;
import software.amazon.awssdk.services.s3.model.ListObjectVersionsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The listing room of {@link S3ObjectStore}: a key's history, the current keys under a prefix, every
 * version under a prefix, and the prefixes prepared for bulk writes ({@link #prepareWrites}).
 * Thread-safe.
 */
final class S3Listings extends S3Room {
    /** Prefixes given to {@link #prepareWrites}, each listed at the first put under it that needs a HEAD. */
    private final Map<String, PrefixListing> listings = new ConcurrentHashMap<>();

    S3Listings(S3Room shared) {
        super(shared);
    }

    List<VersionEntry> versions(String key) {
        validate(key);
        List<VersionEntry> entries = new ArrayList<>();
        // Keys sharing the prefix sort after the exact key, so a page that reached one ends our history.
        boolean[] passedKey = {false};
        forEachVersion(
                key,
                key,
                entry -> {
                    if (key.equals(entry.key())) {
                        entries.add(entry);
                    } else {
                        passedKey[0] = true;
                    }
                },
                () -> !passedKey[0]);
        sortHistory(entries);
        return List.copyOf(entries);
    }

    /** The SDK splits versions and delete markers into two lists; a history is newest first. */
    static void sortHistory(List<VersionEntry> entries) {
        entries.sort(Comparator.comparing(VersionEntry::latest)
                .reversed()
                .thenComparing(VersionEntry::lastModified, Comparator.nullsLast(Comparator.reverseOrder())));
    }

    /**
     * Pages through ListObjectVersions with {@code prefix}, handing every version and delete marker to
     * {@code each}, while pages remain and {@code more} says to go on after a page.
     */
    private void forEachVersion(
            String prefix,
            @Nullable String forErrors,
            java.util.function.Consumer<VersionEntry> each,
            java.util.function.BooleanSupplier more) {
        String keyMarker = null;
        String versionMarker = null;
        while (true) {
            ListObjectVersionsResponse page;
            String km = keyMarker;
            String vm = versionMarker;
            try {
                page = s3.listObjectVersions(
                        r -> r.bucket(bucket).prefix(prefix).keyMarker(km).versionIdMarker(vm));
            } catch (SdkException e) {
                throw S3Errors.translate(forErrors, describe("ListObjectVersions", prefix), e);
            } catch (java.io.UncheckedIOException e) {
                // the answer broke off while the SDK parsed it (a connection cut in its body): the store's
                // failure, not a local file's, and a listing changes nothing
                throw S3Errors.translate(forErrors, describe("ListObjectVersions", prefix), e, false);
            }
            for (software.amazon.awssdk.services.s3.model.ObjectVersion v : page.versions()) {
                each.accept(new VersionEntry(
                        v.key(),
                        v.versionId(),
                        v.eTag(),
                        v.size() == null ? 0 : v.size(),
                        v.lastModified(),
                        Boolean.TRUE.equals(v.isLatest()),
                        false));
            }
            for (DeleteMarkerEntry d : page.deleteMarkers()) {
                each.accept(new VersionEntry(
                        d.key(), d.versionId(), null, 0, d.lastModified(), Boolean.TRUE.equals(d.isLatest()), true));
            }
            if (!more.getAsBoolean() || !Boolean.TRUE.equals(page.isTruncated())) {
                return;
            }
            keyMarker = page.nextKeyMarker();
            versionMarker = page.nextVersionIdMarker();
        }
    }

    List<String> list(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        List<String> keys = new ArrayList<>();
        listKeys(prefix, Integer.MAX_VALUE, keys);
        keys.sort((a, b) ->
                Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8)));
        return List.copyOf(keys);
    }

    /**
     * Adds the current keys under {@code prefix} (outside the reserved prefix) to {@code keys},
     * paginated, and stops after {@code limit} of them.
     *
     * @return false if there were more than {@code limit}
     */
    private boolean listKeys(String prefix, int limit, Collection<String> keys) {
        String token = null;
        int listed = 0;
        do {
            ListObjectsV2Request.Builder req =
                    ListObjectsV2Request.builder().bucket(bucket).prefix(prefix);
            if (token != null) {
                req.continuationToken(token);
            }
            ListObjectsV2Response page;
            try {
                page = s3.listObjectsV2(req.build());
            } catch (SdkException e) {
                throw S3Errors.translate(null, describe("ListObjectsV2", prefix), e);
            } catch (java.io.UncheckedIOException e) {
                // as above: a connection cut in the body of the answer gave "A local file operation failed"
                throw S3Errors.translate(null, describe("ListObjectsV2", prefix), e, false);
            }
            for (S3Object o : page.contents()) {
                if (++listed > limit) {
                    return false;
                }
                if (!o.key().startsWith(ObjectKeys.RESERVED_PREFIX)) {
                    keys.add(o.key());
                }
            }
            token = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
        } while (token != null);
        return true;
    }

    /** Listed at most this many keys per prepared prefix; beyond it, puts read each key's version as before. */
    static final int MAX_PREPARED_LISTING = 100_000;

    void prepareWrites(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        listings.putIfAbsent(prefix, new PrefixListing(prefix));
    }

    /**
     * Whether a listing of a prepared prefix showed {@code key} has no current version and this is its
     * first put since: then the HEAD before the put would answer 404, and is skipped.
     */
    boolean listedAbsent(String key) {
        if (listings.isEmpty() || generations.known(key) != 0) {
            return false;
        }
        for (PrefixListing listing : listings.values()) {
            if (key.startsWith(listing.prefix)) {
                return listing.firstPutOfAbsentKey(key);
            }
        }
        return false;
    }

    /** The keys under one prepared prefix, listed once, at the first put that asks. */
    private final class PrefixListing {
        final String prefix;
        private @Nullable Set<String> seen;
        private boolean unusable;

        PrefixListing(String prefix) {
            this.prefix = prefix;
        }

        synchronized boolean firstPutOfAbsentKey(String key) {
            if (seen == null && !unusable) {
                Set<String> keys = new HashSet<>();
                try {
                    unusable = !listKeys(prefix, MAX_PREPARED_LISTING, keys);
                } catch (StorageException e) {
                    LOG.debug(
                            "Listing '{}' before its puts failed; each put reads its key's version instead", prefix, e);
                    unusable = true;
                }
                seen = keys;
            }
            return !unusable && seen.add(key); // a key's later puts read its version as before
        }
    }

    /**
     * One paginated ListObjectVersions with {@code prefix}; versions and delete markers of a key are
     * put back in one history, newest first, and keys under the reserved prefix are left out.
     */
    List<VersionEntry> listVersions(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        Map<String, List<VersionEntry>> byKey = new java.util.TreeMap<>((a, b) ->
                Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8)));
        forEachVersion(
                prefix,
                null,
                v -> byKey.computeIfAbsent(v.key(), k -> new ArrayList<>()).add(v),
                () -> true);
        List<VersionEntry> all = new ArrayList<>();
        byKey.forEach((key, history) -> {
            if (!key.startsWith(ObjectKeys.RESERVED_PREFIX)) {
                sortHistory(history);
                all.addAll(history);
            }
        });
        return List.copyOf(all);
    }
}
