package dev.ballast.storage.object;

import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What a streaming listing ({@link ObjectStore#listing(ListRequest)}) asks for, as S3's
 * <a href="https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html">ListObjectsV2</a>
 * does: the current (non-deleted) keys under a prefix, in UTF-8 binary order, optionally rolled up
 * at a delimiter into common prefixes ("folders") and starting after a key. Immutable.
 *
 * <pre>{@code
 * try (Stream<ListEntry> folder = store.listing(ListRequest.prefix("photos/2024/").withDelimiter("/"))) {
 *     folder.forEach(e -> System.out.println(e.commonPrefix() ? e.key() + " (folder)" : e.key()));
 * }
 * }</pre>
 *
 * @param prefix only keys that start with it ({@code ""}: every key)
 * @param delimiter if set, a key with this string after the prefix is reported once as the common
 *     prefix up to and including its first occurrence there, instead of itself; null for none
 * @param startAfter if set, only keys (and common prefixes) after it in UTF-8 binary order; it need
 *     not exist. Null to start at the prefix
 * @param pageSize how many keys one request asks for, 1 to {@value #MAX_PAGE_SIZE} (default
 *     {@value #DEFAULT_PAGE_SIZE}); it bounds the memory a listing holds, not how many it returns
 */
public record ListRequest(
        String prefix, @Nullable String delimiter, @Nullable String startAfter, int pageSize) {

    /** The default and largest page: {@value}, the most one ListObjectsV2 request returns. */
    public static final int DEFAULT_PAGE_SIZE = 1000;

    /** The largest page a request may ask for: {@value}. */
    public static final int MAX_PAGE_SIZE = 1000;

    /**
     * @throws NullPointerException if {@code prefix} is null
     * @throws IllegalArgumentException if the delimiter is empty or {@code pageSize} is not within 1 to
     *     {@value #MAX_PAGE_SIZE}
     */
    public ListRequest {
        Objects.requireNonNull(prefix, "prefix");
        if (delimiter != null && delimiter.isEmpty()) {
            throw new IllegalArgumentException("delimiter must not be empty (null lists without one), e.g. \"/\"");
        }
        if (pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
            throw new IllegalArgumentException(
                    "pageSize must be within 1 and " + MAX_PAGE_SIZE + " but was " + pageSize);
        }
    }

    /** Every current key under {@code prefix}, without delimiter, from the start, in pages of 1,000. */
    public static ListRequest prefix(String prefix) {
        return new ListRequest(prefix, null, null, DEFAULT_PAGE_SIZE);
    }

    /** Every current key of the store, in pages of 1,000. */
    public static ListRequest all() {
        return prefix("");
    }

    /** A copy that rolls keys up at {@code delimiter} into common prefixes, such as {@code "/"}. */
    public ListRequest withDelimiter(String delimiter) {
        return new ListRequest(prefix, Objects.requireNonNull(delimiter, "delimiter"), startAfter, pageSize);
    }

    /** A copy that lists only what comes after {@code key} in UTF-8 binary order (S3's {@code start-after}). */
    public ListRequest withStartAfter(String key) {
        return new ListRequest(prefix, delimiter, Objects.requireNonNull(key, "key"), pageSize);
    }

    /** A copy that fetches {@code pageSize} keys per request (1 to {@value #MAX_PAGE_SIZE}). */
    public ListRequest withPageSize(int pageSize) {
        return new ListRequest(prefix, delimiter, startAfter, pageSize);
    }

    /** The delimiter, if any. */
    public Optional<String> delimiterIfAny() {
        return Optional.ofNullable(delimiter);
    }

    /** The key the listing starts after, if any. */
    public Optional<String> startAfterIfAny() {
        return Optional.ofNullable(startAfter);
    }
}
