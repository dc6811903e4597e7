package dev.ballast.backup.snapshot;

import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What {@code list} shows of one snapshot, without its entries: read from the manifest's head alone
 * where the head records {@code fileCount} and {@code totalBytes} (every manifest written since they
 * were added; see docs/backup-format.md, "The manifest JSON"), so listing the snapshots of a name
 * reads one small object per snapshot however many files each holds, as restic's {@code snapshots}
 * reads its snapshot files and not their trees. Immutable.
 *
 * @param name the backup name the manifest records
 * @param createdAt when the run started
 * @param complete whether the run attempted every file ({@link Manifest#complete()})
 * @param fileCount how many regular files the snapshot holds
 * @param totalBytes their bytes, summed
 * @param source the directory backed up, or null when not recorded
 * @param host the machine it ran on, or null when not recorded
 * @param missing the files it holds no copy of ({@link Manifest#missing()})
 * @param notStored how many files its run did not store
 * @param stale how many files it keeps from an earlier run ({@link Manifest#stale()})
 */
public record ManifestSummary(
        String name,
        Instant createdAt,
        boolean complete,
        int fileCount,
        long totalBytes,
        @Nullable String source,
        @Nullable String host,
        int missing,
        int notStored,
        int stale) {

    /** The summary of a manifest read whole. */
    public static ManifestSummary of(Manifest m) {
        return new ManifestSummary(
                m.name(),
                m.createdAt(),
                m.complete(),
                m.files().size(),
                m.totalBytes(),
                m.source(),
                m.host(),
                m.missing(),
                m.notStored().size(),
                m.stale().size());
    }

    /** {@link Manifest#missing()} of these lists: the paths not stored that no stale entry keeps. */
    static int missing(List<String> notStored, List<Manifest.Stale> stale) {
        Set<String> kept = new HashSet<>();
        stale.forEach(st -> kept.add(st.path()));
        return (int) notStored.stream().filter(p -> !kept.contains(p)).count();
    }
}
