package dev.ballast.cli;

import dev.ballast.storage.object.local.LocalObjectStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * The space a prune gives back, measured rather than summed from the versions it deleted: in the
 * local store identical contents are stored once and small files' contents share pack files, so
 * deleting a version frees its bytes only when no kept version holds the same content and its pack
 * is repacked. The local store's figure is the bytes of its content, pack and manifest files
 * ({@code blobs/} and {@code packs/}) before the prune minus after it (the repacking included); its
 * bookkeeping (the index {@code index.db}, SQLite's files beside it, the {@code journal/}) records
 * the removals and is reported apart, and the 4 MiB {@code reserve} and {@code tmp/} not at all. The index
 * counts as the bytes it takes once SQLite's write-ahead log is copied into it
 * ({@link LocalObjectStore#indexBytes}), the {@code -wal} and {@code -shm} files not at all: while the store
 * is open its log holds every page each transaction changed, hundreds of KiB that are gone once it closes. An
 * S3 bucket frees each deleted version's bytes, so there it is their sum. Sizes are printed in MiB
 * (2^20 bytes) with the exact byte count, as every summary prints them.
 */
final class StoreSpace {
    private StoreSpace() {}

    /** The directories of the local store that hold content, pack and manifest files. */
    private static final java.util.List<String> CONTENT = java.util.List.of("blobs", "packs");

    /**
     * The local store's bytes at one moment.
     *
     * @param content bytes of its content, pack and manifest files
     * @param bookkeeping bytes of its index (as {@link LocalObjectStore#indexBytes} counts it) and journal
     */
    record Measure(long content, long bookkeeping) {}

    /**
     * The local store's bytes in {@code dir}, or null when there is no such directory or it cannot be
     * read (an S3 store: {@code dir} null).
     */
    static @Nullable Measure bytesOf(@Nullable Path dir) {
        if (dir == null || !Files.isDirectory(dir)) {
            return null;
        }
        try {
            long content = 0;
            for (String d : CONTENT) {
                content += bytesUnder(dir.resolve(d));
            }
            long index = LocalObjectStore.indexBytes(dir);
            long bookkeeping = bytesUnder(dir.resolve("journal"))
                    + (index >= 0 ? index : size(dir.resolve(LocalObjectStore.INDEX_FILE)));
            return new Measure(content, bookkeeping);
        } catch (IOException | UncheckedIOException e) {
            return null;
        }
    }

    private static long bytesUnder(Path dir) throws IOException {
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return 0;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            return all.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))
                    .mapToLong(StoreSpace::size)
                    .sum();
        }
    }

    private static long size(Path p) {
        try {
            return Files.size(p);
        } catch (IOException e) {
            return 0; // removed meanwhile (a temporary file)
        }
    }

    /**
     * The line that says what was given back: measured on the local store ({@code before} and
     * {@code after}), the deleted versions' bytes on S3 ({@code before} null). A store whose content
     * grew gives back nothing and says by how much it grew, never a figure clamped to zero; growth
     * of the index and journal, which record the removals, is said apart.
     */
    static String report(@Nullable Measure before, @Nullable Measure after, long deletedVersionBytes) {
        if (before == null || after == null) {
            return "Space given back: " + exact(deletedVersionBytes) + " (the deleted versions' sizes; the bucket "
                    + "frees each deleted version).";
        }
        long freed = before.content() - after.content();
        String files = "content, pack and manifest files: " + exact(before.content()) + " before, "
                + exact(after.content()) + " after";
        String head = freed > 0
                ? "Space given back: " + exact(freed) + " (" + files
                        + (freed < deletedVersionBytes
                                ? "; contents also held by kept versions, or by pack files still in use, stay"
                                : "")
                        + ")"
                : freed == 0
                        ? "Space given back: none (" + files
                                + (deletedVersionBytes > 0
                                        ? "; contents also held by kept versions, or by pack files still in use, stay"
                                        : "")
                                + ")"
                        : "Space given back: none; the content, pack and manifest files grew by " + exact(-freed) + " ("
                                + files + ")";
        long grown = after.bookkeeping() - before.bookkeeping();
        return head
                + (grown > 0
                        ? "; the index and journal, which record the removals, grew by " + exact(grown)
                        : grown < 0 ? "; the index and journal shrank by " + exact(-grown) : "")
                + ".";
    }

    /**
     * {@code 152.8 MiB (160,200,000 bytes)}, in the unit that shows it ({@code 33.3 KiB (34,071 bytes)}, not
     * {@code 0.0 MiB}: a README-only newcomer read that as nothing); bytes alone below 1 KiB.
     */
    static String exact(long bytes) {
        return bytes < 1024
                ? Summary.size(bytes)
                : Summary.size(bytes) + " (" + String.format(java.util.Locale.ROOT, "%,d", bytes) + " bytes)";
    }
}
