package dev.ballast.backup.restore;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The identity (device and inode, the JDK's file key) of each directory a restore prepared, taken
 * as the restore made or found it, so that a directory replaced while the restore runs is never
 * written through. Someone who may write in the target could otherwise move a directory the restore
 * made and put a symbolic link to any other directory in its place, and every later file of it would
 * be written there (as root, with the backup's owners and modes; a tester's script wrote 3,000
 * files outside the target so).
 *
 * <p>A file is written through its directory's descriptor where the platform allows it
 * ({@link #open}: a {@link SecureDirectoryStream}, {@code openat(2)} and {@code renameat(2)} on Linux):
 * the directory is opened once, its identity compared with the one recorded, and every file of it
 * is then created, renamed and removed relative to that descriptor, so a swap at any later moment
 * changes nothing, and no file costs a look-up of its directory's path. Elsewhere, or past
 * {@link #maxOpen()} directories, each file's write and rename are preceded by a {@link #check}, one
 * {@code stat} of the directory by path, which leaves a swap between the check and the write possible.
 *
 * <p>Thread-safe: the identities are fixed at construction; {@link #open} may be called from any
 * number of threads, and {@link #close} once they are done.
 */
final class DirectoryIdentities implements AutoCloseable {
    /**
     * Directories held open at once, at most: two descriptors each (the JDK keeps the directory's
     * stream and a duplicate of its descriptor), and fewer where the process may open few files
     * ({@link #maxOpen()}).
     */
    static final int MAX_OPEN = 128;

    private final Map<Path, Object> keys = new HashMap<>();
    private final Map<Path, Opened> opened = new ConcurrentHashMap<>();
    private final AtomicInteger openCount = new AtomicInteger();
    private final int maxOpen;

    /** Takes the identity of each of {@code dirs} that can be looked at and has a file key. */
    DirectoryIdentities(Iterable<Path> dirs) {
        this(dirs, maxOpen());
    }

    /** As {@link #DirectoryIdentities(Iterable)}, holding at most {@code maxOpen} directories open. */
    DirectoryIdentities(Iterable<Path> dirs, int maxOpen) {
        this.maxOpen = maxOpen;
        for (Path dir : dirs) {
            Object key = keyOf(dir);
            if (key != null) {
                keys.put(dir, key);
            }
        }
    }

    /**
     * Holds each directory to the identity given for it: taken as {@link RestoreDirectories} created or
     * found it. Taken here, after every directory was made, a directory swapped for a link to another
     * one meanwhile had that one's identity recorded, and the restore wrote through it (a tester's run:
     * 100 files outside the target overwritten, the restore exit 1 naming only the directory).
     */
    DirectoryIdentities(java.util.Map<Path, Object> identities) {
        this.maxOpen = maxOpen();
        keys.putAll(identities);
    }

    /**
     * {@link #MAX_OPEN}, or an eighth of the files the process may open ({@code RLIMIT_NOFILE}, as
     * {@code /proc/self/limits} gives it) when that is fewer: the rest are for the files being written,
     * the store's connections and the JVM's own (with a limit of 300, a restore of 1,500 directories
     * that held 512 open failed thousands of files with "Too many open files").
     */
    static int maxOpen() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
                if (line.startsWith("Max open files")) {
                    String soft =
                            line.substring("Max open files".length()).trim().split("\\s+")[0];
                    if (!soft.equals("unlimited")) {
                        return (int) Math.min(MAX_OPEN, Long.parseLong(soft) / 8);
                    }
                }
            }
        } catch (IOException | RuntimeException notLinux) {
            // no such file: the platform's limits are not known here
        }
        return MAX_OPEN;
    }

    private static @Nullable Object keyOf(Path dir) {
        try {
            return Files.readAttributes(dir, BasicFileAttributes.class).fileKey();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Checks that {@code dir} is still the directory it was when the restore prepared it.
     *
     * @throws DirectoryReplacedException when something else stands there now (a symbolic link to
     *     another directory, another directory, nothing)
     */
    void check(Path dir) throws DirectoryReplacedException {
        Object was = keys.get(dir);
        if (was != null && !was.equals(keyOf(dir))) {
            throw new DirectoryReplacedException(dir);
        }
    }

    /**
     * {@code dir} opened for writing relative to its descriptor, or null, after a {@link #check},
     * where that is not possible (no identity was recorded for it, the platform has no
     * {@link SecureDirectoryStream}, the directory cannot be opened for reading, or {@link #maxOpen()}
     * directories are open): the caller then names its files by path. Opened at the first call,
     * checked against the recorded identity then, and kept until {@link #close}.
     *
     * @throws DirectoryReplacedException when what stands at {@code dir} is not the directory the
     *     restore prepared (at the first call, or now when it is not held open)
     */
    @Nullable
    SecureDirectoryStream<Path> open(Path dir) throws IOException {
        Object was = keys.get(dir);
        if (was == null) {
            return null;
        }
        Opened o = opened.get(dir);
        if (o == null) {
            if (openCount.get() >= maxOpen) {
                check(dir);
                return null;
            }
            o = opened.computeIfAbsent(dir, d -> Opened.of(d, was, openCount, maxOpen));
        }
        if (o.replaced) {
            throw new DirectoryReplacedException(dir);
        }
        if (o.stream == null) {
            check(dir);
        }
        return o.stream;
    }

    /** {@code UnixSecureDirectoryStream.dfd}, where the JVM lets it be read and {@code /proc/self/fd} exists; else null. */
    private static final java.lang.reflect.@Nullable Field DESCRIPTOR = descriptorField();

    private static java.lang.reflect.@Nullable Field descriptorField() {
        try {
            if (!Files.isDirectory(Path.of("/proc/self/fd"))) {
                return null;
            }
            java.lang.reflect.Field f =
                    Class.forName("sun.nio.fs.UnixSecureDirectoryStream").getDeclaredField("dfd");
            f.setAccessible(true); // java.base/sun.nio.fs opened to this module, as the ballast launcher does
            return f;
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null;
        }
    }

    /**
     * {@code dir}, checked against its recorded identity and held by a descriptor for the calls the JDK
     * makes only by path (links, owners, modes and times): {@link Held#resolve} names an entry of it, and
     * {@link Held#itself} the directory, as {@code /proc/self/fd/N/NAME}, which the kernel resolves
     * through the descriptor whatever stands at {@code dir}'s path by then. Where that cannot be (no
     * identity recorded, no {@code /proc}, the descriptor out of the JVM's reach, the directory not
     * readable), after a {@link #check}, and the held paths are the plain ones. A directory held open
     * for its files is used as it is; another is opened and closed with the returned {@link Held}.
     *
     * @throws DirectoryReplacedException when what stands at {@code dir} is not the directory the
     *     restore prepared
     */
    Held hold(Path dir) throws IOException {
        Object was = keys.get(dir);
        if (was == null || DESCRIPTOR == null) {
            check(dir);
            return new Held(null, false);
        }
        Opened o = opened.get(dir);
        boolean fresh = o == null;
        if (fresh) {
            o = Opened.tryOpen(dir, was);
        }
        if (o.replaced) {
            throw new DirectoryReplacedException(dir);
        }
        Held held = new Held(o.stream, fresh);
        if (held.viaDescriptor == null) {
            try {
                check(dir);
            } catch (DirectoryReplacedException e) {
                held.close();
                throw e;
            }
        }
        return held;
    }

    /** A directory {@link #hold} checked and holds by a descriptor (none: named by its path). */
    static final class Held implements AutoCloseable {
        private final @Nullable SecureDirectoryStream<Path> stream;
        private final @Nullable Path viaDescriptor;
        private final boolean owned;

        Held(@Nullable SecureDirectoryStream<Path> stream, boolean owned) {
            this.stream = stream;
            this.owned = owned;
            Path via = null;
            if (stream != null && DESCRIPTOR != null) {
                try {
                    via = Path.of("/proc/self/fd", Integer.toString(DESCRIPTOR.getInt(stream)));
                } catch (IllegalAccessException | RuntimeException e) {
                    via = null;
                }
            }
            this.viaDescriptor = via;
        }

        /** {@code entry} (a path in the held directory) as reached through its descriptor, or as it is. */
        Path resolve(Path entry) {
            return viaDescriptor == null ? entry : viaDescriptor.resolve(entry.getFileName());
        }

        /** The held directory {@code dir} itself, through its descriptor, or {@code dir} as it is. */
        Path itself(Path dir) {
            return viaDescriptor == null ? dir : viaDescriptor.resolve(".");
        }

        @Override
        public void close() {
            if (owned && stream != null) {
                Opened.closeQuietly(stream);
            }
        }
    }

    /**
     * The directories whose path leads elsewhere now (moved away, a link or another directory or a
     * file in their place), whether held open or checked by path: files written into them are in them,
     * wherever they are, and not where the backup has them. One {@code stat} for each directory.
     */
    java.util.Set<Path> movedAway() {
        java.util.Set<Path> moved = new java.util.HashSet<>();
        keys.forEach((dir, was) -> {
            if (!was.equals(keyOf(dir))) {
                moved.add(dir);
            }
        });
        return moved;
    }

    /** Whether {@code dir} is still the directory the restore prepared (or none was recorded for it). */
    boolean unchanged(Path dir) {
        Object was = keys.get(dir);
        return was == null || was.equals(keyOf(dir));
    }

    /** Closes the directories {@link #open} opened; call once no file is written through them any more. */
    @Override
    public void close() {
        for (Opened o : opened.values()) {
            if (o.stream != null) {
                try {
                    o.stream.close();
                } catch (IOException ignored) {
                    // a directory opened for reading only: closing it cannot lose anything
                }
            }
        }
        opened.clear();
    }

    /** What opening one directory gave: its stream, or that it was replaced, or neither (it could not be opened). */
    private record Opened(@Nullable SecureDirectoryStream<Path> stream, boolean replaced) {
        static Opened of(Path dir, Object was, AtomicInteger openCount, int maxOpen) {
            if (openCount.incrementAndGet() > maxOpen) {
                openCount.decrementAndGet();
                return new Opened(null, false); // written by path, each file after a check
            }
            Opened o = tryOpen(dir, was);
            if (o.stream == null) {
                openCount.decrementAndGet();
            }
            return o;
        }

        static Opened tryOpen(Path dir, Object was) {
            DirectoryStream<Path> ds;
            try {
                ds = Files.newDirectoryStream(dir);
            } catch (IOException e) {
                return new Opened(null, false); // written by path, each file after a check
            }
            if (!(ds instanceof SecureDirectoryStream<Path> sds)) {
                closeQuietly(ds);
                return new Opened(null, false);
            }
            try {
                Object key = sds.getFileAttributeView(BasicFileAttributeView.class)
                        .readAttributes()
                        .fileKey();
                if (!was.equals(key)) {
                    closeQuietly(sds);
                    return new Opened(null, true);
                }
            } catch (IOException e) {
                closeQuietly(sds);
                return new Opened(null, false); // written by path, each file after a check
            }
            return new Opened(sds, false);
        }

        static void closeQuietly(DirectoryStream<Path> ds) {
            try {
                ds.close();
            } catch (IOException ignored) {
                // opened for reading only
            }
        }
    }

    /** A directory of the restore was replaced while it ran; nothing was written through it. */
    static final class DirectoryReplacedException extends IOException {
        private static final long serialVersionUID = 1L;

        DirectoryReplacedException(Path dir) {
            super("its directory was replaced while the restore ran (a symbolic link or another directory"
                    + " stands there now), so nothing was written through it");
        }
    }
}
