package dev.ballast.cli;

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
 * is repacked. The local store's figure is the bytes of its content and pack files before the prune minus after it
 * (the repacking included); an S3 bucket frees each deleted version's bytes, so there it is their
 * sum. Sizes are printed in MiB (2^20 bytes) with the exact byte count, as every summary prints them.
 */
final class StoreSpace {
    private StoreSpace() {}

    /**
     * The bytes of every regular file under {@code dir} but the index ({@code index.db} and SQLite's
     * {@code -wal} and {@code -shm} files beside it, which grow and shrink with its journal, not with
     * what is stored), or null when there is no such directory or it cannot be read.
     */
    static @Nullable Long bytesOf(@Nullable Path dir) {
        if (dir == null || !Files.isDirectory(dir)) {
            return null;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            return all.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)
                            && !p.getFileName().toString().startsWith("index.db"))
                    .mapToLong(p -> {
                        try {
                            return Files.size(p);
                        } catch (IOException e) {
                            return 0; // removed meanwhile (a temporary file)
                        }
                    })
                    .sum();
        } catch (IOException | UncheckedIOException e) {
            return null;
        }
    }

    /**
     * The line that says what was given back: measured on the local store ({@code before} and
     * {@code after} its files' bytes), the deleted versions' bytes on S3 ({@code before} null).
     */
    static String report(@Nullable Long before, @Nullable Long after, long deletedVersionBytes) {
        if (before == null || after == null) {
            return "Space given back: " + exact(deletedVersionBytes) + " (the deleted versions' sizes; the bucket "
                    + "frees each deleted version).";
        }
        long freed = Math.max(0, before - after);
        return "Space given back: " + exact(freed) + " (the store's files: " + exact(before) + " before, "
                + exact(after) + " after"
                + (freed < deletedVersionBytes
                        ? "; contents also held by kept versions, or by pack files still in use, stay"
                        : "")
                + ").";
    }

    /** {@code 152.8 MiB (160,200,000 bytes)}. */
    static String exact(long bytes) {
        return Summary.mib(bytes) + " (" + String.format(java.util.Locale.ROOT, "%,d", bytes) + " bytes)";
    }
}
