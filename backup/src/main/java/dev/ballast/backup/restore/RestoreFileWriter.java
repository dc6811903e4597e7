package dev.ballast.backup.restore;

import dev.ballast.backup.Cancellation;
import dev.ballast.backup.ProgressCounter;
import dev.ballast.backup.content.PackedContent;
import dev.ballast.backup.content.Sha256;
import dev.ballast.backup.restore.RestoreRunner.StoreReadFailure;
import dev.ballast.backup.snapshot.DamagedVersions;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.backup.tree.Attributes;
import dev.ballast.backup.tree.OpenFileAttributes;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ReadOptions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Writes one file of a restore: fetches its bytes (a stored object, or the chunks of a packed entry)
 * into a short temporary name of the run next to its destination, verified against the manifest
 * ({@link #write}), then syncs it where the run syncs each file, gives it its attributes and renames it
 * into place ({@link #finish}). Runs of 64 KiB of zeros are not written, so a sparse file comes back
 * sparse. {@link #write} removes its temporary file when it fails, and {@link #finish} when the run is
 * cancelled, the sync fails, or the attributes or the rename fail with an I/O error. In the hidden
 * directory a new target's tree is written into ({@link RestoreStaging}), each file is created under
 * its own name instead and not renamed: nothing is at the target's path until the whole directory is.
 *
 * <p>Called by {@link RestoreRunner}, which makes one per run once the target, its ownership and its
 * durability are known, and calls {@link #write} on its transfer threads and {@link #finish} there or
 * on a sync thread. Thread-safe: its fields are final and set before any file is written; each call
 * works on its own file (and a copy buffer of its thread's own).
 */
final class RestoreFileWriter {
    private static final int BUFFER_BYTES = 1024 * 1024;
    private static final int SPARSE_BLOCK = 64 * 1024;
    private static final byte[] ZEROS = new byte[SPARSE_BLOCK];
    /** A new file, never one that exists (O_CREAT | O_EXCL, which also refuses a symbolic link). */
    private static final Set<StandardOpenOption> CREATE_NEW_FOR_WRITING =
            EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    /** One copy buffer per transfer thread: a fresh 1 MiB array per file would be zeroed and collected 20,000 times for 20,000 small files. */
    private static final ThreadLocal<byte[]> BUFFERS = ThreadLocal.withInitial(() -> new byte[BUFFER_BYTES]);

    private final ObjectStore store;
    private final Manifest manifest;
    private final DamagedVersions damaged;
    /** Where the content of packed entries is read from (format 3), or null. */
    private final @Nullable PackedContent packed;

    private final RestoreTemporaries temporaries;
    /** How this run's writes reach the disk. */
    private final RestoreDurability durability;
    /** Whether owners are restored: only a process running as root may give files away. */
    private final boolean ownership;

    private final Cancellation cancellation;

    /**
     * Whether each file is created under its own name and not renamed: the run writes into a hidden
     * directory that is renamed to the target once everything in it is complete ({@link RestoreStaging}).
     */
    private final boolean finalNames;

    /** The target's directories as the restore prepared them: no file is created in one replaced since. */
    private final DirectoryIdentities directories;

    RestoreFileWriter(
            ObjectStore store,
            Manifest manifest,
            DamagedVersions damaged,
            @Nullable PackedContent packed,
            RestoreTemporaries temporaries,
            RestoreDurability durability,
            boolean ownership,
            Cancellation cancellation,
            DirectoryIdentities directories,
            boolean finalNames) {
        this.directories = directories;
        this.finalNames = finalNames;
        this.store = store;
        this.manifest = manifest;
        this.damaged = damaged;
        this.packed = packed;
        this.temporaries = temporaries;
        this.durability = durability;
        this.ownership = ownership;
        this.cancellation = cancellation;
    }

    /**
     * A file written and verified under its temporary name, its channel still open for the sync, and
     * its directory leased ({@link DirectoryIdentities#lease}) until {@link #finish} or {@link #discard}.
     */
    record Written(
            Path tmp,
            Path dest,
            ManifestEntry entry,
            FileChannel channel,
            boolean degraded,
            DirectoryIdentities.Lease lease) {
        /** The directory held open, to rename and remove through; null: named by path. */
        @Nullable
        SecureDirectoryStream<Path> dir() {
            return lease.stream();
        }

        public void discard() {
            try (lease) {
                channel.close();
                deleteTemporary(dir(), tmp);
            } catch (IOException ignored) {
                // the temporary name is unique; nothing else refers to it
            }
        }
    }

    /**
     * Fetches one file into a temporary file next to its destination, verified; not yet synced. A
     * directory in its place is looked for only where something stood when the run began (a directory
     * that appears meanwhile makes the rename fail, and {@link #finish} says so the same way).
     */
    Written write(ManifestEntry e, Path dest, boolean occupiedAtStart, ProgressCounter progress) throws IOException {
        if (occupiedAtStart && Files.isDirectory(dest, LinkOption.NOFOLLOW_LINKS)) {
            throw directoryInTheWay();
        }
        if (e.packed()) {
            return writePacked(e, dest, progress);
        }
        String key = manifest.objectKeyOf(e.path());
        return intoTemporary(dest, temporary -> {
            try (ObjectRead read = store.get(key, ReadOptions.version(damaged.versionToRead(e)));
                    InputStream in = read.stream()) {
                String recorded = read.version().sha256();
                if (read.version().size() != e.size()) {
                    throw new IntegrityException(
                            key,
                            "'" + e.path() + "' is stored with "
                                    + read.version().size() + " bytes but " + "the manifest records " + e.size()
                                    + "; it was not written");
                }
                // The store verifies the bytes against the SHA-256 it recorded as they stream; a version
                // without one (written by another program) is hashed here instead.
                MessageDigest digest = recorded.isEmpty() ? Sha256.newDigest() : null;
                if (!recorded.isEmpty() && !recorded.equals(e.sha256())) {
                    throw new IntegrityException(
                            key,
                            "'" + e.path() + "' is stored with SHA-256 " + recorded + " but the manifest" + " records "
                                    + e.sha256() + "; it was not written");
                }
                FileChannel out = temporary.create();
                copySparse(in, out, digest, progress);
                if (digest != null && !HexFormat.of().formatHex(digest.digest()).equals(e.sha256())) {
                    throw new IntegrityException(
                            key,
                            "'" + e.path() + "' does not match the SHA-256 the manifest records (" + e.sha256()
                                    + "); it was not written");
                }
                return new Written(temporary.path(), dest, e, out, read.degraded(), temporary.lease());
            }
        });
    }

    /** Writes an entry of format 3 from its chunks into a temporary file next to its destination, verified. */
    private Written writePacked(ManifestEntry e, Path dest, ProgressCounter progress) throws IOException {
        if (packed == null) {
            throw new IllegalStateException("'" + e.path() + "' is stored as chunks but no repository was given");
        }
        return intoTemporary(dest, temporary -> {
            FileChannel out = temporary.create();
            // Each chunk is checked against its ID before it is handed here, and written at its place.
            PackedRestore.check(
                    e, PackedRestore.write(packed, e, out, progress, cancellation::cancelled, Interrupted::new));
            return new Written(temporary.path(), dest, e, out, false, temporary.lease());
        });
    }

    /** The temporary file a {@link Filling} writes one file into, created when it asks for it. */
    private final class Temporary {
        private final Path dest;
        private @Nullable Path path;
        private @Nullable FileChannel channel;
        /** The destination's directory, leased by {@link #create}. */
        private DirectoryIdentities.@Nullable Lease lease;

        Temporary(Path dest) {
            this.dest = dest;
        }

        /**
         * Creates the file under a short temporary name of this run next to the destination (every name
         * the file system allowed at backup fits), through the directory's descriptor where it is held
         * open, and opens it for writing.
         */
        FileChannel create() throws IOException {
            lease = directories.lease(dest.getParent());
            SecureDirectoryStream<Path> in = lease.stream();
            channel = finalNames ? createAt(in, dest) : temporaries.create(dest, t -> createAt(in, t));
            return channel;
        }

        /** Creates and opens {@code t}, through {@code in} where the directory is held open. */
        private FileChannel createAt(@Nullable SecureDirectoryStream<Path> in, Path t) throws IOException {
            FileChannel c = in == null
                    ? FileChannel.open(t, CREATE_NEW_FOR_WRITING)
                    : (FileChannel) in.newByteChannel(t.getFileName(), CREATE_NEW_FOR_WRITING);
            path = t;
            return c;
        }

        /** The file {@link #create} made. */
        Path path() {
            return Objects.requireNonNull(path, "no temporary file was created");
        }

        /** The lease {@link #create} took on the directory; the {@link Written} made of this file holds it on. */
        DirectoryIdentities.Lease lease() {
            return Objects.requireNonNull(lease, "no temporary file was created");
        }

        /** Closes and deletes the file, if it was created, and gives its directory back. */
        void remove() throws IOException {
            try {
                if (channel != null) {
                    channel.close();
                }
                if (path != null) {
                    deleteTemporary(lease == null ? null : lease.stream(), path);
                }
            } finally {
                if (lease != null) {
                    lease.close();
                }
            }
        }
    }

    /** Writes one file into a {@link Temporary}, creating it once it is known what to write. */
    @FunctionalInterface
    private interface Filling {
        Written fill(Temporary temporary) throws IOException;
    }

    /**
     * Runs {@code fill}, which writes one file into a temporary file next to {@code dest}; when it fails
     * (once what it opened is closed), the temporary file, if it made one, is closed and deleted.
     */
    private Written intoTemporary(Path dest, Filling fill) throws IOException {
        Temporary temporary = new Temporary(dest);
        try {
            return fill.fill(temporary);
        } catch (IOException | RuntimeException | Error ex) {
            temporary.remove();
            throw ex;
        }
    }

    /** Syncs a written file (unless the run syncs at its end), sets its modification time and renames it into place. */
    void finish(Written w) throws IOException {
        try (DirectoryIdentities.Lease given = w.lease()) {
            finishLeased(w);
        }
    }

    private void finishLeased(Written w) throws IOException {
        boolean applied;
        try (FileChannel out = w.channel()) {
            if (cancellation.cancelled()) {
                throw new Interrupted();
            }
            if (durability.syncBeforeRename(w.entry().size())) {
                out.force(false);
            }
            // Through the descriptor where the JVM allows it: three system calls, no path looked up.
            applied = OpenFileAttributes.apply(out, w.entry().attrs(), w.entry().mtime(), ownership);
        } catch (IOException | RuntimeException | Error ex) {
            deleteTemporary(w.dir(), w.tmp());
            throw ex;
        }
        try {
            if (w.dir() != null) {
                if (!applied) {
                    // by path, the JVM keeping the file's descriptor from us: through the directory's where it
                    // can be named, else after a check as below
                    Path tmp = w.lease().resolve(w.tmp());
                    if (tmp.equals(w.tmp())) {
                        directories.check(w.dest().getParent());
                    }
                    Attributes.applyToOwnFile(tmp, w.entry().attrs(), w.entry().mtime(), ownership);
                }
                if (!finalNames) {
                    // renameat(2) within the directory held open: replaces what stands there, as rename(2) does
                    w.dir().move(w.tmp().getFileName(), w.dir(), w.dest().getFileName());
                }
                return;
            }
            directories.check(w.dest().getParent());
            if (!applied) {
                Attributes.applyToOwnFile(w.tmp(), w.entry().attrs(), w.entry().mtime(), ownership);
            }
            if (finalNames) {
                return;
            }
            try {
                Files.move(w.tmp(), w.dest(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException ex) {
                Files.move(w.tmp(), w.dest(), StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (DirectoryIdentities.DirectoryReplacedException ex) {
            throw ex; // its temporary file is in the directory as it was, wherever that is now
        } catch (IOException ex) {
            deleteTemporary(w.dir(), w.tmp());
            if (Files.isDirectory(w.dest(), LinkOption.NOFOLLOW_LINKS)) {
                throw directoryInTheWay(); // one appeared after the run began (rename(2) refuses it)
            }
            throw ex;
        }
    }

    /** Removes a temporary file, through its directory's descriptor when it is held open; absent is fine. */
    private static void deleteTemporary(@Nullable SecureDirectoryStream<Path> dir, Path tmp) throws IOException {
        if (dir == null) {
            Files.deleteIfExists(tmp);
            return;
        }
        try {
            dir.deleteFile(tmp.getFileName());
        } catch (NoSuchFileException gone) {
            // removed already
        }
    }

    /** Copies to the end, leaving 64 KiB blocks of zeros unwritten, and extends the file to its length. */
    private void copySparse(InputStream in, FileChannel out, @Nullable MessageDigest digest, ProgressCounter progress)
            throws IOException {
        byte[] buffer = BUFFERS.get();
        long position = 0;
        while (true) {
            int n;
            try {
                n = in.readNBytes(buffer, 0, buffer.length);
            } catch (IOException ex) {
                throw new StoreReadFailure(ex);
            }
            if (n == 0) {
                break;
            }
            if (digest != null) {
                digest.update(buffer, 0, n);
            }
            for (int block = 0; block < n; block += SPARSE_BLOCK) {
                int len = Math.min(SPARSE_BLOCK, n - block);
                if (Arrays.mismatch(buffer, block, block + len, ZEROS, 0, len) != -1) {
                    ByteBuffer bb = ByteBuffer.wrap(buffer, block, len);
                    long at = position + block;
                    while (bb.hasRemaining()) {
                        at += out.write(bb, at);
                    }
                }
            }
            position += n;
            progress.addBytes(n);
            // Ctrl-C stops a large file at once: the process may not outlive the shutdown hook's wait,
            // and a temporary file must not be left behind in the target.
            if (cancellation.cancelled()) {
                throw new Interrupted();
            }
        }
        if (out.size() < position) {
            out.write(ByteBuffer.wrap(new byte[1]), position - 1);
        }
    }

    /** Replacing a whole directory tree is more than --overwrite promises; says what is in the way. */
    private static TypeInTheWay directoryInTheWay() {
        return new TypeInTheWay("a directory stands where the backup has this file; remove the directory "
                + "(or restore into an empty one) and run the restore again");
    }

    /** An entry of another kind (a directory where a file goes, a file where a directory goes) in the target. */
    static final class TypeInTheWay extends IOException {
        public TypeInTheWay(String message) {
            super(message);
        }
    }

    /** Cancellation noticed while a file's bytes were being written. */
    static final class Interrupted extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public Interrupted() {
            super("interrupted", null, false, false);
        }
    }
}
