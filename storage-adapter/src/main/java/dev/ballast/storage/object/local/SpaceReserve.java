package dev.ballast.storage.object.local;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.SplittableRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The space a {@link LocalObjectStore} keeps in reserve so that versions can be removed on a full
 * disk: {@code ROOT/reserve}, {@value #BYTES} bytes, as borg keeps free space in reserve in its
 * repositories ({@code additional_free_space}). Removing versions writes to the index before it frees
 * anything (SQLite's {@code -shm} and write-ahead log must grow first), so on a disk filled to the
 * last byte it could not even begin; a writer opened with {@link LocalStoreConfig#forRemoval()}
 * deletes the reserve file when the index runs out of space and goes on in the space it gave back.
 * Any writer recreates the file when it opens or closes the store and there is room for it.
 *
 * <p>The file holds incompressible bytes, so a file system that compresses (btrfs, ZFS) still
 * allocates its full size. Not thread-safe; the store calls it under its write lock.
 */
final class SpaceReserve {

    /** The reserve file's name in the store's directory. */
    static final String FILE = "reserve";

    /** Its size: room for the index's shared memory and for its write-ahead log up to the removal limit. */
    static final int BYTES = 4 * 1024 * 1024;

    private static final Logger LOG = LoggerFactory.getLogger(SpaceReserve.class);

    private final Path file;

    SpaceReserve(Path root) {
        this.file = root.resolve(FILE);
    }

    /** Whether the reserve file is there, at its full size. */
    boolean present() {
        try {
            return Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) && Files.size(file) >= BYTES;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Creates the reserve file when it is missing and the disk has room for it and as much again
     * (so the reserve is never what fills a disk); a failure only leaves it missing.
     */
    void ensure() {
        if (present()) {
            return;
        }
        try {
            if (Files.getFileStore(file.getParent()).getUsableSpace() < 2L * BYTES) {
                return;
            }
            byte[] bytes = new byte[BYTES];
            new SplittableRandom(0x5eed).nextBytes(bytes);
            try (FileChannel out = FileChannel.open(
                    file,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING,
                    LinkOption.NOFOLLOW_LINKS)) {
                ByteBuffer buffer = ByteBuffer.wrap(bytes);
                while (buffer.hasRemaining()) {
                    out.write(buffer); // not synced: a reserve lost to a power cut is recreated by the next writer
                }
            }
        } catch (IOException | RuntimeException e) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // left for the next writer
            }
            LOG.debug("Could not create the space reserve {}: {}", file, e.toString());
        }
    }

    /**
     * Deletes the reserve file, giving its space to the index.
     *
     * @return whether there was one to delete
     */
    boolean release() {
        try {
            boolean released = Files.deleteIfExists(file);
            if (released) {
                LOG.info(
                        "The disk of {} is full: released its {}-byte space reserve to remove versions",
                        file.getParent(),
                        BYTES);
            }
            return released;
        } catch (IOException e) {
            return false;
        }
    }
}
