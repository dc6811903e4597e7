package dev.ballast.backup.restore;

import dev.ballast.backup.Cancellation;
import dev.ballast.backup.Messages;
import dev.ballast.backup.tree.FileStat;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Creates the directories a restore writes into, one level at a time from the target down, and
 * remembers what it found for each: a directory is examined once however many files and
 * directories lie below it, so a chain of {@code n} nested directories costs {@code n} steps (each
 * a few system calls), not the {@code n²/2} of walking from the target to every one of them (whose
 * paths grow with {@code n} too: cubic time in all).
 *
 * <p>Each directory ends in one of three states: usable (with the real path its entries go to),
 * <em>unsafe</em> (a symbolic link in the target resolves outside it: nothing is created beyond it;
 * a link that stays inside the target is followed) or <em>failed</em> (it could not be created: a
 * path longer than the file system allows, {@code PATH_MAX} 4,096 bytes on Linux, a name over
 * {@code NAME_MAX} 255 bytes, permission denied), with the reason; what lies below an unsafe or
 * failed directory inherits its state, so one such directory costs the restore only what is under
 * it. With {@code overwrite} a link or a file standing where a directory goes is replaced by the
 * directory. Not thread-safe; one instance per restore.
 */
public final class RestoreDirectories {
    /** What was found for one directory. */
    public sealed interface State permits Usable, Unsafe, Failed {}

    /** Created or present; {@code real} is where its entries go. */
    public record Usable(Path real) implements State {}

    /** A symbolic link at or above it resolves outside the target. */
    public record Unsafe() implements State {}

    /** It, or a directory above it, could not be created; {@code reason} says why, for a user. */
    public record Failed(String reason) implements State {}

    private static final Unsafe UNSAFE = new Unsafe();

    private final Path target;
    private final Path realTarget;
    private final boolean overwrite;
    private final Cancellation cancellation;
    private final Map<Path, State> states = new HashMap<>();
    /** Directories found read-only for this user and opened for writing, with their permissions before. */
    private final Map<Path, Set<PosixFilePermission>> opened = new LinkedHashMap<>();
    /** The directories of {@link #adopt}: put back by their path where {@link #prepare} did not examine them. */
    private final Set<Path> adopted = new java.util.HashSet<>();

    /**
     * The identity (the JDK's file key: device and inode) of each usable directory, read without
     * following links right when it was created or found, before any other directory of the run: what
     * {@link DirectoryIdentities} holds it to until the run ends.
     */
    private final Map<Path, Object> identities = new HashMap<>();

    private long examined;
    /** Why the target's file system took no more directories (RestoreFailures.unwritableReason), or null. */
    private @Nullable String unwritable;

    /**
     * @param target the restore target, absolute and normalised (the paths passed to {@link #prepare}
     *     lie under it)
     * @param realTarget its real path (it exists)
     */
    public RestoreDirectories(Path target, Path realTarget, boolean overwrite, Cancellation cancellation) {
        this.target = Objects.requireNonNull(target, "target");
        this.realTarget = Objects.requireNonNull(realTarget, "realTarget");
        this.overwrite = overwrite;
        this.cancellation = Objects.requireNonNull(cancellation, "cancellation");
        states.put(target, new Usable(realTarget));
        Object key = identity(realTarget);
        if (key != null && key != NOT_READ) {
            identities.put(target, key);
        }
    }

    /**
     * Creates {@code dir} and every directory between the target and it that is not there yet,
     * examining only those not examined before, and returns its state. After cancellation nothing
     * more is created: a directory not yet examined is {@link Failed} ("interrupted").
     */
    public State prepare(Path dir) {
        State known = states.get(dir);
        if (known != null) {
            return known;
        }
        // The directories above dir not yet examined, nearest the target first.
        Deque<Path> todo = new ArrayDeque<>();
        Path p = dir;
        while (p != null && !states.containsKey(p)) {
            if (!p.startsWith(target)) {
                throw new IllegalArgumentException(dir + " is not under " + target);
            }
            todo.push(p);
            p = p.getParent();
        }
        State parent = p == null ? new Failed("it is not under the target directory") : states.get(p);
        while (!todo.isEmpty()) {
            Path next = todo.pop();
            State state = parent instanceof Usable u ? examine(u.real(), next) : parent;
            if (state instanceof Usable u) {
                Object key = identity(u.real());
                if (key == NOT_READ) {
                    state = new Failed("its directory could not be looked at once it was created");
                } else if (key != null) {
                    identities.put(next, key); // null: a file system without file keys, nothing to hold it to
                }
            }
            states.put(next, state);
            parent = state;
        }
        return parent;
    }

