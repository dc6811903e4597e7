package dev.ballast.storage.object.local;

import dev.ballast.storage.internal.Listings;
import dev.ballast.storage.object.ListEntry;
import dev.ballast.storage.object.ListRequest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * The local store's streaming listing: one index query per page, on a reader of the index taken for
 * that query and given back ({@link VersionIndex#currentPage}: a range scan of the {@code current}
 * table's primary key, the keys' UTF-8 bytes, so a page costs its own keys whatever the store holds).
 * The delimiter and {@code start-after} are applied by {@link Listings#byKey}, which skips a common
 * prefix as a whole. Nothing is held between pages: a writer may commit in between, and a later page
 * shows what the index holds when it is read, as S3's pages do. Each key is listed with the bytes its
 * files hold ({@link Held}): a content file or pack deleted or cut by hand lists as S3 lists the same
 * damage, absent or at its real size, never in full. Stateless and thread-safe.
 */
final class LocalListing {

    /** Runs a page query on the store's index, translating its failures as the store's reads do. */
    @FunctionalInterface
    interface IndexReads {
        List<VersionIndex.Listed> page(byte[] from, byte @Nullable [] to, int limit);
    }

    /**
     * The bytes the store's files hold of each row of a page ({@link HeldBytes}), in its order;
     * {@link HeldBytes#NONE} for a row deleted since the page was read, which the page leaves out (a
     * version still in the index whose file is gone is listed at 0 bytes: lost, not deleted).
     */
    @FunctionalInterface
    interface Held {
        long[] of(List<VersionIndex.Listed> rows);
    }

    private LocalListing() {}

    /** The entries {@code request} selects, page by page through {@code reads}. */
    static Stream<ListEntry> listing(ListRequest request, IndexReads reads, Held held) {
        return Listings.byKey(request, (from, to, limit) -> {
            List<ListEntry> page = new ArrayList<>(Math.min(limit, 1024));
            byte[] next = from;
            while (true) {
                int wanted = limit - page.size();
                List<VersionIndex.Listed> rows = reads.page(next, to, wanted);
                long[] sizes = held.of(rows);
                for (int i = 0; i < rows.size(); i++) {
                    VersionIndex.Listed r = rows.get(i);
                    if (sizes[i] == HeldBytes.NONE) {
                        continue; // deleted while the page was read
                    }
                    page.add(ListEntry.object(
                            r.key(),
                            sizes[i],
                            LocalObjectStore.eTag(r.versionId()),
                            Instant.ofEpochMilli(r.modifiedMillis())));
                }
                if (rows.size() < wanted || page.size() >= limit) {
                    return page; // a short page ends the listing, so one is only handed out at the end
                }
                // Keys were left out: the rest of the page from just after the last key read.
                byte[] last = VersionIndex.utf8(rows.get(rows.size() - 1).key());
                next = Arrays.copyOf(last, last.length + 1);
            }
        });
    }
}
