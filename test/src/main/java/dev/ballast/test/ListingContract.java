package dev.ballast.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.ballast.storage.object.ListEntry;
import dev.ballast.storage.object.ListRequest;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The streaming listing's part of the {@link ObjectStoreContract} ({@link ObjectStore#listing}): pages
 * that add up to what {@code list} returns, delimiters, {@code start-after}. Every store has it, so no
 * case is skipped. Small pages (1 or 2 keys) make every case cross page boundaries.
 */
public interface ListingContract {

    /** The store under test. */
    ObjectStore storeUnderTest();

    /** Whether the store under test has {@code behaviour} ({@link ObjectStoreContract#has}). */
    boolean storeHas(ObjectStoreContract.Behaviour behaviour);

    /** A short name for skip reasons. */
    String nameOfStoreUnderTest();

    @Test
    default void listingStreamsTheCurrentKeysPageByPageAsListReturnsThem() {
        ObjectStore store = storeUnderTest();
        for (String k : List.of("ls/b", "ls/a", "ls/\u00e9", "ls/Z", "ls/\u4e2d", "lsx/a", "ls-other")) {
            store.put(k, ObjectContent.ofBytes(new byte[] {1}));
        }
        ObjectVersion a2 = store.put("ls/a", ObjectContent.ofBytes(new byte[] {1, 2, 3}));

        List<ListEntry> paged;
        try (Stream<ListEntry> s = store.listing(ListRequest.prefix("ls/").withPageSize(2))) {
            paged = s.toList();
        }

        assertThat(paged).extracting(ListEntry::key).containsExactlyElementsOf(store.list("ls/"));
        assertThat(paged).extracting(ListEntry::key).containsExactly("ls/Z", "ls/a", "ls/b", "ls/\u00e9", "ls/\u4e2d");
        assertThat(paged)
                .noneMatch(ListEntry::commonPrefix)
                .allMatch(e -> e.eTag() != null && e.lastModified() != null);
        ListEntry a = paged.get(1);
        if (storeHas(ObjectStoreContract.Behaviour.CONTENT_DIGESTS_AND_SIZES)) {
            assertThat(a.size()).as("the current version's size").isEqualTo(3);
        }
        assertThat(a.eTag()).isEqualTo(a2.eTag());
        assertThat(store.listing(ListRequest.prefix("ls/").withPageSize(1000))
                        .map(ListEntry::key)
                        .toList())
                .as("one page or many, the same keys")
                .isEqualTo(paged.stream().map(ListEntry::key).toList());
        store.delete("ls/b");
        assertThat(store.listing(ListRequest.prefix("ls/").withPageSize(1))
                        .map(ListEntry::key)
                        .toList())
                .as("after a delete, what list returns (which omits deleted keys where the store does)")
                .isEqualTo(store.list("ls/"));
    }

    @Test
    default void aDelimiterRollsKeysUpIntoCommonPrefixesListedOnceInKeyOrder() {
        delimitedListing(new int[] {1000});
    }

    @Test
    default void aDelimitedListingInPagesOfOneOrTwoListsEachCommonPrefixOnce() {
        assumeThat(storeHas(ObjectStoreContract.Behaviour.PAGED_DELIMITER_LISTINGS))
                .as("%s does not page delimited listings as S3 does (PAGED_DELIMITER_LISTINGS)", nameOfStoreUnderTest())
                .isTrue();
        delimitedListing(new int[] {1, 2});
    }

    private void delimitedListing(int... pageSizes) {
        ObjectStore store = storeUnderTest();
        for (String k : List.of(
                "ld/a.txt",
                "ld/photos/1.jpg",
                "ld/photos/2.jpg",
                "ld/photos/deep/3.jpg",
                "ld/videos/x.mp4",
                "ld/z.txt",
                "ldx/photos/elsewhere.jpg")) {
            store.put(k, ObjectContent.ofBytes(new byte[] {7}));
        }

        for (int pageSize : pageSizes) {
            List<ListEntry> top = store.listing(
                            ListRequest.prefix("ld/").withDelimiter("/").withPageSize(pageSize))
                    .toList();
            assertThat(top)
                    .as("page size %d", pageSize)
                    .containsExactly(
                            top.get(0), ListEntry.prefix("ld/photos/"), ListEntry.prefix("ld/videos/"), top.get(3));
            assertThat(top.get(0).key()).isEqualTo("ld/a.txt");
            assertThat(top.get(0).commonPrefix()).isFalse();
            assertThat(top.get(3).key()).isEqualTo("ld/z.txt");
            if (storeHas(ObjectStoreContract.Behaviour.CONTENT_DIGESTS_AND_SIZES)) {
                assertThat(top.get(3).size()).isEqualTo(1);
            }
            assertThat(store.listing(ListRequest.prefix("ld/photos/")
                                    .withDelimiter("/")
                                    .withPageSize(pageSize))
                            .map(e -> e.key() + (e.commonPrefix() ? " (prefix)" : "")))
                    .containsExactly("ld/photos/1.jpg", "ld/photos/2.jpg", "ld/photos/deep/ (prefix)");
        }
    }

    @Test
    default void startAfterListsOnlyWhatFollowsTheGivenKeyWhetherItExistsOrNot() {
        ObjectStore store = storeUnderTest();
        for (String k : List.of("la/1", "la/2", "la/3", "la/4", "la/5")) {
            store.put(k, ObjectContent.ofBytes(new byte[] {1}));
        }

        assertThat(store.listing(
                                ListRequest.prefix("la/").withStartAfter("la/2").withPageSize(2))
                        .map(ListEntry::key))
                .containsExactly("la/3", "la/4", "la/5");
        assertThat(store.listing(ListRequest.prefix("la/")
                                .withStartAfter("la/25")
                                .withPageSize(1))
                        .map(ListEntry::key))
                .as("a start-after key that does not exist")
                .containsExactly("la/3", "la/4", "la/5");
        assertThat(store.listing(ListRequest.prefix("la/").withStartAfter("a").withPageSize(2))
                        .map(ListEntry::key))
                .as("a start-after key before the prefix")
                .containsExactly("la/1", "la/2", "la/3", "la/4", "la/5");
        assertThat(store.listing(ListRequest.prefix("la/").withStartAfter("la/5")))
                .as("a start-after key at the end")
                .isEmpty();
        assertThat(store.listing(ListRequest.prefix("la/").withStartAfter("lb")))
                .as("a start-after key past the prefix")
                .isEmpty();
    }

    @Test
    default void aListingStoppedEarlyReturnsTheFirstKeysAndAnEmptyPrefixListsNothing() {
        ObjectStore store = storeUnderTest();
        for (int i = 0; i < 7; i++) {
            store.put("le/" + i, ObjectContent.ofBytes(new byte[] {1}));
        }

        assertThat(store.listing(ListRequest.prefix("le/").withPageSize(2))
                        .limit(3)
                        .map(ListEntry::key))
                .containsExactly("le/0", "le/1", "le/2");
        assertThat(store.listing(ListRequest.prefix("le-nothing-here/"))).isEmpty();
    }
}
