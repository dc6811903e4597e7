package dev.ballast.storage.object.local;

import java.nio.file.Path;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What {@link LocalObjectStore#rebuildIndex(Path)} did: the result of rebuilding a local object store's
 * index from its journal. Immutable.
 *
 * @param journalFound whether the store has a journal to rebuild from; false for a store written
 *     only by versions of Ballast before journals, whose index was left as it was
 * @param journalFiles how many journal files were read
 * @param versions the versions and delete markers the rebuilt index holds
 * @param missingVersions the versions whose content is in no pack and no content file, at most 1,000
 *     of them; reading such a version is {@link dev.ballast.storage.IntegrityException}
 * @param contentMissingCount how many versions have their content missing
 * @param journalDamage for each damaged region of a journal file (frames failing their CRC, skipped
 *     up to the next valid frame) and each file ending in a frame cut short, the file's name and where
 * @param previousIndexKept whether the index found was intact (it opened and SQLite's
 *     {@code PRAGMA quick_check} passed), so every row it held was kept beside what the journal adds
 * @param unrecovered the versions, as "KEY (version ID)", that a damaged journal frame named and that
 *     the rebuilt index does not hold (neither a valid frame nor the previous index had them): lost
 *     from the index. Read from damaged bytes, a name may itself be damaged; a frame damaged past
 *     reading names nothing, so when the previous index was not kept, journal damage may have cost
 *     versions this list cannot name
 * @param previousIndex where the old index was moved ({@code index.db.before-repair-MILLIS}),
 *     null when there was none or nothing was changed
 * @param packFiles pack files found
 * @param contentFiles content files found
 * @param changed whether the index was replaced: false when there is no journal, and when the index
 *     found was intact and already held exactly what the rebuild put together (every version, in the
 *     same order, with its content where the rebuild found it), in which case it was left as it was
 *     and no copy of it kept aside
 * @param journalShorter whether the journal ended before the change the index recorded last (a journal
 *     file cut short or deleted, the journal restored from an older copy, or something other than a file in a
 *     journal file's place): the index, the newer record, was kept as it was, the versions only the journal
 *     named counted as removed on purpose (not lost), and the journal written anew from the index
 * @param damagePastIndex whether the journal's only damage ({@link #journalDamage()}) lay after the last change
 *     the index, found intact, records (bytes appended to a journal file after its last commit): the index,
 *     which holds every change the journal committed, was kept as it was and the journal written anew from it,
 *     so nothing was lost
 * @param movedAside for each entry of {@code journal/} named as a journal file that was no regular file (a
 *     directory, a FIFO, a symbolic link), never opened: what it was and the name it was moved aside to
 */
public record IndexRebuild(
        boolean journalFound,
        int journalFiles,
        int versions,
        List<MissingVersion> missingVersions,
        long contentMissingCount,
        List<String> journalDamage,
        boolean previousIndexKept,
        List<String> unrecovered,
        @Nullable Path previousIndex,
        int packFiles,
        long contentFiles,
        boolean changed,
        boolean journalShorter,
        boolean damagePastIndex,
        List<String> movedAside) {

    /**
     * A version whose content the store lost.
     *
     * @param key the object's key
     * @param versionId the version's ID
     */
    public record MissingVersion(String key, String versionId) {
        /** {@code KEY (version ID)}, as the CLI prints it. */
        @Override
        public String toString() {
            return key + " (version " + versionId + ")";
        }
    }

    /** {@link #missingVersions()} as {@code KEY (version ID)}, for display. */
    public List<String> contentMissing() {
        return missingVersions.stream().map(MissingVersion::toString).toList();
    }
}
