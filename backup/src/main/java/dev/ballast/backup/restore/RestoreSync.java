package dev.ballast.backup.restore;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Collection;

/**
 * How a restore makes what it wrote durable ({@link RestoreRunner}): once, at its end, before it
 * reports anything restored, instead of one sync per file before its rename. Implementations are
 * thread-safe; {@link RestoreRunner} calls {@link #available} once before it writes and {@link
 * #syncAll} once after the last file, link and directory are in place.
 */
public interface RestoreSync {

    /**
     * Whether {@link #syncAll} can make what a restore writes under {@code target} durable, asked
     * once before anything is written there. When it cannot (no such tool on this system, say),
     * the restore syncs each file before its rename and each directory at its end instead.
     *
     * @param target the existing target directory, its links resolved
     */
    boolean available(Path target);

    /**
     * Makes durable everything written into {@code directories} and the files, links and
     * directories below them that the restore wrote: their bytes, their names and their attributes.
     *
     * @param directories every directory the restore wrote an entry into (none: nothing to do)
     * @throws IOException when it could not: the restore must then not report success
     */
    void syncAll(Collection<Path> directories) throws IOException;

    /**
     * The file systems' sync ({@code syncfs(2)}, through coreutils' {@code sync -f DIR}): one sync
     * for each file system the written directories are on. Whether it is {@link #available} is asked
     * of {@code /proc} where there is one, so the question flushes nothing of the target's file system.
     */
    static RestoreSync fileSystems() {
        return FileSystemSync.syncF();
    }
}
