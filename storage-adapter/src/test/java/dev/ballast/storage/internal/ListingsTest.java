package dev.ballast.storage.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.object.ListEntry;
import dev.ballast.storage.object.ListRequest;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

class ListingsTest {

    private static final Instant T = Instant.parse("2026-12-01T00:00:00Z");

    /** A key-ordered source over {@code keys} (sorted here) that counts the pages it is asked for. */
    private static final class Source implements Listings.KeyPages {
        final List<String> keys;
        final AtomicInteger fetches = new AtomicInteger();

        Source(List<String> keys) {
            this.keys = new ArrayList<>(keys);
            this.keys.sort(Listings::compare);
        }

        @Override
        public List<ListEntry> fetch(byte[] from, byte @Nullable [] to, int limit) {
            fetches.incrementAndGet();
            List<ListEntry> page = new ArrayList<>();
            for (String k : keys) {
                byte[] b = k.getBytes(StandardCharsets.UTF_8);
                if (Arrays.compareUnsigned(b, from) >= 0
                        && (to == null || Arrays.compareUnsigned(b, to) < 0)
                        && page.size() < limit) {
                    page.add(ListEntry.object(k, 1, "\"e\"", T));
                }
            }
            return page;
        }
    }

    @Test
    void aListingFetchesNothingUntilItsFirstEntryIsNeededAndOnlyThePagesItUses() {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            keys.add(String.format(Locale.ROOT, "k/%03d", i));
        }
        Source source = new Source(keys);

        Stream<ListEntry> listing = Listings.byKey(ListRequest.prefix("k/").withPageSize(10), source);
        assertThat(source.fetches).as("made, not consumed").hasValue(0);

        assertThat(listing.limit(15).map(ListEntry::key)).hasSize(15).last().isEqualTo("k/014");
        assertThat(source.fetches).as("15 entries of pages of 10").hasValue(2);
    }

    @Test
    void aCommonPrefixIsSkippedAsAWholeSoAFolderOfManyKeysCostsAboutOnePage() {
        List<String> keys = new ArrayList<>(List.of("a.txt", "z.txt"));
        for (int i = 0; i < 5_000; i++) {
            keys.add(String.format(Locale.ROOT, "big/%05d", i));
        }
        Source source = new Source(keys);

        List<ListEntry> top = Listings.byKey(
                        ListRequest.all().withDelimiter("/").withPageSize(100), source)
                .toList();

        assertThat(top)
                .containsExactly(
                        ListEntry.object("a.txt", 1, "\"e\"", T),
                        ListEntry.prefix("big/"),
                        ListEntry.object("z.txt", 1, "\"e\"", T));
        assertThat(source.fetches)
                .as("the page that meets big/ and the one after it, not the 50 pages under it")
                .hasValue(2);
    }

    @Test
    void keysAreOrderedByTheirUtf8BytesAndAPrefixOfAllFfBytesListsToTheEnd() {
        Source source = new Source(List.of("\uffff", "\ud83d\ude00", "\u00e9", "z"));

        assertThat(Listings.byKey(ListRequest.all().withPageSize(1), source).map(ListEntry::key))
                .as("U+FFFF (EF BF BF) sorts before U+1F600 (F0 9F 98 80) in UTF-8, after it in UTF-16")
                .containsExactly("z", "\u00e9", "\uffff", "\ud83d\ude00");
        assertThat(Listings.successor(new byte[] {(byte) 0xff, (byte) 0xff})).isNull();
        assertThat(Listings.successor(new byte[] {'a', (byte) 0xff})).containsExactly('b');
    }

    @Test
    void aFailureToFetchAPageIsThrownFromTheTraversalNotWhenTheListingIsMade() {
        Stream<ListEntry> listing = Listings.byToken(token -> {
            throw new StorageUnavailableException(null, "ListObjectsV2 of '' failed (connection refused)", null, false);
        });

        assertThatThrownBy(listing::toList).isInstanceOf(StorageUnavailableException.class);
    }

    @Test
    void aLazyListingCallsItsSourceAtTheFirstEntryAndClosesWhatItOpened() {
        AtomicInteger calls = new AtomicInteger();
        AtomicInteger closed = new AtomicInteger();
        Stream<ListEntry> lazy = Listings.lazily(() -> {
            calls.incrementAndGet();
            return Stream.of(ListEntry.prefix("a/")).onClose(closed::incrementAndGet);
        });
        assertThat(calls).hasValue(0);

        try (lazy) {
            assertThat(lazy.toList()).containsExactly(ListEntry.prefix("a/"));
        }
        assertThat(calls).hasValue(1);
        assertThat(closed).hasValue(1);
    }
}
