package dev.ballast.storage.internal;

import dev.ballast.storage.object.ListEntry;
import dev.ballast.storage.object.ListRequest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.Supplier;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.jspecify.annotations.Nullable;

/**
 * Streaming listings fetched a page at a time, on demand: the stream returned holds one page (at most
 * {@link ListRequest#pageSize()} entries) and the position after it, never what it already handed out,
 * so memory stays bounded whatever the number of keys. Two kinds of source:
 *
 * <ul>
 *   <li>{@link #byToken}: a store that pages itself, with a continuation token (S3's ListObjectsV2, which
 *       also applies the delimiter and {@code start-after});</li>
 *   <li>{@link #byKey}: a store that can return the current keys in a range of UTF-8 byte strings, in
 *       order (the local store's index, the fake's map); the delimiter and {@code start-after} are applied
 *       here, as S3 applies them, and a common prefix is skipped as a whole (the next page starts after
 *       every key under it), so a folder of a million keys costs one page, not a thousand.</li>
 * </ul>
 *
 * <p>A page is fetched when the stream needs its first entry, never when the stream is made; a failure
 * to fetch one is thrown from the stream's traversal. Streams are sequential and single-use; closing
 * one is not required. Stateless and thread-safe (each stream is for one thread).
 */
public final class Listings {

    private Listings() {}

    /** One page of a source that pages with a continuation token. */
    public record Page(List<ListEntry> entries, @Nullable String next) {
        public Page {
            entries = List.copyOf(entries);
        }
    }

    /** Fetches the page after {@code token} (null: the first page). */
    @FunctionalInterface
    public interface TokenPages {
        Page fetch(@Nullable String token);
    }

    /** A key-ordered source: the current objects whose UTF-8 key is in a range. */
    @FunctionalInterface
    public interface KeyPages {
        /**
         * At most {@code limit} current (non-deleted) objects whose UTF-8 key is {@code >= from} and, when
         * {@code to} is not null, {@code < to}, in UTF-8 binary order. Fewer than {@code limit} means there
         * are no more.
         */
        List<ListEntry> fetch(byte[] from, byte @Nullable [] to, int limit);
    }

    /** The entries of {@code pages}, page after page, until a page has no next token. */
    public static Stream<ListEntry> byToken(TokenPages pages) {
        Objects.requireNonNull(pages, "pages");
        return stream(new TokenIterator(pages));
    }

    /** The entries {@code request} selects from a key-ordered source, the delimiter and start-after applied. */
    public static Stream<ListEntry> byKey(ListRequest request, KeyPages pages) {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(pages, "pages");
        return stream(new KeyIterator(request, pages));
    }

    /**
     * {@code request} applied to {@code current}, the current objects under its prefix, in any order (the
     * default of {@code ObjectStore.listing} for a store that lists only in full).
     */
    public static Stream<ListEntry> ofAll(ListRequest request, List<ListEntry> current) {
        List<byte[]> keys = new ArrayList<>(current.size());
        List<ListEntry> sorted = new ArrayList<>(current);
        sorted.sort((a, b) -> compare(a.key(), b.key()));
        for (ListEntry e : sorted) {
            keys.add(utf8(e.key()));
        }
        return byKey(request, (from, to, limit) -> {
            List<ListEntry> page = new ArrayList<>();
            int i = lowerBound(keys, from);
            while (i < keys.size()
                    && page.size() < limit
                    && (to == null || Arrays.compareUnsigned(keys.get(i), to) < 0)) {
                page.add(sorted.get(i++));
            }
            return page;
        });
    }

    /**
     * A stream that calls {@code listing} only when its first entry is needed, so that a decorator's check
     * (a fault it injects, a store it opens) happens when the delegate's listing would fetch its first page.
     * Closing it closes the stream {@code listing} returned, if it was called.
     */
    public static Stream<ListEntry> lazily(Supplier<Stream<ListEntry>> listing) {
        Objects.requireNonNull(listing, "listing");
        LazyIterator it = new LazyIterator(listing);
        return stream(it).onClose(it::close);
    }

    /** Compares two keys as S3 orders them: by their UTF-8 bytes, unsigned. */
    public static int compare(String a, String b) {
        return Arrays.compareUnsigned(utf8(a), utf8(b));
    }

