package dev.ballast.backup.run;

import dev.ballast.backup.run.BackupRunner.Failure;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.backup.snapshot.ManifestTree;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.NavigableMap;
import java.util.Set;

/**
 * A folder a backup run could not read (its mode changed to 000, say) keeps what the previous snapshot
 * recorded in it, as its files are kept stale ({@link PreviousManifest#keepPrevious}): the folder itself
 * and the directories, symbolic links and hard links under it, and one stale entry for the folder naming
 * the snapshot they come from. Without it the snapshot dropped the folder's directories, and said of the
 * folder that "no earlier backup had" it though the previous one did. Stateless.
 */
final class StaleFolders {
    private StaleFolders() {}

    /**
     * {@code walked} (the run's own tree) with the entries {@code previous} recorded in each folder of
     * {@code failures} added; adds to {@code stale} one entry per such folder the previous snapshot had.
     *
     * @param present the paths the run's snapshot lists as files (a hard link is kept only to one of them)
     * @param previousFiles the previous snapshot's files by path
     * @param from the previous snapshot as messages name it
     */
    static ManifestTree carry(
            List<Failure> failures,
            ManifestTree previous,
            ManifestTree walked,
            Set<String> present,
            NavigableMap<String, ManifestEntry> previousFiles,
            String from,
            List<Manifest.Stale> stale) {
        List<ManifestTree.Directory> dirs = new ArrayList<>(walked.directories());
        List<ManifestTree.Symlink> links = new ArrayList<>(walked.symlinks());
        List<ManifestTree.HardLink> hardLinks = new ArrayList<>(walked.hardLinks());
        Set<String> seen = new HashSet<>();
        dirs.forEach(d -> seen.add(d.path()));
        links.forEach(l -> seen.add(l.path()));
        hardLinks.forEach(h -> seen.add(h.path()));
        Set<String> staleNow = new HashSet<>();
        stale.forEach(s -> staleNow.add(s.path()));
        boolean added = false;
        for (Failure f : failures) {
            String folder = f.path();
            String under = folder + "/";
            boolean had =
                    !previousFiles.subMap(under, true, folder + "0", false).isEmpty();
            for (ManifestTree.Directory d : previous.directories()) {
                if (d.path().equals(folder) || d.path().startsWith(under)) {
                    had = true;
                    if (seen.add(d.path())) {
                        dirs.add(d);
                        added = true;
                    }
                }
            }
            for (ManifestTree.Symlink l : previous.symlinks()) {
                if (l.path().startsWith(under) && seen.add(l.path())) {
                    links.add(l);
                    added = true;
                }
            }
            for (ManifestTree.HardLink h : previous.hardLinks()) {
                if (h.path().startsWith(under) && present.contains(h.target()) && seen.add(h.path())) {
                    hardLinks.add(h);
                    added = true;
                }
            }
            if (had && staleNow.add(folder)) {
                stale.add(new Manifest.Stale(
                        folder, f.reason() + "; the snapshot keeps what is under it as " + from + " recorded it"));
            }
        }
        if (!added) {
            return walked;
        }
        dirs.sort(Comparator.comparing(ManifestTree.Directory::path));
        links.sort(Comparator.comparing(ManifestTree.Symlink::path));
        hardLinks.sort(Comparator.comparing(ManifestTree.HardLink::path));
        return new ManifestTree(dirs, links, hardLinks);
    }
}