    /**
     * The identities of the usable directories {@link #prepare} examined, taken as each was created
     * or found (see {@link #identities}); a copy.
     */
    public Map<Path, Object> identities() {
        return Map.copyOf(identities);
    }

    /** What {@link #identity} returns for a directory whose attributes cannot be read. */
    private static final Object NOT_READ = new Object();

    /**
     * The file key of the directory {@code real}, not following a link there: null where the file system
     * has none, {@link #NOT_READ} when it cannot be read.
     */
    private static @Nullable Object identity(Path real) {
        try {
            return Files.readAttributes(
                            real, java.nio.file.attribute.BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                    .fileKey();
        } catch (IOException | RuntimeException e) {
            return NOT_READ;
        }
    }

    /** The state {@link #prepare} found for {@code dir}, or null if it was not prepared. */
    @Nullable
    public State stateOf(Path dir) {
        return states.get(dir);
    }

    /**
     * Why the target's file system refused a directory for a reason that holds for all of them
     * (read-only, out of space, over quota), after which none more was tried; or null.
     */
    public @Nullable String unwritable() {
        return unwritable;
    }

    /** How many directories were examined with system calls: one per distinct directory prepared. */
    public long examined() {
        return examined;
    }

    /** Examines (and creates) the one directory {@code dir}, whose parent's entries go to {@code parentReal}. */
    private State examine(Path parentReal, Path dir) {
        if (cancellation.cancelled()) {
            return new Failed("the restore was interrupted before its directory was created");
        }
        if (unwritable != null) {
            return new Failed("a directory could not be created (" + unwritable + ")");
        }
        examined++;
        // the name as bytes: toString() is lossy for a name that is not UTF-8
        Path current = parentReal.resolve(dir.getFileName());
        try {
            if (Files.isSymbolicLink(current)) {
                if (overwrite) {
                    // A link where the backup has a directory: --overwrite replaces it, as it replaces a link
                    // where a file goes; following it would write this directory's files wherever it points.
                    Files.delete(current);
                    Files.createDirectory(current);
                    return new Usable(current);
                }
                Path resolved;
                try {
                    resolved = current.toRealPath();
                } catch (NoSuchFileException dangling) {
                    return UNSAFE;
                }
                return resolved.startsWith(realTarget) ? new Usable(resolved) : UNSAFE;
            }
            if (!Files.exists(current, LinkOption.NOFOLLOW_LINKS)) {
                try {
                    Files.createDirectory(current);
                } catch (FileAlreadyExistsException raced) {
                    // made meanwhile by someone else: examined below like any other
                    return Files.isDirectory(current, LinkOption.NOFOLLOW_LINKS)
                            ? new Usable(current)
                            : new Failed("something other than a directory appeared where it goes");
                }
            } else if (!Files.isDirectory(current, LinkOption.NOFOLLOW_LINKS) && overwrite) {
                // A file where the backup has a directory: --overwrite replaces it, as it replaces a file
                // whose bytes differ (without --overwrite the restore was refused before this point).
                Files.delete(current);
                Files.createDirectory(current);
            } else if (Files.isDirectory(current, LinkOption.NOFOLLOW_LINKS)) {
                openForWriting(dir, current);
            }
            return new Usable(current);
        } catch (IOException | RuntimeException e) {
            unwritable = RestoreFailures.unwritableReason(e);
            return new Failed("a directory could not be created (" + reason(e) + ")");
        }
    }

    /**
     * A directory this user owns but may not write to (mode 555, say, which an earlier restore of a
     * backup gave it): given the owner's read, write and search bits for the run, as a directory the restore
     * creates has them until the backup's mode is applied at its end; without them, as a user other
     * than root, no run could ever write into it. A directory this user does not own is left as it is
     * (writing into it fails and says why).
     */
    private void openForWriting(Path dir, Path current) {
        if (!FileStat.UNIX || Files.isWritable(current)) {
            return;
        }
        try {
            opened.put(dir, openToOwner(current));
        } catch (IOException | RuntimeException e) {
            // not this user's: the writes into it report the failure
        }
    }

    /**
     * Gives the directory {@code dir} its owner's read, write and search bits (read too: its descriptor is
     * opened to give it the backup's mode at the end) and returns its permissions before.
     *
     * @throws IOException if they cannot be changed (a directory of another user's)
     */
    static Set<PosixFilePermission> openToOwner(Path dir) throws IOException {
        Set<PosixFilePermission> before = Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS);
        Set<PosixFilePermission> open = EnumSet.noneOf(PosixFilePermission.class);
        open.addAll(before);
        open.add(PosixFilePermission.OWNER_READ);
        open.add(PosixFilePermission.OWNER_WRITE);
        open.add(PosixFilePermission.OWNER_EXECUTE);
        Files.setPosixFilePermissions(dir, open);
        return before;
    }

