package dev.ballast.backup.restore;

import dev.ballast.backup.Cancellation;
import dev.ballast.backup.run.BackupRunner;
import dev.ballast.backup.snapshot.ManifestTree;
import dev.ballast.backup.tree.Attributes;
import dev.ballast.backup.tree.Names;
import dev.ballast.backup.tree.SafePaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The directories and links of a manifest for {@link RestoreRunner}: resolved inside the target and
 * checked for what stands in their way before anything is written ({@link #plan}), then, after the
 * files, the links made and the directories given their attributes ({@link #restore}). Not
 * thread-safe; one per run.
 */
final class RestoreTree {
    /** A directory or link of the manifest with where it goes. */
    record Placed<T>(T entry, Path dest) {}

    private final List<Placed<ManifestTree.Directory>> directories;
    private final List<Placed<Object>> links;

    private RestoreTree(List<Placed<ManifestTree.Directory>> directories, List<Placed<Object>> links) {
        this.directories = directories;
        this.links = links;
    }

    /** The manifest's directories, resolved inside the target. */
    List<Placed<ManifestTree.Directory>> directories() {
        return directories;
    }

    /** The manifest's hard links, then its symbolic links, resolved inside the target. */
    List<Placed<Object>> links() {
        return links;
    }

    /**
     * Resolves every directory, symbolic link and hard link of {@code tree} inside {@code target} (an
     * unsafe path refuses the whole manifest) and adds to {@code conflicts} those that an existing
     * entry of another kind (or a link to elsewhere) stands in the way of, unless {@code overwrite}.
     */
    static RestoreTree plan(ManifestTree tree, Path target, boolean overwrite, RestoreConflicts conflicts)
            throws IOException {
        List<Placed<ManifestTree.Directory>> dirs = new ArrayList<>();
        for (ManifestTree.Directory d : tree.directories()) {
            Path dest = SafePaths.resolveInside(target, d.path());
            dirs.add(new Placed<>(d, dest));
            if (Files.exists(dest, LinkOption.NOFOLLOW_LINKS)
                    && !Files.isDirectory(dest, LinkOption.NOFOLLOW_LINKS)
                    && !overwrite) {
                conflicts.add(d.path(), RestoreConflicts.Kind.NOT_A_DIRECTORY);
            }
        }
        List<Placed<Object>> links = new ArrayList<>();
        for (ManifestTree.HardLink h : tree.hardLinks()) {
            Path dest = SafePaths.resolveInside(target, h.path());
            links.add(new Placed<>(h, dest));
            Path first = SafePaths.resolveInside(target, h.target());
            if (Files.exists(dest, LinkOption.NOFOLLOW_LINKS)
                    && !overwrite
                    && !(Files.exists(first, LinkOption.NOFOLLOW_LINKS) && Files.isSameFile(dest, first))) {
                conflicts.add(h.path(), linkConflict(dest));
            }
        }
        for (ManifestTree.Symlink l : tree.symlinks()) {
            Path dest = SafePaths.resolveInside(target, l.path());
            links.add(new Placed<>(l, dest));
            if (Files.exists(dest, LinkOption.NOFOLLOW_LINKS)
                    && !overwrite
                    && !(Files.isSymbolicLink(dest)
                            && Names.name(Files.readSymbolicLink(dest)).equals(l.target()))) {
                conflicts.add(l.path(), linkConflict(dest));
            }
        }
        return new RestoreTree(dirs, links);
    }

    /** The kind of entry in the way at {@code dest}, where the backup has a link. */
    private static RestoreConflicts.Kind linkConflict(Path dest) {
        return Files.isDirectory(dest, LinkOption.NOFOLLOW_LINKS)
                ? RestoreConflicts.Kind.DIRECTORY_WHERE_LINK
                : RestoreConflicts.Kind.DIFFERENT_LINK;
    }

    /**
     * After the files: hard links, then symbolic links (created last, so no write of this restore
     * can pass through one). What fails is added to {@code failed}. The directories' attributes come
     * after, in {@link #applyDirectories}.
     */
    void restoreLinks(
            Path target,
            RestoreDirectories prepared,
            boolean ownership,
            RestoreTemporaries temporaries,
            Cancellation cancellation,
            List<BackupRunner.Failure> failed,
            DirectoryIdentities identities) {
        for (Placed<Object> l : links) {
            String path =
                    l.entry() instanceof ManifestTree.HardLink h ? h.path() : ((ManifestTree.Symlink) l.entry()).path();
            if (cancellation.cancelled()) {
                failed.add(new BackupRunner.Failure(path, RestoreRunner.NOT_ATTEMPTED));
                continue;
            }
            String blocked = prepared.blocked(l.dest().getParent());
            if (blocked != null) {
                failed.add(new BackupRunner.Failure(path, blocked));
                continue;
            }
            // The JDK makes links only by path: each is made through its directory's descriptor (and a
            // hard link's first name through that one's), so a directory swapped for a link to another one
            // at any moment does not have it made there.
            try (DirectoryIdentities.Lease in = identities.hold(l.dest().getParent())) {
                Path dest = in.resolve(l.dest());
                if (l.entry() instanceof ManifestTree.HardLink h) {
                    Path first = SafePaths.resolveInside(target, h.target());
                    try (DirectoryIdentities.Lease firstIn = identities.hold(first.getParent())) {
                        RestoreLinks.hardLink(firstIn.resolve(first), h.target(), dest);
                    }
                } else {
                    RestoreLinks.symlink((ManifestTree.Symlink) l.entry(), dest, ownership, temporaries);
                }
            } catch (RestoreFileWriter.TypeInTheWay | DirectoryIdentities.DirectoryReplacedException e) {
                failed.add(new BackupRunner.Failure(path, e.getMessage()));
            } catch (IOException | RuntimeException e) {
                failed.add(RestoreFailures.attributesNotRestored(path, e));
            }
        }
    }

    /**
     * After {@link #restoreLinks}: each directory's owner, mode and mtime, deepest first (so a read-only
     * directory is made read-only only once everything is in it, and creating entries in a directory does
     * not move its restored mtime). What fails is added to {@code failed}.
     */
    void applyDirectories(
            RestoreDirectories prepared,
            boolean ownership,
            Cancellation cancellation,
            List<BackupRunner.Failure> failed,
            DirectoryIdentities identities) {
        List<Placed<ManifestTree.Directory>> dirs = new ArrayList<>(directories);
        dirs.sort(Comparator.comparing(
                        (Placed<ManifestTree.Directory> d) -> d.entry().path())
                .reversed());
        for (Placed<ManifestTree.Directory> d : dirs) {
            if (cancellation.cancelled()) {
                break; // the directories stay as created, their attributes not yet applied: run the restore again
            }
            RestoreDirectories.State state = prepared.stateOf(d.dest());
            if (state instanceof RestoreDirectories.Unsafe) {
                failed.add(new BackupRunner.Failure(
                        d.entry().path(),
                        "it resolves outside the target directory; its " + "attributes were not applied"));
                continue;
            }
            if (state instanceof RestoreDirectories.Failed f) {
                failed.add(new BackupRunner.Failure(d.entry().path(), f.reason()));
                continue;
            }
            if (!Files.isDirectory(d.dest(), LinkOption.NOFOLLOW_LINKS)) {
                // Never a directory's mode and mtime on a file that stands in its place.
                failed.add(new BackupRunner.Failure(
                        d.entry().path(),
                        "something other than a directory stands where the backup has this directory; its "
                                + "attributes were not applied"));
                continue;
            }
            // through its descriptor: never the owner, mode and mtime of a directory that stands in its place
            try (DirectoryIdentities.Lease self = identities.hold(d.dest())) {
                Attributes.apply(self.itself(), d.entry().attrs(), d.entry().mtime(), ownership);
            } catch (DirectoryIdentities.DirectoryReplacedException e) {
                failed.add(new BackupRunner.Failure(
                        d.entry().path(),
                        "it was moved or replaced while the restore ran (something else stands at its path now);"
                                + " its attributes were not applied"));
            } catch (IOException | RuntimeException e) {
                failed.add(RestoreFailures.attributesNotRestored(d.entry().path(), e));
            }
        }
    }
}