    /** {@code key}'s UTF-8 bytes. */
    public static byte[] utf8(String key) {
        return key.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The smallest byte string greater than every string that starts with {@code prefix}, or null when
     * there is none (empty, or all {@code 0xff}).
     */
    public static byte @Nullable [] successor(byte[] prefix) {
        for (int i = prefix.length - 1; i >= 0; i--) {
            if (prefix[i] != (byte) 0xff) {
                byte[] s = Arrays.copyOf(prefix, i + 1);
                s[i]++;
                return s;
            }
        }
        return null;
    }

    private static int lowerBound(List<byte[]> keys, byte[] from) {
        int lo = 0;
        int hi = keys.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (Arrays.compareUnsigned(keys.get(mid), from) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    private static Stream<ListEntry> stream(Iterator<ListEntry> it) {
        return StreamSupport.stream(
                Spliterators.spliteratorUnknownSize(
                        it, Spliterator.ORDERED | Spliterator.NONNULL | Spliterator.DISTINCT),
                false);
    }

    /** Holds one page; fetches the next when it is used up. */
    private abstract static class PageIterator implements Iterator<ListEntry> {
        private List<ListEntry> page = List.of();
        private int position;
        boolean exhausted;

        /** Replaces the page (possibly with an empty one); sets {@link #exhausted} when nothing follows. */
        abstract List<ListEntry> nextPage();

        @Override
        public final boolean hasNext() {
            while (position >= page.size()) {
                if (exhausted) {
                    return false;
                }
                page = nextPage();
                position = 0;
            }
            return true;
        }

        @Override
        public final ListEntry next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            ListEntry e = page.get(position);
            // Drop the reference as soon as it is handed out, so a page is held no longer than it is needed.
            position++;
            return e;
        }
    }

    private static final class TokenIterator extends PageIterator {
        private final TokenPages pages;
        private @Nullable String token;

        TokenIterator(TokenPages pages) {
            this.pages = pages;
        }

        @Override
        List<ListEntry> nextPage() {
            Page p = pages.fetch(token);
            token = p.next();
            exhausted = token == null;
            return p.entries();
        }
    }

    private static final class KeyIterator extends PageIterator {
        private final KeyPages pages;
        private final String prefix;
        private final @Nullable String delimiter;
        private final byte @Nullable [] startAfter;
        private final byte @Nullable [] to;
        private final int pageSize;
        private byte[] from;
        private @Nullable String lastCommon;

        KeyIterator(ListRequest r, KeyPages pages) {
            this.pages = pages;
            this.prefix = r.prefix();
            this.delimiter = r.delimiter();
            this.pageSize = r.pageSize();
            byte[] p = utf8(prefix);
            this.to = successor(p);
            this.exhausted = false;
            byte[] start = p;
            if (r.startAfter() != null) {
                this.startAfter = utf8(r.startAfter());
                byte[] after = Arrays.copyOf(startAfter, startAfter.length + 1); // the key itself excluded
                if (Arrays.compareUnsigned(after, start) > 0) {
                    start = after;
                }
            } else {
                this.startAfter = null;
            }
            this.from = start;
            if (to != null && Arrays.compareUnsigned(from, to) >= 0) {
                exhausted = true;
            }
        }

        @Override
        List<ListEntry> nextPage() {
            List<ListEntry> fetched = pages.fetch(from, to, pageSize);
            if (fetched.size() < pageSize) {
                exhausted = true;
            }
            if (fetched.isEmpty()) {
                return List.of();
            }
            List<ListEntry> out = new ArrayList<>(fetched.size());
            for (ListEntry e : fetched) {
                String key = e.key();
                if (lastCommon != null && key.startsWith(lastCommon)) {
                    continue;
                }
                int at = delimiter == null || key.length() <= prefix.length()
                        ? -1
                        : key.indexOf(delimiter, prefix.length());
                if (at >= 0) {
                    String common = key.substring(0, at + delimiter.length());
                    lastCommon = common;
                    // As S3: a common prefix at or before start-after is not listed (every key under it is).
                    if (startAfter == null || Arrays.compareUnsigned(utf8(common), startAfter) > 0) {
                        out.add(ListEntry.prefix(common));
                    }
                    continue;
                }
                out.add(e);
            }
            String last = fetched.get(fetched.size() - 1).key();
            if (lastCommon != null && last.startsWith(lastCommon)) {
                byte[] next = successor(utf8(lastCommon));
                if (next == null || (to != null && Arrays.compareUnsigned(next, to) >= 0)) {
                    exhausted = true;
                } else {
                    from = next;
                }
            } else {
                byte[] l = utf8(last);
                from = Arrays.copyOf(l, l.length + 1);
            }
            return out;
        }
    }

    private static final class LazyIterator implements Iterator<ListEntry> {
        private final Supplier<Stream<ListEntry>> listing;
        private @Nullable Stream<ListEntry> opened;
        private @Nullable Iterator<ListEntry> delegate;

        LazyIterator(Supplier<Stream<ListEntry>> listing) {
            this.listing = listing;
        }

        private Iterator<ListEntry> delegate() {
            if (delegate == null) {
                opened = listing.get();
                delegate = opened.iterator();
            }
            return delegate;
        }

        @Override
        public boolean hasNext() {
            return delegate().hasNext();
        }

        @Override
        public ListEntry next() {
            return delegate().next();
        }

        void close() {
            if (opened != null) {
                opened.close();
            }
        }
    }
}
