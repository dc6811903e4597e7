package dev.ballast.backup.restore;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The identity (device and inode, the JDK's file key) of each directory a restore prepared, taken
 * as the restore made or found it, so that a directory replaced while the restore runs is never
 * written through. Someone who may write in the target could otherwise move a directory the restore
 * made and put a symbolic link to any other directory in its place, and every later file of it would
 * be written there (as root, with the backup's owners and modes; a tester's script wrote 3,000
 * files outside the target so).
 *
 * <p>Everything a restore makes in a directory is made through the directory's descriptor where the
 * platform allows it ({@link #lease}: a {@link SecureDirectoryStream}, {@code openat(2)},
 * {@code renameat(2)} and {@code unlinkat(2)} on Linux; for the links, owners, modes and times the JDK
 * sets only by path, {@code /proc/self/fd/N/NAME}, which the kernel resolves through the descriptor):
 * the directory is opened, its identity compared with the one recorded, and a swap at any later
 * moment changes nothing, while no file costs a look-up of its directory's path. A directory is held
 * open while any of its files is being written and after, up to {@link #maxOpen()} of them; past that
 * the one idle the longest is closed, and opened (and compared) again when a later file needs it.
 * Where the platform has no such stream, or the directory cannot be opened for reading, each call is
 * preceded by a {@link #check}, one {@code stat} of the directory by path, which leaves a swap between
 * the check and the call possible.
 *
 * <p>Thread-safe: the identities are fixed at construction; {@link #lease} may be called from any
 * number of threads, each lease closed once, and {@link #close} once they are done.
 */
final class DirectoryIdentities implements AutoCloseable {
    /**
     * Directories held open at once, at most: two descriptors each (the JDK keeps the directory's
     * stream and a duplicate of its descriptor), and fewer where the process may open few files
     * ({@link #maxOpen()}).
     */
    static final int MAX_OPEN = 128;

    private final Map<Path, Object> keys = new HashMap<>();
    private final int maxOpen;

    /** Directories opened, replaced or not to be opened; guarded by {@code this}. */
    private final Map<Path, Held> held = new HashMap<>();
    /** Of {@link #held}, those open with no lease, the one idle the longest first; guarded by {@code this}. */
    private final LinkedHashMap<Path, Held> idle = new LinkedHashMap<>();
    /** Streams open; guarded by {@code this}. */
    private int open;

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
    DirectoryIdentities(Map<Path, Object> identities) {
        this.maxOpen = maxOpen();
        keys.putAll(identities);
    }

    /**
     * {@link #MAX_OPEN}, or an eighth of the files the process may open ({@code RLIMIT_NOFILE}, as
     * {@code /proc/self/limits} gives it) when that is fewer, and at least 1: the rest are for the files
     * being written, the store's connections and the JVM's own (with a limit of 300, a restore of 1,500
     * directories that held 512 open failed thousands of files with "Too many open files").
     */
    static int maxOpen() {
        return maxOpen(dev.ballast.backup.OpenFileLimit.limit(dev.ballast.backup.OpenFileLimit.LIMITS));
    }

    /** {@link #maxOpen()} under a limit of {@code limit} open files (negative: unknown or unlimited). */
    static int maxOpen(long limit) {
        return limit < 0 ? MAX_OPEN : (int) Math.max(1, Math.min(MAX_OPEN, limit / 8));
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
     * {@code dir}, held by its descriptor until the lease is closed: opened at the first lease (or
     * again after it was closed for room) and its identity compared with the one recorded then. A lease
     * without a stream ({@link Lease#stream()} null: no identity was recorded, the platform has no
     * {@link SecureDirectoryStream}, the directory cannot be opened for reading) comes after a
     * {@link #check}, and its caller names the directory's entries by path.
     *
     * @throws DirectoryReplacedException when what stands at {@code dir} is not the directory the
     *     restore prepared (at its opening, or now for a lease by path)
     */
    Lease lease(Path dir) throws IOException {
        Object was = keys.get(dir);
        if (was == null) {
            return new Lease(dir, null);
        }
        Held h;
        synchronized (this) {
            h = held.get(dir);
            if (h == null || (h.stream == null && h.openable)) {
                h = openHeld(dir, was);
            }
            if (h.stream != null) {
                h.leases++;
                idle.remove(dir);
            }
        }
        if (h.replaced) {
            throw new DirectoryReplacedException(dir);
        }
        if (h.stream == null) {
            check(dir);
            return new Lease(dir, null);
        }
        return new Lease(dir, h);
    }

    /** Opens {@code dir}, first closing the directory idle the longest when {@link #maxOpen} are open. */
    private Held openHeld(Path dir, Object was) {
        if (open >= maxOpen) {
            Iterator<Map.Entry<Path, Held>> oldest = idle.entrySet().iterator();
            if (oldest.hasNext()) {
                Map.Entry<Path, Held> e = oldest.next();
                oldest.remove();
                closeQuietly(e.getValue().stream);
                e.getValue().stream = null; // opened again when a file needs it
                open--;
            }
        }
        Held h = held.computeIfAbsent(dir, d -> new Held());
        if (open >= maxOpen) {
            return h; // every one open is in use: this lease goes by path
        }
        DirectoryStream<Path> ds;
        try {
            ds = Files.newDirectoryStream(dir);
        } catch (IOException e) {
            h.openable = false; // written by path, each call after a check
            return h;
        }
        if (!(ds instanceof SecureDirectoryStream<Path> sds)) {
            closeQuietly(ds);
            h.openable = false;
            return h;
        }
        try {
            Object key = sds.getFileAttributeView(BasicFileAttributeView.class)
                    .readAttributes()
                    .fileKey();
            if (!was.equals(key)) {
                closeQuietly(sds);
                h.replaced = true;
                h.openable = false;
                return h;
            }
        } catch (IOException e) {
            closeQuietly(sds);
            h.openable = false;
            return h;
        }
        h.stream = sds;
        open++;
        return h;
    }

    private synchronized void release(Path dir, Held h) {
        if (--h.leases == 0 && h.stream != null) {
            idle.put(dir, h);
        }
    }

    /**
     * The directories whose path leads elsewhere now (moved away, a link or another directory or a
     * file in their place), whether held open or checked by path: what was written into them is in
     * them, wherever they are, and not where the backup has it. One {@code stat} for each directory.
     */
    Set<Path> movedAway() {
        Set<Path> moved = new HashSet<>();
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

    /** Closes every directory held open; call once no lease is in use any more. */
    @Override
    public synchronized void close() {
        for (Held h : held.values()) {
            closeQuietly(h.stream);
            h.stream = null;
        }
        held.clear();
        idle.clear();
        open = 0;
    }

    private static void closeQuietly(@Nullable DirectoryStream<Path> ds) {
        if (ds == null) {
            return;
        }
        try {
            ds.close();
        } catch (IOException ignored) {
            // a directory opened for reading only: closing it cannot lose anything
        }
    }

    /** One directory's state; guarded by the enclosing instance. */
    private static final class Held {
        @Nullable
        SecureDirectoryStream<Path> stream;

        int leases;
        boolean replaced;
        /** False once it could not be opened (or was replaced): its files go by path. */
        boolean openable = true;
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
     * {@code dir} leased ({@link #lease}) for the calls the JDK makes only by path (links, owners,
     * modes and times): {@link Lease#resolve} then names an entry of it, and {@link Lease#itself} the
     * directory, as {@code /proc/self/fd/N/NAME}. Where the descriptor cannot be named so, after a
     * {@link #check}, and the lease's paths are the plain ones.
     *
     * @throws DirectoryReplacedException when what stands at {@code dir} is not the directory the
     *     restore prepared
     */
    Lease hold(Path dir) throws IOException {
        Lease l = lease(dir);
        if (l.viaDescriptor == null && l.stream() != null) {
            try {
                check(dir);
            } catch (DirectoryReplacedException e) {
                l.close();
                throw e;
            }
        }
        return l;
    }

    /** A directory {@link #lease}d: held open by its descriptor until {@link #close}, or named by path. */
    final class Lease implements AutoCloseable {
        private final Path dir;
        private final @Nullable Held held;
        private final @Nullable SecureDirectoryStream<Path> stream;
        private final @Nullable Path viaDescriptor;
        private boolean closed;

        private Lease(Path dir, @Nullable Held held) {
            this.dir = dir;
            this.held = held;
            this.stream = held == null ? null : held.stream;
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

        /** The directory's stream, to create, rename and remove its entries through; null: by path. */
        @Nullable
        SecureDirectoryStream<Path> stream() {
            return stream;
        }

        /** {@code entry} (a path in the leased directory) as reached through its descriptor, or as it is. */
        Path resolve(Path entry) {
            return viaDescriptor == null ? entry : viaDescriptor.resolve(entry.getFileName());
        }

        /** The leased directory itself, through its descriptor, or by its path. */
        Path itself() {
            return viaDescriptor == null ? dir : viaDescriptor.resolve(".");
        }

        /** Gives the directory back: it stays open for later files while there is room. Idempotent. */
        @Override
        public void close() {
            synchronized (DirectoryIdentities.this) {
                if (closed || held == null) {
                    closed = true;
                    return;
                }
                closed = true;
            }
            release(dir, held);
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
