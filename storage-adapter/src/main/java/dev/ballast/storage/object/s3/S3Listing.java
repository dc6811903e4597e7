package dev.ballast.storage.object.s3;

import dev.ballast.storage.internal.Listings;
import dev.ballast.storage.internal.ObjectKeys;
import dev.ballast.storage.object.ListEntry;
import dev.ballast.storage.object.ListRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The S3 store's streaming listing: one
 * <a href="https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html">ListObjectsV2</a>
 * request per page, sent when the stream needs the page's first entry, the next page asked for with
 * the continuation token of the one before; the delimiter, {@code start-after} and page size
 * ({@code max-keys}) go to the server, which applies them. Each page's keys and common prefixes (S3
 * answers them as two lists) are merged in UTF-8 binary order; keys and common prefixes under
 * {@link ObjectKeys#RESERVED_PREFIX} are left out. A listing is strictly increasing, so an entry at or
 * before the last one handed out is dropped: S3Mock 5.2 answers every common prefix again on every page
 * of a delimited listing. Stateless and thread-safe (each stream is for one thread).
 */
final class S3Listing {

    private final S3Client s3;
    private final String bucket;
    private final String where;

    /**
     * @param where the endpoint, for messages
     */
    S3Listing(S3Client s3, String bucket, String where) {
        this.s3 = Objects.requireNonNull(s3, "s3");
        this.bucket = Objects.requireNonNull(bucket, "bucket");
        this.where = Objects.requireNonNull(where, "where");
    }

    /** The entries {@code request} selects, fetched page by page. */
    Stream<ListEntry> listing(ListRequest request) {
        Objects.requireNonNull(request, "request");
        String[] last = {null};
        return Listings.byToken(token -> {
            Listings.Page page = page(request, token);
            List<ListEntry> after = new ArrayList<>(page.entries().size());
            for (ListEntry e : page.entries()) {
                if (last[0] == null || Listings.compare(e.key(), last[0]) > 0) {
                    after.add(e);
                    last[0] = e.key();
                }
            }
            return new Listings.Page(after, page.next());
        });
    }

    private Listings.Page page(ListRequest request, @Nullable String token) {
        ListObjectsV2Request.Builder req = ListObjectsV2Request.builder()
                .bucket(bucket)
                .prefix(request.prefix())
                .maxKeys(request.pageSize());
        if (request.delimiter() != null) {
            req.delimiter(request.delimiter());
        }
        if (token != null) {
            req.continuationToken(token);
        } else if (request.startAfter() != null) {
            req.startAfter(request.startAfter());
        }
        ListObjectsV2Response page;
        try {
            page = s3.listObjectsV2(req.build());
        } catch (SdkException e) {
            throw S3Errors.translate(
                    null, "ListObjectsV2 of '" + request.prefix() + "' in bucket '" + bucket + "' at " + where, e);
        } catch (java.io.UncheckedIOException e) {
            // the answer broke off while the SDK parsed it: the store's failure, and a listing changes nothing
            throw S3Errors.translate(
                    null,
                    "ListObjectsV2 of '" + request.prefix() + "' in bucket '" + bucket + "' at " + where,
                    e,
                    false);
        }
        List<ListEntry> entries = merge(page.contents(), page.commonPrefixes());
        String next = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
        if (next != null && next.isEmpty()) {
            next = null;
        }
        return new Listings.Page(entries, next);
    }

    /** Keys and common prefixes, each list in order, merged into one in UTF-8 binary order. */
    static List<ListEntry> merge(List<S3Object> objects, List<CommonPrefix> prefixes) {
        List<ListEntry> out = new ArrayList<>(objects.size() + prefixes.size());
        int o = 0;
        int p = 0;
        while (o < objects.size() || p < prefixes.size()) {
            boolean takeObject = p >= prefixes.size()
                    || (o < objects.size()
                            && Listings.compare(
                                            objects.get(o).key(),
                                            prefixes.get(p).prefix())
                                    < 0);
            if (takeObject) {
                S3Object s = objects.get(o++);
                if (!s.key().startsWith(ObjectKeys.RESERVED_PREFIX)) {
                    out.add(new ListEntry(s.key(), false, s.size() == null ? 0 : s.size(), s.eTag(), s.lastModified()));
                }
            } else {
                String prefix = prefixes.get(p++).prefix();
                if (!prefix.startsWith(ObjectKeys.RESERVED_PREFIX)) {
                    out.add(ListEntry.prefix(prefix));
                }
            }
        }
        return out;
    }
}
