package dev.ballast.storage.object.local;

import dev.ballast.storage.internal.Listings;
import dev.ballast.storage.object.ListEntry;
import dev.ballast.storage.object.ListRequest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * The local store's streaming listing: one index query per page, on a reader of the index taken for
 * that query and given back ({@link VersionIndex#currentPage}: a range scan of the {@code current}
 * table's primary key, the keys' UTF-8 bytes, so a page costs its own keys whatever the store holds).
 * The delimiter and {@code start-after} are applied by {@link Listings#byKey}, which skips a common
 * prefix as a whole. Nothing is held between pages: a writer may commit in between, and a later page
 * shows what the index holds when it is read, as S3's pages do. Stateless and thread-safe.
 */
final class LocalListing {

    /** Runs a page query on the store's index, translating its failures as the store's reads do. */
    @FunctionalInterface
    interface IndexReads {
        List<VersionIndex.Listed> page(byte[] from, byte @Nullable [] to, int limit);
    }

    private LocalListing() {}

    /** The entries {@code request} selects, page by page through {@code reads}. */
    static Stream<ListEntry> listing(ListRequest request, IndexReads reads) {
        return Listings.byKey(request, (from, to, limit) -> {
            List<VersionIndex.Listed> rows = reads.page(from, to, limit);
            List<ListEntry> page = new ArrayList<>(rows.size());
            for (VersionIndex.Listed r : rows) {
                page.add(ListEntry.object(
                        r.key(),
                        r.size(),
                        LocalObjectStore.eTag(r.versionId()),
                        Instant.ofEpochMilli(r.modifiedMillis())));
            }
            return page;
        });
    }
}