    /**
     * Takes over the directories a {@link ClosedDirectories} opened to look into them: {@link #closeOpened}
     * gives them their permissions back as it does those opened here.
     */
    void adopt(Map<Path, Set<PosixFilePermission>> lookedInto) {
        lookedInto.forEach(opened::putIfAbsent);
        adopted.addAll(lookedInto.keySet());
    }

    /**
     * Gives the directories {@link #prepare} opened for writing their permissions back, except those in
     * {@code applied} (the backup's own mode was applied to them); best effort. Call once, at the end.
     */
    public void closeOpened(Set<Path> applied) {
        // Deepest first: a directory put back to mode 0000 first would keep those below it from being reached.
        List<Path> deepestFirst = new ArrayList<>(opened.keySet());
        deepestFirst.sort(java.util.Comparator.comparingInt(Path::getNameCount).reversed());
        for (Path dir : deepestFirst) {
            Set<PosixFilePermission> before = opened.get(dir);
            State s = states.get(dir);
            // An adopted directory was a real directory when it was opened, whatever prepare found for it since
            // (an interrupted run marks what it did not examine failed): put back by its path.
            Path real = s instanceof Usable u ? u.real() : adopted.contains(dir) ? dir : null;
            if (!applied.contains(dir) && real != null) {
                try {
                    Files.setPosixFilePermissions(real, before);
                } catch (IOException | RuntimeException e) {
                    // left writable by its owner; nothing else changed
                }
            }
        }
        opened.clear();
    }

    /**
     * Why a file system call failed, in words, without the path (which may be thousands of bytes
     * long): a name or path too long for the file system says which limit.
     */
    public static String reason(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof FileSystemException fse && fse.getReason() != null) {
                String why = fse.getReason();
                if (why.contains("File name too long")) {
                    return "File name too long: the path or one of its names is longer than the target's file "
                            + "system allows, on Linux 4,096 bytes a path and 255 bytes a name";
                }
                return why;
            }
        }
        return Messages.describeIo(e);
    }

    /** {@code target}, or the nearest directory above it that exists, absolute; null if none does. */
    @Nullable
    static Path nearestExisting(Path target) {
        for (Path p = target.toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
                return p;
            }
        }
        return null;
    }

    /**
     * The directories whose entries this run made outside the tree's own directories: the target (the
     * tree's top directories and files are entries of it) and, where the run created the target, each
     * directory it created above it and the existing one it created the first of them in. A sync per
     * directory (where {@code sync -f} does not run) covers these too, so that no entry on the way to
     * a restored file can be lost after the run said complete.
     */
    static List<Path> entriesAbove(Path realTarget, @Nullable Path existingAbove) {
        List<Path> dirs = new ArrayList<>();
        dirs.add(realTarget);
        if (existingAbove == null) {
            return dirs;
        }
        Path stop;
        try {
            stop = existingAbove.toRealPath();
        } catch (IOException e) {
            return dirs;
        }
        if (stop.equals(realTarget)) {
            return dirs; // the target existed
        }
        for (Path p = realTarget.getParent(); p != null && p.startsWith(stop); p = p.getParent()) {
            dirs.add(p);
        }
        return dirs;
    }

    /**
     * Why nothing can be written into {@code dir} (a link in the target leads outside it, or the
     * directory could not be created), as a failure's reason, or null when it is usable.
     */
    @Nullable
    String blocked(Path dir) {
        State state = stateOf(dir);
        if (state instanceof Unsafe) {
            return "its directory resolves outside the target directory; it was not written";
        }
        if (state instanceof Failed f) {
            return f.reason() + "; it was not written";
        }
        return null;
    }
}
