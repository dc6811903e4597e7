package dev.ballast.storage.object.s3;

import dev.ballast.storage.internal.Listings;
import dev.ballast.storage.object.ListEntry;
import dev.ballast.storage.object.ListRequest;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Lists keys generated on demand, never stored, through the two paged listings the stores use: the S3
 * store's ({@link S3Listing} over an {@link S3Client} whose ListObjectsV2 pages are made up as asked) and
 * the key-ordered one of the local store and the fake ({@link Listings#byKey}). Run in a JVM of its own
 * by {@link TenMillionKeyListingTest} with a small heap:
 * {@code GeneratedListing s3|keys|materialise COUNT} prints the number of keys listed (checking each is
 * the next in order), or, for {@code materialise}, collects them into a list, which a heap too small to
 * hold them fails with {@link OutOfMemoryError}.
 */
public final class GeneratedListing {

    private GeneratedListing() {}

    static String key(long i) {
        return String.format(Locale.ROOT, "data/%09d", i);
    }

    public static void main(String[] args) {
        String mode = args[0];
        long count = Long.parseLong(args[1]);
        Stream<ListEntry> listing = switch (mode) {
            case "s3", "materialise" -> s3(count);
            case "keys" -> keys(count);
            default -> throw new IllegalArgumentException("mode must be s3, keys or materialise: " + mode);
        };
        if (mode.equals("materialise")) {
            List<ListEntry> all = listing.toList();
            System.out.println(all.size());
            return;
        }
        long[] seen = {0};
        listing.forEach(e -> {
            if (!e.key().equals(key(seen[0]))) {
                throw new AssertionError("entry " + seen[0] + " is " + e.key());
            }
            seen[0]++;
        });
        System.out.println(seen[0]);
    }

    /** The S3 store's listing over ListObjectsV2 pages made up on demand (continuation token: the next index). */
    static Stream<ListEntry> s3(long count) {
        Instant modified = Instant.parse("2026-12-01T00:00:00Z");
        S3Client generated = new S3Client() {
            @Override
            public ListObjectsV2Response listObjectsV2(ListObjectsV2Request request) {
                long from = request.continuationToken() == null ? 0 : Long.parseLong(request.continuationToken());
                long to = Math.min(count, from + request.maxKeys());
                List<S3Object> contents = new ArrayList<>((int) (to - from));
                for (long i = from; i < to; i++) {
                    contents.add(S3Object.builder()
                            .key(key(i))
                            .size(1L)
                            .eTag("\"e\"")
                            .lastModified(modified)
                            .build());
                }
                return ListObjectsV2Response.builder()
                        .contents(contents)
                        .isTruncated(to < count)
                        .nextContinuationToken(to < count ? Long.toString(to) : null)
                        .build();
            }

            @Override
            public String serviceName() {
                return "s3";
            }

            @Override
            public void close() {}
        };
        return new S3Listing(generated, "bucket", "generated").listing(ListRequest.prefix("data/"));
    }

    /** The key-ordered listing over a source that makes up the keys in each asked range. */
    static Stream<ListEntry> keys(long count) {
        Instant modified = Instant.parse("2026-12-01T00:00:00Z");
        return Listings.byKey(ListRequest.prefix("data/"), (from, to, limit) -> {
            long lo = 0;
            long hi = count;
            while (lo < hi) { // the first generated key >= from
                long mid = (lo + hi) >>> 1;
                if (Arrays.compareUnsigned(key(mid).getBytes(StandardCharsets.UTF_8), from) < 0) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            List<ListEntry> page = new ArrayList<>(limit);
            for (long i = lo; i < count && page.size() < limit; i++) {
                page.add(ListEntry.object(key(i), 1, "\"e\"", modified));
            }
            return page;
        });
    }
}
