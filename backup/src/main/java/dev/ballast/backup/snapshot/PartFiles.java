package dev.ballast.backup.snapshot;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * A local cache of a repository's manifest parts ({@link ManifestParts}), as restic keeps its snapshots
 * and index in {@code ~/.cache/restic}: one file per part, {@code DIR/<part ID>}, holding the ETag of
 * the stored version it was copied from, a newline, and the part's <b>sealed</b> bytes exactly as the
 * store holds them (so the cache reveals no more than the bucket does). A part is named by the keyed
 * hash of its plain bytes and never changes, so a copy never goes out of date; it can only be damaged
 * or removed. {@link SealedStore} therefore opens every copy with the master key and checks it against
 * its ID before using it, exactly as it checks a part read from the store, and reads the store instead
 * when the copy is missing, damaged or unreadable (removing the copy). Nothing read here is ever
 * handed on unchecked.
 *
 * <p>The cache never fails a command: a directory that cannot be created or written (read-only home,
 * full disk) turns writing off for the rest of the command, logged once at DEBUG, and every read
 * that fails reads as a miss. Files are written to a temporary name and moved into place, so a reader
 * sees a whole copy or none; two processes writing the same part write the same bytes.
 *
 * <p>Thread-safe.
 */
public final class PartFiles {
    private static final System.Logger LOG = System.getLogger(PartFiles.class.getName());

    /**
     * The largest copy read or written, 64 MiB: a part is cut at about 64 KiB but holds at least one whole
     * entry, and a file of a million chunks makes an entry of about 70 MB; a larger part is read from the
     * store each time. A copy above it (damaged, or a sparse file put there) is a miss, never a read that
     * exhausts the heap.
     */
    static final long MAX_COPY_BYTES = 64L << 20;

    private final Path dir;
    private final boolean readable;
    private volatile boolean writable = true;

    /**
     * A cache in {@code dir} (created at the first write). The CLI uses
     * {@code $XDG_CACHE_HOME/ballast/repositories/<repository ID>/manifest-parts}, by default under
     * {@code ~/.cache/ballast}.
     */
    public PartFiles(Path dir) {
        this(dir.toAbsolutePath(), true);
    }

    private PartFiles(Path dir, boolean readable) {
        this.dir = dir;
        this.readable = readable;
    }

    /**
     * This cache with every read a miss, for {@code verify}, which checks what the store holds: copies of
     * the parts it reads intact are still kept, and the copy of a part it finds missing or damaged in the
     * store is removed, so that no later backup on this machine reuses that part on the strength of its
     * copy.
     */
    public PartFiles storeOnly() {
        return new PartFiles(dir, false);
    }

    /** The directory the copies are in. */
    public Path directory() {
        return dir;
    }

    /**
     * A copy of a stored part.
     *
     * @param eTag the ETag of the stored version it was copied from, as the store reported it
     * @param sealed the stored (sealed) bytes, unchecked
     */
    record Copy(String eTag, byte[] sealed) {}

    /**
     * The copy of part {@code id}, or null when there is none or it cannot be read (unchecked: see the class
     * comment). Only a regular file (not followed through a link) of at most {@link #MAX_COPY_BYTES} is
     * read, so a FIFO, a device or a huge sparse file at a part's name is a miss, not a hang or an
     * exhausted heap; such an entry is removed.
     */
    @Nullable
    Copy read(String id) {
        if (!readable || !ManifestParts.isId(id)) {
            return null;
        }
        Path file = dir.resolve(id);
        byte[] bytes;
        try {
            BasicFileAttributes attrs =
                    Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!attrs.isRegularFile() || attrs.size() > MAX_COPY_BYTES) {
                remove(id);
                return null;
            }
            try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
                bytes = in.readNBytes((int) MAX_COPY_BYTES + 1);
            }
            if (bytes.length > MAX_COPY_BYTES) {
                remove(id); // grew past the limit while read
                return null;
            }
        } catch (IOException | RuntimeException e) {
            return null;
        }
        int nl = -1;
        for (int i = 0; i < Math.min(bytes.length, 1024); i++) {
            if (bytes[i] == '\n') {
                nl = i;
                break;
            }
        }
        if (nl <= 0) {
            return null;
        }
        return new Copy(
                new String(bytes, 0, nl, StandardCharsets.UTF_8), Arrays.copyOfRange(bytes, nl + 1, bytes.length));
    }

    /** Keeps a copy of part {@code id}; never throws (see the class comment). */
    void write(String id, @Nullable String eTag, byte[] sealed) {
        if (!writable
                || eTag == null
                || eTag.isEmpty()
                || eTag.indexOf('\n') >= 0
                || !ManifestParts.isId(id)
                || sealed.length > MAX_COPY_BYTES) {
            return;
        }
        Path tmp = null;
        try {
            Files.createDirectories(dir);
            tmp = Files.createTempFile(dir, ".part-", ".tmp");
            byte[] head = (eTag + "\n").getBytes(StandardCharsets.UTF_8);
            try (var out = Files.newOutputStream(tmp)) {
                out.write(head);
                out.write(sealed);
            }
            try {
                Files.move(tmp, dir.resolve(id), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, dir.resolve(id), StandardCopyOption.REPLACE_EXISTING);
            }
            tmp = null;
        } catch (IOException | RuntimeException e) {
            writable = false;
            LOG.log(
                    System.Logger.Level.DEBUG,
                    "Manifest parts are not kept in {0} for the rest of this command: {1}",
                    dir,
                    e);
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException | RuntimeException ignored) {
                    // left behind: a later write replaces nothing with it, and it is not a part's name
                }
            }
        }
    }

    /**
     * Removes every copy of a part not in {@code stored} (the IDs a complete listing of the store's parts
     * showed: the others were pruned, here or on another machine), so the cache does not outgrow the
     * repository; never throws. A copy a concurrent command made after that listing may go too: it is
     * then read from the store again, nothing more.
     */
    void retainOnly(java.util.Set<String> stored) {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (var files = Files.list(dir)) {
            files.filter(f -> {
                        String name = f.getFileName().toString();
                        return ManifestParts.isId(name) && !stored.contains(name);
                    })
                    .forEach(f -> {
                        try {
                            Files.deleteIfExists(f);
                        } catch (IOException | RuntimeException ignored) {
                            // tried again at the next backup
                        }
                    });
        } catch (IOException | RuntimeException ignored) {
            // tried again at the next backup
        }
    }

    /** Removes the copy of part {@code id} (damaged, or its part deleted from the store); never throws. */
    void remove(String id) {
        if (!ManifestParts.isId(id)) {
            return;
        }
        try {
            Files.deleteIfExists(dir.resolve(id));
        } catch (IOException | RuntimeException ignored) {
            // a damaged copy that stays is checked and passed over again next time
        }
    }
}
