package dev.ballast.backup.restore;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * A restore into a directory that does not exist yet: the tree is written into a hidden directory
 * beside it, named {@code .ballast-TOKEN-1} by the run's {@link RestoreTemporaries}, each file under
 * its own name, and that directory is renamed to the target once, at the end ({@link #publish}), after
 * what it holds is durable. No file under the target's path is ever half-written, and a file's rename
 * from a temporary name, one {@code renameat(2)} per file (0.24–0.28 s of system time per 20,000 files
 * on ext4), becomes one rename per restore.
 *
 * <p>Used only where a killed run's hidden directory is sure to be found: the run is recorded and its
 * record locked ({@link RestoreTemporaries#recorded()}), so the next run into the same target removes
 * it with all it holds ({@link #removeLeftover}). The target's parent must exist (it is a directory,
 * links followed); otherwise the run writes into the target itself, as into one that exists. Not
 * thread-safe; one instance per run.
 */
final class RestoreStaging {
    private static final EnumSet<PosixFilePermission> OWNER_ALL = EnumSet.of(
            PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE);

    private final Path target;
    private final Path directory;
    /** The hidden directory's identity (device and inode) as created; null where the file system has none. */
    private final @Nullable Object identity;

    /** The file in the hidden directory holding the secret its run's record holds, removed before the rename. */
    private final Path marker;

    private static final java.security.SecureRandom SECRETS = new java.security.SecureRandom();

    /** The hidden directory's permissions as the umask made it, given back before the rename. */
    private final java.util.Set<PosixFilePermission> modeAsMade;

    private RestoreStaging(
            Path target,
            Path directory,
            @Nullable Object identity,
            Path marker,
            java.util.Set<PosixFilePermission> modeAsMade) {
        this.target = target;
        this.directory = directory;
        this.identity = identity;
        this.marker = marker;
        this.modeAsMade = modeAsMade;
    }

    /** The name of the file in a run's hidden directory that holds its secret: {@code .ballast-TOKEN-key}. */
    static String marker(String token) {
        return RestoreTemporaries.PREFIX + token + "-key";
    }

    /**
     * Records the run ({@link RestoreTemporaries#begin}, which also removes what killed runs into this
     * target left) and creates the hidden directory beside {@code target}; null where the run writes into
     * the target itself: it exists (or a link stands there), its parent does not exist, the run cannot
     * be recorded, or the directory cannot be created (the run then says why, as without staging).
     *
     * @param target the restore's target, absolute and normalised
     */
    static @Nullable RestoreStaging begin(Path target, RestoreTemporaries temporaries) {
        Objects.requireNonNull(target, "target");
        Path parent = target.getParent();
        if (parent == null || Files.exists(target, LinkOption.NOFOLLOW_LINKS) || !Files.isDirectory(parent)) {
            return null;
        }
        temporaries.begin(List.of());
        if (!temporaries.recorded()) {
            return null;
        }
        Path made;
        java.util.Set<PosixFilePermission> modeAsMade;
        try {
            made = temporaries.create(target, Files::createDirectory);
            // Only this user may change it while the restore writes (0700, which also masks a default ACL's
            // entries): another user who could write in it moved its marker into a directory of theirs, and
            // the next run removed that (a fault tester's). Its mode as made, the umask's, is given back
            // before the rename.
            modeAsMade = Files.getPosixFilePermissions(made, LinkOption.NOFOLLOW_LINKS);
            Files.setPosixFilePermissions(made, OWNER_ALL);
        } catch (IOException | RuntimeException e) {
            return null;
        }
        try {
            Object identity = identity(made);
            // A secret only this run's record and the directory hold: what a later run finds it by.
            byte[] random = new byte[16];
            SECRETS.nextBytes(random);
            String secret = java.util.HexFormat.of().formatHex(random);
            Path marker = made.resolve(marker(temporaries.token()));
            Files.write(
                    Files.createFile(
                            marker,
                            java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                                    java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"))),
                    secret.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            if (!temporaries.recordStaging(secret)) {
                throw new IOException("the run's record could not take the secret");
            }
            return new RestoreStaging(target, made, identity, marker, modeAsMade);
        } catch (IOException | RuntimeException e) {
            // no directory a later run could not find: the marker (if made) and the directory go again
            try {
                Files.deleteIfExists(made.resolve(marker(temporaries.token())));
                Files.deleteIfExists(made);
            } catch (IOException | RuntimeException ignored) {
                // an empty hidden directory, left
            }
            return null;
        }
    }

    /** Run in {@link #publish} right before the rename, once the target's name is taken: a seam for tests. */
    Runnable beforeRename = () -> {};

    /** The hidden directory the tree is written into, absolute. */
    Path directory() {
        return directory;
    }

    /**
     * Renames the hidden directory to the target, then syncs the parent's entry for it. Called once, after
     * the run made what it wrote durable, whatever its outcome (a run that failed files, or was
     * cancelled, leaves what it completed, as a run into an existing target does). Nothing is renamed
     * when the hidden directory is no longer the one this run created (moved away, a link or another
     * directory put at its name: a fault tester's swap during the end sync was renamed into place and
     * the restore said complete) or when anything stands at the target: the target's name is taken by an
     * empty directory of this run's ({@code mkdir(2)}, which fails on anything there) that the rename then
     * replaces ({@code rename(2)} replaces an empty directory: a tester's directory of mode 0700, made
     * there between a look and the rename, was replaced). A swap of the hidden directory before the rename
     * is found after it: the target must then be the directory this run created. Then the directory's
     * mode as made is given back and its marker removed, so that a run killed before the rename leaves a
     * hidden directory the next run finds by its marker.
     *
     * @return null when the tree is at the target; otherwise one sentence saying why not and where the
     *     restored files are, for the run's result ({@link RestoreRunner.Result#notPlaced})
     */
    @Nullable
    String publish() {
        if (identity != null && !identity.equals(identity(directory))) {
            return "The directory the restore wrote into, '" + directory + "', was moved or replaced while the"
                    + " restore ran, so nothing was put at '" + target + "'; run the restore again.";
        }
        // The target's name is taken first with mkdir(2), which fails when anything stands there, an empty
        // directory included: a look then a rename(2), which replaces an empty directory, let a directory made
        // in between be replaced (a fault tester's, mode 0700, made while the rename was held up). The rename
        // then replaces only this empty placeholder. The marker stays in the tree until the rename is done: a
        // run killed before that leaves a hidden directory that the next run into the target finds by it and
        // removes (a tester's kill between the marker's removal and the rename left one that none did).
        Object placeholder;
        try {
            Files.createDirectory(target);
            placeholder = identity(target);
        } catch (java.nio.file.FileAlreadyExistsException e) {
            return kept("something was put there while the restore ran; it was neither replaced nor merged into");
        } catch (IOException | RuntimeException e) {
            return kept(RestoreDirectories.reason(e));
        }
        try {
            if (placeholder == null || !placeholder.equals(identity(target))) {
                throw new java.nio.file.FileAlreadyExistsException(target.toString());
            }
            beforeRename.run();
            Files.move(directory, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException e) {
            try {
                if (placeholder != null && placeholder.equals(identity(target))) {
                    Files.deleteIfExists(target); // rmdir(2): only the empty placeholder
                }
            } catch (IOException | RuntimeException ignored) {
                // an empty directory at the target, left
            }
            return kept(
                    e instanceof java.nio.file.FileAlreadyExistsException
                            ? "something was put there while the restore ran; it was neither replaced nor merged into"
                            : RestoreDirectories.reason(e));
        }
        if (identity != null && !identity.equals(identity(target))) {
            // Not "run the restore again": what stands there now may be a link to a directory of another's
            // (a fault tester's), which a run again would write through.
            return "'" + target + "' is not the directory the restore wrote: something else was put there while"
                    + " the restore ran, and the restored files went with the directory it wrote, wherever that"
                    + " is now; look at what stands at '" + target + "' before you restore into it again.";
        }
        try {
            Files.setPosixFilePermissions(target, modeAsMade);
            Files.deleteIfExists(target.resolve(marker.getFileName()));
        } catch (IOException | RuntimeException e) {
            // The tree is in place; its top directory keeps mode 0700, or the marker (a 32-character secret,
            // mode 0600) stays in it.
            return null;
        }
        RestoreLinks.syncDirectory(Objects.requireNonNull(target.getParent()));
        return null;
    }

    /**
     * The sentence for a tree kept in the hidden directory because it could not be renamed, for {@code
     * why}; the directory is handed over to the user as the target would have been: its marker removed
     * and its mode as made given back (no later run removes it: the run's record goes at its end).
     */
    private String kept(String why) {
        try {
            Files.deleteIfExists(marker);
            Files.setPosixFilePermissions(directory, modeAsMade);
        } catch (IOException | RuntimeException e) {
            // the tree is all there; its marker or mode 0700 stays
        }
        return "The restore wrote its files into '" + directory + "' but did not rename it to '" + target + "' (" + why
                + "); move it there yourself, or remove it if you restore again (no restore removes it).";
    }

    /** The file key of {@code p}, links not followed; null where there is none or it cannot be read. */
    private static @Nullable Object identity(Path p) {
        try {
            return Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                    .fileKey();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** How deep {@link #deleteContents} goes: a tree of a path within {@code PATH_MAX} is at most 2,048 deep. */
    static final int MAX_DEPTH = 2048;

    /**
     * Removes, with all it holds, the hidden directory beside {@code target} that the killed run of {@code
     * token} created, found by the secret its record holds ({@link RestoreTemporaries#recordStaging}) and
     * its directory holds in the file {@link #marker} (mode 0600): each directory of the run's name is
     * opened without following a link and its marker read relative to it, so a directory another user
     * renames to that name is never touched (a fault tester's, root's files in it; a device and inode
     * did not do, as a new directory takes the inode of one removed). What it holds is removed relative
     * to each directory's descriptor, nothing opened through a link ({@code openat} with {@code
     * O_NOFOLLOW}): a tester who owned a directory in a root restore's tree swapped it for a link to root's
     * files, which were deleted through it. Runs on a thread of its own ({@link RestoreTemporaries}): a FIFO
     * put in the tree blocks its opening (the JDK opens a directory without {@code O_NONBLOCK}), and that
     * thread only. A directory of this user's without its owner's read, write or search bit (a killed run
     * may have given it the backup's mode 0500) gets them first; chmod(2) changes only one's own files, and
     * root, who needs no such bits, changes none.
     *
     * @param secret the secret the run's record holds
     * @param stop asked before each entry: true stops the removal (Ctrl-C)
     * @return whether it is gone (or none of the run's name holds its secret); false leaves the record,
     *     so a later run goes on
     */
    static boolean removeLeftover(Path target, String token, String secret, BooleanSupplier stop) {
        Path parent = target.getParent();
        if (parent == null) {
            return true;
        }
        String prefix = RestoreTemporaries.PREFIX + token + "-";
        Path marker = Path.of(marker(token));
        try (DirectoryStream<Path> in = Files.newDirectoryStream(parent)) {
            if (!(in instanceof SecureDirectoryStream<Path> secure)) {
                return false; // where links cannot be refused, nothing is removed
            }
            List<Path> names = new ArrayList<>();
            for (Path p : in) {
                if (p.getFileName().toString().startsWith(prefix)) {
                    names.add(p.getFileName());
                }
            }
            String me = owner(Path.of("/proc/self"));
            boolean clean = true;
            for (Path name : names) {
                if (!secure.getFileAttributeView(name, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                        .readAttributes()
                        .isDirectory()) {
                    continue;
                }
                boolean emptied;
                try (SecureDirectoryStream<Path> made = secure.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS)) {
                    if (!secret.equals(readMarker(made, marker, me))) {
                        // Not the directory the run made, or one killed before its marker was written: removed
                        // only if empty (rmdir(2) takes nothing else), so nothing of anyone's can go.
                        try {
                            secure.deleteDirectory(name);
                        } catch (IOException | RuntimeException notEmpty) {
                            // left as it is
                        }
                        continue;
                    }
                    emptied = deleteContents(made, parent.resolve(name), me, 0, stop);
                }
                if (emptied) {
                    secure.deleteDirectory(name);
                }
                clean &= emptied;
            }
            removeMarkerLeftInTarget(secure, target.getFileName(), marker, secret, me);
            return clean;
        } catch (NoSuchFileException gone) {
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * Removes the marker that a run killed right after its rename, before it removed it, left in the target
     * {@code name} of {@code parent}: only where the target is a directory of this user's, not a link, and
     * the marker a regular file of this user's holding the run's secret. Never throws.
     */
    private static void removeMarkerLeftInTarget(
            SecureDirectoryStream<Path> parent, Path name, Path marker, String secret, String me) {
        try {
            // a look first: opening a FIFO put at the target would not return
            PosixFileAttributes t = parent.getFileAttributeView(
                            name, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                    .readAttributes();
            if (!t.isDirectory() || !t.owner().getName().equals(me)) {
                return;
            }
        } catch (IOException | RuntimeException e) {
            return;
        }
        try (SecureDirectoryStream<Path> target = parent.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS)) {
            PosixFileAttributes m = target.getFileAttributeView(
                            marker, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                    .readAttributes();
            if (!m.isRegularFile() || !m.owner().getName().equals(me) || m.size() != secret.length()) {
                return;
            }
            try (java.nio.channels.SeekableByteChannel c = target.newByteChannel(
                    marker, java.util.Set.of(java.nio.file.StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS))) {
                java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(secret.length());
                while (b.hasRemaining() && c.read(b) > 0) {
                    // reads the whole secret
                }
                if (!secret.equals(
                        new String(b.array(), 0, b.position(), java.nio.charset.StandardCharsets.US_ASCII))) {
                    return;
                }
            }
            target.deleteFile(marker);
        } catch (IOException | RuntimeException e) {
            // no target, not a directory, no marker in it, or not this user's: nothing to remove
        }
    }

    /**
     * The first 64 bytes of the file {@code marker} of {@code dir}, not following a link, or "" unless the
     * directory and the marker are this user's ({@code me}), the directory mode 0700 (no one else could
     * have moved a marker in or out) and the marker a regular file (a FIFO's opening never returns).
     */
    private static String readMarker(SecureDirectoryStream<Path> dir, Path marker, String me) {
        try {
            PosixFileAttributes d =
                    dir.getFileAttributeView(PosixFileAttributeView.class).readAttributes();
            PosixFileAttributes m = dir.getFileAttributeView(
                            marker, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                    .readAttributes();
            if (!d.owner().getName().equals(me)
                    || !d.permissions().equals(OWNER_ALL)
                    || !m.isRegularFile()
                    || !m.owner().getName().equals(me)) {
                return "";
            }
        } catch (IOException | RuntimeException e) {
            return "";
        }
        try (java.nio.channels.SeekableByteChannel c = dir.newByteChannel(
                marker, java.util.Set.of(java.nio.file.StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS))) {
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(64);
            while (b.hasRemaining() && c.read(b) > 0) {
                // up to 64 bytes
            }
            return new String(b.array(), 0, b.position(), java.nio.charset.StandardCharsets.US_ASCII);
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    /** The owner of {@code p} as a {@link PosixFileAttributes#owner()} names it (a uid without a name as its number), or "". */
    private static String owner(Path p) {
        try {
            return Files.getOwner(p).getName();
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    /**
     * Deletes everything in the directory held by {@code dir}, shown as {@code path}, relative to it and
     * without following a link; stops at {@code stop} and past {@value #MAX_DEPTH} levels.
     *
     * @param me this process's user, as {@link #owner} names it ("root" for root)
     * @return whether it is empty now
     */
    static boolean deleteContents(
            SecureDirectoryStream<Path> dir, Path path, String me, int depth, BooleanSupplier stop) {
        if (depth > MAX_DEPTH) {
            return false;
        }
        try {
            List<Path> children = new ArrayList<>();
            for (Path c : dir) {
                children.add(c.getFileName());
            }
            boolean clean = true;
            for (Path name : children) {
                if (stop.getAsBoolean()) {
                    return false;
                }
                PosixFileAttributes a = dir.getFileAttributeView(
                                name, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                        .readAttributes();
                if (!a.isDirectory()) {
                    dir.deleteFile(name);
                    continue;
                }
                if (!"root".equals(me)
                        && a.owner().getName().equals(me)
                        && !a.permissions().containsAll(OWNER_ALL)) {
                    RestoreDirectories.openToOwner(path.resolve(name));
                }
                boolean empty;
                try (SecureDirectoryStream<Path> sub = dir.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS)) {
                    empty = deleteContents(sub, path.resolve(name), me, depth + 1, stop);
                }
                if (empty) {
                    dir.deleteDirectory(name);
                }
                clean &= empty;
            }
            return clean;
        } catch (NoSuchFileException gone) {
            return true;
        } catch (IOException | RuntimeException | StackOverflowError e) {
            return false;
        }
    }
}
