package dev.ballast.backup.run;

import dev.ballast.backup.Messages;
import dev.ballast.backup.run.BackupRunner.Failure;
import dev.ballast.backup.run.BackupRunner.Settings;
import dev.ballast.backup.run.BackupRunner.SourceFile;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.backup.snapshot.ManifestTree;
import dev.ballast.backup.tree.BackupFilter;
import dev.ballast.backup.tree.FileStat;
import dev.ballast.backup.tree.Names;
import dev.ballast.backup.tree.TreeWalk;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.FileVisitor;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The walk of a backup run's source tree ({@link #walk}): hands each regular file to the run as soon as
 * it is seen, applies the exclusions ({@link BackupFilter}), leaves out the local store the backup is
 * written to, and records the directories, symbolic links (unless followed) and further names of
 * hard-linked files, which {@link #tree} then makes the manifest's tree. What cannot be recorded is added
 * to the run's failures, what is passed over to its skipped list. Kept in {@code run} rather than
 * {@code tree}: it hands on and records the run's own {@link SourceFile}s and {@link Failure}s.
 *
 * <p>Not thread-safe: {@link BackupRunner#run} walks and then makes the tree on its own thread; only
 * the list of failures is shared with the run's transfer threads (the run's synchronized list). One
 * instance per run, made and used by {@link BackupRunner} only.
 */
final class SourceWalk {
    /** How the JVM decodes file names (from the locale; UTF-8 under a UTF-8 locale). */
    private static final String NAME_ENCODING = System.getProperty("sun.jnu.encoding", "UTF-8");

    private final Path source;
    private final Settings settings;
    /** A local store's directory inside the source tree, never backed up (null: none). */
    private final @Nullable Path storeDirectory;
    /** The run's failures: a synchronized list, which the transfer threads add to as well. */
    private final List<Failure> failed;

    private final List<ManifestTree.Directory> directories = new ArrayList<>();
    private final List<ManifestTree.Symlink> symlinks = new ArrayList<>();
    private final List<ManifestTree.HardLink> hardLinks = new ArrayList<>();
    private @Nullable BackupFilter filter;

    SourceWalk(Path source, Settings settings, @Nullable Path storeDirectory, List<Failure> failed) {
        this.source = source;
        this.settings = settings;
        this.storeDirectory = storeDirectory;
        this.failed = failed;
    }

    /** How many files and directories the exclusions left out (0 before the walk). */
    int excluded() {
        return filter == null ? 0 : filter.excluded();
    }

    /**
     * The directories, symbolic links and hard links found, sorted; a further name of a hard-linked
     * file whose first name was not stored is not stored either (it has no content to link to).
     */
    ManifestTree tree(List<ManifestEntry> listed) {
        java.util.Set<String> stored = new java.util.HashSet<>();
        listed.forEach(e -> stored.add(e.path()));
        List<ManifestTree.HardLink> links = new ArrayList<>();
        for (ManifestTree.HardLink link : hardLinks) {
            if (stored.contains(link.target())) {
                links.add(link);
            } else {
                failed.add(
                        new Failure(link.path(), "it is a hard link to '" + link.target() + "', which was not stored"));
            }
        }
        links.sort(Comparator.comparing(ManifestTree.HardLink::path));
        directories.sort(Comparator.comparing(ManifestTree.Directory::path));
        symlinks.sort(Comparator.comparing(ManifestTree.Symlink::path));
        return new ManifestTree(directories, symlinks, links);
    }

    /** The file key (device and inode) of a directory, or null where there is none or it cannot be read. */
    private static @Nullable Object fileKey(Path dir) {
        try {
            return Files.readAttributes(dir, BasicFileAttributes.class).fileKey();
        } catch (java.io.IOException | RuntimeException e) {
            return null; // not there yet (a first backup): then no path leads to it
        }
    }

    /**
     * Walks the source tree, handing each regular file to {@code found} as soon as it is seen, and
     * recording directories, symbolic links (unless followed) and further names of hard-linked files.
     */
    void walk(List<String> skipped, Consumer<SourceFile> found) {
        boolean follow = settings.followSymlinks();
        Set<FileVisitOption> options =
                follow ? EnumSet.of(FileVisitOption.FOLLOW_LINKS) : EnumSet.noneOf(FileVisitOption.class);
        LinkOption[] linkOptions = follow ? new LinkOption[0] : new LinkOption[] {LinkOption.NOFOLLOW_LINKS};
        filter = new BackupFilter(source, settings.excludes(), settings.excludeCaches());
        Map<Object, String> firstNames = new HashMap<>();
        // Following links, the store can be reached by another path (a link to it, or to a folder above it):
        // it is known by its file key (device and inode) too.
        Object storeKey = storeDirectory == null ? null : fileKey(storeDirectory);
        Long sourceDevice = settings.oneFileSystem() ? device(source, linkOptions) : null;
        try {
            FileVisitor<Path> visitor = new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                    if (storeDirectory != null
                            && (dir.toAbsolutePath().normalize().equals(storeDirectory)
                                    || (storeKey != null && storeKey.equals(attrs.fileKey())))) {
                        // Backing up the store into itself would change what is being read with every write.
                        skipped.add(relative(dir) + "/ (the store this backup is written to)");
                        return FileVisitResult.SKIP_SUBTREE;
                    }
                    String rel = dir.equals(source) ? "" : relative(dir);
                    if (!rel.isEmpty()) {
                        if (filter.excludes(rel, dir)) {
                            return FileVisitResult.SKIP_SUBTREE;
                        }
                        String problem = nameProblem(rel, dir);
                        if (problem != null) {
                            failed.add(new Failure(rel, problem));
                            return FileVisitResult.SKIP_SUBTREE;
                        }
                    }
                    try {
                        ManifestTree.Directory d = rel.isEmpty()
                                ? null
                                : new ManifestTree.Directory(
                                        rel,
                                        attrs.lastModifiedTime().toInstant(),
                                        attrs instanceof TreeWalk.Attributes t
                                                ? t.stat().attrs()
                                                : FileStat.attrsOf(dir, linkOptions));
                        if (d != null && otherFileSystem(attrs, sourceDevice)) {
                            // A mount point is kept, empty, as restic, tar and rsync keep it with -x.
                            directories.add(d);
                            skipped.add(rel + "/ (" + OTHER_FILE_SYSTEM + ")");
                            return FileVisitResult.SKIP_SUBTREE;
                        }
                        filter.enter(rel, dir);
                        if (d != null) {
                            directories.add(d);
                        }
                    } catch (IOException | IllegalArgumentException e) {
                        String why = e instanceof IOException io
                                ? "it could not be read (" + Messages.describeIo(io) + ")"
                                : "its " + BackupFilter.IGNORE_FILE + " is not valid (" + e.getMessage() + ")";
                        failed.add(new Failure(rel.isEmpty() ? "." : rel, why));
                        return FileVisitResult.SKIP_SUBTREE;
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException e) {
                    filter.leave();
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                    String rel = relative(file);
                    if (filter.excludes(rel, file)) {
                        return FileVisitResult.CONTINUE;
                    }
                    String problem = nameProblem(rel, file);
                    if (problem != null) {
                        failed.add(new Failure(rel, problem));
                    } else if (attrs.isSymbolicLink()) {
                        symlink(rel, file, attrs);
                    } else if (!attrs.isRegularFile()) {
                        skipped.add(rel + " (not a regular file)");
                    } else if (otherFileSystem(attrs, sourceDevice)) {
                        skipped.add(rel + " (" + OTHER_FILE_SYSTEM + ")");
                    } else {
                        FileStat stat;
                        try {
                            stat = attrs instanceof TreeWalk.Attributes t
                                    ? t.stat()
                                    : FileStat.of(file, attrs, linkOptions);
                        } catch (IOException e) {
                            failed.add(new Failure(rel, "it could not be read (" + Messages.describeIo(e) + ")"));
                            return FileVisitResult.CONTINUE;
                        }
                        if (stat.links() > 1 && attrs.fileKey() != null) {
                            String first = firstNames.putIfAbsent(attrs.fileKey(), rel);
                            if (first != null) {
                                hardLinks.add(new ManifestTree.HardLink(rel, first));
                                return FileVisitResult.CONTINUE;
                            }
                        }
                        found.accept(new SourceFile(rel, file, stat, attrs.fileKey()));
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) {
                    if (e instanceof FileSystemLoopException) {
                        // Following it would walk the same directories again, without end: restic and rclone -L
                        // pass over such a link too. Nothing is lost: what it leads to is backed up where it is.
                        skipped.add(relative(file) + "/ (" + LOOP + ")");
                    } else {
                        failed.add(
                                new Failure(relative(file), "it could not be read (" + Messages.describeIo(e) + ")"));
                    }
                    return FileVisitResult.CONTINUE;
                }
            };
            if (FileStat.UNIX) {
                TreeWalk.walk(source, follow, visitor); // one stat per entry
            } else {
                Files.walkFileTree(source, options, Integer.MAX_VALUE, visitor);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Why a directory reached through a followed link is not walked (listed as skipped). */
    static final String LOOP = "a symbolic link loop: it leads to a directory above it, which is not walked again";

    /** Why an entry on another file system than the source's is not backed up with --one-file-system. */
    static final String OTHER_FILE_SYSTEM = "on another file system, which --one-file-system does not cross";

    /** The device (file system) {@code path} is on, or null where it cannot be read. */
    private static @Nullable Long device(Path path, LinkOption... options) {
        try {
            return TreeWalk.read(path, options).device();
        } catch (IOException | RuntimeException e) {
            return null; // the walk reports the source itself
        }
    }

    /** Whether {@code attrs} are of an entry on another device than {@code sourceDevice} (null: not checked). */
    private static boolean otherFileSystem(BasicFileAttributes attrs, @Nullable Long sourceDevice) {
        return sourceDevice != null && attrs instanceof TreeWalk.Attributes t && t.device() != sourceDevice.longValue();
    }

    /** Records a symbolic link as a link: its target as it reads, never followed. */
    private void symlink(String rel, Path file, BasicFileAttributes attrs) {
        try {
            Path link = Files.readSymbolicLink(file);
            String target = Names.name(link);
            if (!Names.exact() && target.indexOf('\uFFFD') >= 0) {
                failed.add(new Failure(
                        rel,
                        "it is a symbolic link whose target is not valid " + NAME_ENCODING
                                + ", so it cannot be recorded as it reads; change the link"));
                return;
            }
            symlinks.add(new ManifestTree.Symlink(
                    rel,
                    target,
                    attrs.lastModifiedTime().toInstant(),
                    attrs instanceof TreeWalk.Attributes t
                            ? t.stat().attrs()
                            : FileStat.attrsOf(file, LinkOption.NOFOLLOW_LINKS)));
        } catch (IOException e) {
            failed.add(new Failure(rel, "its link could not be read (" + Messages.describeIo(e) + ")"));
        }
    }

    /**
     * Why the name {@code rel} found at {@code file} cannot be recorded so that it restores to the same
     * name, or null. Names are read as their bytes ({@link Names}): every name the file system allows is
     * kept, whatever the locale, and this is null. Only a JVM that cannot read names as bytes (the
     * launcher's {@code --add-opens} missing, or not a Unix JDK) reports a name its file name encoding
     * decoded lossily.
     */
    private @Nullable String nameProblem(String rel, Path file) {
        if (Names.exact() || rel.indexOf('\uFFFD') < 0) {
            return null;
        }
        boolean same;
        try {
            same = source.resolve(rel).equals(file);
        } catch (java.nio.file.InvalidPathException e) {
            same = false;
        }
        // Its decoded form (with U+FFFD) would name another file on restore.
        return same
                ? null
                : "its name is not valid " + NAME_ENCODING + " (the JVM's file name encoding, from the locale) and "
                        + "this JVM cannot read names as bytes (run it with --add-opens "
                        + "java.base/sun.nio.fs=ALL-UNNAMED, as the ballast launcher does)";
    }

    private String relative(Path file) {
        return Names.relative(source, file);
    }
}
