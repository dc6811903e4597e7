package dev.ballast.backup.tree;

import java.io.IOException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemLoopException;
import java.nio.file.FileVisitResult;
import java.nio.file.FileVisitor;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A depth-first walk of a file tree with one {@code stat} per entry, for a platform with the JDK's
 * "unix" attribute view: {@link Files#walkFileTree} stats each entry for its basic attributes, and a
 * backup then needs a second stat for the ctime, inode, mode, owner and link count it records (a
 * third of the system calls of backing up a small file). Each entry here is read once, for all of
 * them, and handed to the visitor as {@link Attributes}, which carry the {@link FileStat} too.
 *
 * <p>The visitor sees what {@link Files#walkFileTree(Path, java.util.Set, int, FileVisitor)} would
 * show it: directories before and after their entries, in the order the directory lists them;
 * {@code visitFileFailed} for an entry that cannot be read or a directory that cannot be opened;
 * when following links, a broken link as the link itself and a link back to a directory being
 * walked, or to one above the start, as a {@link FileSystemLoopException}; {@code SKIP_SUBTREE}, {@code SKIP_SIBLINGS} and
 * {@code TERMINATE} as that method obeys them. Not thread-safe.
 */
public final class TreeWalk {
    /** Everything a backup reads of an entry, in one stat. */
    private static final String ATTRIBUTES = "unix:size,lastModifiedTime,fileKey,mode,ino,ctime,uid,gid,nlink,dev";

    private static final int S_IFMT = 0170000;
    private static final int S_IFREG = 0100000;
    private static final int S_IFDIR = 0040000;
    private static final int S_IFLNK = 0120000;

    /**
     * Directories the walk holds open at once, one per level from the start down (two descriptors each:
     * the JDK's directory stream keeps one to list and one to open entries by). Below that depth a
     * directory's entries are read whole and the directory closed before its subdirectories are walked,
     * so a deep tree needs no more descriptors than a shallow one: holding one per level, a backup of a
     * tree 31 directories deep failed under {@code ulimit -n 128} ("Too many open files"). Deep
     * directories are seldom large; a large one above this depth is still read as it is walked.
     */
    static final int MAX_OPEN_DIRECTORIES = 8;

    private final boolean follow;
    private final FileVisitor<Path> visitor;
    private final Deque<Object> ancestors = new ArrayDeque<>();
    /** Directory streams open now. */
    private int open;

    private TreeWalk(boolean follow, FileVisitor<Path> visitor) {
        this.follow = follow;
        this.visitor = visitor;
    }

    /**
     * Walks {@code start} and everything under it.
     *
     * @param follow follow symbolic links (as {@link java.nio.file.FileVisitOption#FOLLOW_LINKS})
     * @throws IOException what the visitor throws
     */
    public static void walk(Path start, boolean follow, FileVisitor<Path> visitor) throws IOException {
        TreeWalk walk = new TreeWalk(follow, Objects.requireNonNull(visitor, "visitor"));
        if (follow) {
            walk.aboveStart(start);
        }
        walk.visit(start);
    }

    /**
     * Following links, a link to a directory above {@code start} ({@code up -> ..}, {@code /proc/self/root
     * -> /}) is a loop as much as one to a directory walked: those directories count as ancestors too.
     */
    private void aboveStart(Path start) {
        Path real;
        try {
            real = start.toRealPath();
        } catch (IOException e) {
            return; // the walk reports it
        }
        for (Path p = real.getParent(); p != null; p = p.getParent()) {
            try {
                Object key = read(p).fileKey();
                if (key != null) {
                    ancestors.addLast(key);
                }
            } catch (IOException e) {
                // a directory above that cannot be read cannot be walked into either
            }
        }
    }

    /** The basic attributes of an entry, with the rest of its stat. */
    public static final class Attributes implements BasicFileAttributes {
        private final int mode;
        private final @Nullable Object fileKey;
        private final long device;
        private final FileStat stat;

        Attributes(int mode, @Nullable Object fileKey, long device, FileStat stat) {
            this.mode = mode;
            this.fileKey = fileKey;
            this.device = device;
            this.stat = stat;
        }

        /** The ID of the device (the file system) the entry is on, {@code st_dev}. */
        public long device() {
            return device;
        }

        /** What a backup records of the entry. */
        public FileStat stat() {
            return stat;
        }

        @Override
        public FileTime lastModifiedTime() {
            return FileTime.from(stat.mtime());
        }

        /** Not read: the modification time. */
        @Override
        public FileTime lastAccessTime() {
            return lastModifiedTime();
        }

        /** Not read: the modification time (as the JDK answers on Linux). */
        @Override
        public FileTime creationTime() {
            return lastModifiedTime();
        }

        @Override
        public boolean isRegularFile() {
            return (mode & S_IFMT) == S_IFREG;
        }

        @Override
        public boolean isDirectory() {
            return (mode & S_IFMT) == S_IFDIR;
        }

        @Override
        public boolean isSymbolicLink() {
            return (mode & S_IFMT) == S_IFLNK;
        }

        @Override
        public boolean isOther() {
            return !isRegularFile() && !isDirectory() && !isSymbolicLink();
        }

        @Override
        public long size() {
            return stat.size();
        }

        @Override
        public @Nullable Object fileKey() {
            return fileKey;
        }
    }

    public static Attributes read(Path file, LinkOption... options) throws IOException {
        Attributes direct = UnixStat.read(file, options);
        return direct != null ? direct : readThroughUnixView(file, options);
    }

    /** {@link #read} through the JDK's "unix" attribute view, where {@link UnixStat} cannot read the stat itself. */
    static Attributes readThroughUnixView(Path file, LinkOption... options) throws IOException {
        Map<String, Object> a = Files.readAttributes(file, ATTRIBUTES, options);
        int mode = (Integer) a.get("mode");
        FileStat stat = new FileStat(
                (Long) a.get("size"),
                ((FileTime) a.get("lastModifiedTime")).toInstant(),
                ((FileTime) a.get("ctime")).toInstant(),
                (Long) a.get("ino"),
                new PosixAttrs(mode & PosixAttrs.MODE_BITS, (Integer) a.get("uid"), (Integer) a.get("gid")),
                (Integer) a.get("nlink"));
        return new Attributes(mode, a.get("fileKey"), (Long) a.get("dev"), stat);
    }

    /** As FileTreeWalker: following links, a link whose target is gone is the link itself. */
    private Attributes attributes(Path file) throws IOException {
        if (!follow) {
            return read(file, LinkOption.NOFOLLOW_LINKS);
        }
        try {
            return read(file);
        } catch (IOException e) {
            try {
                return read(file, LinkOption.NOFOLLOW_LINKS);
            } catch (IOException ignored) {
                throw e;
            }
        }
    }

    private FileVisitResult visit(Path path) throws IOException {
        Attributes attrs;
        try {
            attrs = attributes(path);
        } catch (IOException e) {
            return visitor.visitFileFailed(path, e);
        }
        if (!attrs.isDirectory()) {
            return visitor.visitFile(path, attrs);
        }
        Object key = attrs.fileKey();
        if (follow && key != null && ancestors.contains(key)) {
            return visitor.visitFileFailed(path, new FileSystemLoopException(path.toString()));
        }
        DirectoryStream<Path> entries;
        try {
            entries = Files.newDirectoryStream(path);
        } catch (IOException e) {
            return visitor.visitFileFailed(path, e);
        }
        IOException failure = null;
        open++;
        boolean held = true;
        try (entries) {
            FileVisitResult before = visitor.preVisitDirectory(path, attrs);
            if (before != FileVisitResult.CONTINUE) {
                return before == FileVisitResult.SKIP_SUBTREE ? FileVisitResult.CONTINUE : before;
            }
            Iterable<Path> walked = entries;
            if (open > MAX_OPEN_DIRECTORIES) {
                // read whole and closed before anything below it is opened
                List<Path> read = new ArrayList<>();
                try {
                    entries.forEach(read::add);
                } catch (DirectoryIteratorException e) {
                    failure = e.getCause();
                }
                entries.close();
                open--;
                held = false;
                walked = read;
            }
            ancestors.push(key == null ? new Object() : key);
            try {
                for (Path entry : walked) {
                    FileVisitResult r = visit(entry);
                    if (r == FileVisitResult.TERMINATE) {
                        return r;
                    }
                    if (r == FileVisitResult.SKIP_SIBLINGS) {
                        break;
                    }
                }
            } catch (DirectoryIteratorException e) {
                failure = e.getCause();
            } finally {
                ancestors.pop();
            }
        } finally {
            if (held) {
                open--;
            }
        }
        FileVisitResult after = visitor.postVisitDirectory(path, failure);
        return after == FileVisitResult.SKIP_SIBLINGS ? FileVisitResult.CONTINUE : after;
    }
}
