package dev.ballast.backup.verify;

import dev.ballast.backup.Advice;
import dev.ballast.backup.Messages;
import dev.ballast.backup.content.PackedBlobs;
import dev.ballast.backup.content.PackedContent;
import dev.ballast.backup.keys.MasterKey;
import dev.ballast.backup.retention.PackedRepair;
import dev.ballast.backup.snapshot.SealedStore;
import dev.ballast.storage.object.ObjectStore;
import java.time.Clock;
import java.util.List;
import java.util.function.Consumer;

/**
 * What a verify of a repository of format 3 does once it found damaged files, as the earlier formats
 * record damaged versions: the damaged chunks are dropped from the repository's index, so that no
 * backup deduplicates against them and the next backup of a source that still holds the files stores
 * them again (its previous manifest's entries naming chunks the index lacks are read and stored again),
 * which heals every snapshot naming those chunk IDs. One implementation for {@code ballast verify} and
 * {@link dev.ballast.backup.Backups#verify}.
 */
public final class DamagedChunks {
    private DamagedChunks() {}

    /**
     * What {@link #drop} did.
     *
     * @param dropped whether no damaged chunk is left in the index: dropped now, or in no pack already
     * @param missing whether none of them was in a pack the index names (a pack lost, or dropped by an
     *     earlier verify or repair): nothing was left to drop
     */
    public record Outcome(boolean dropped, boolean missing) {}

    /**
     * Repairs the packs that hold the chunks of the {@code damaged} files ({@link PackedRepair#run}:
     * their intact chunks copied into new packs, the damaged ones dropped from the index, the packs
     * deleted), under the prune's marker: nothing is changed while a backup or prune may be running.
     * Tells {@code notes} what was done, or why not, in one sentence.
     *
     * @param packed the repository's content, its index read for a writer
     * @throws dev.ballast.storage.StorageException if the store fails ({@link #notDropped} says so)
     */
    public static Outcome drop(
            SealedStore view,
            PackedContent packed,
            List<Verifier.Damage> damaged,
            Clock clock,
            Consumer<String> notes) {
        PackedRepair.Result r = PackedVerify.dropDamaged(view, packed, damaged, clock);
        if (r == null) {
            // No pack the index names holds any of them: the chunks are missing (dropped by an earlier verify or
            // repair, or their pack lost), nothing is left to drop, and the next backup stores them again.
            return new Outcome(true, true);
        }
        if (r.report() == null) {
            notes.accept("Warning: the damaged chunks were not dropped from the repository's index ("
                    + String.join("; ", r.skipped())
                    + "); the next backup may reuse them: run verify again once nothing else writes to the store.");
            return new Outcome(false, false);
        }
        notes.accept("Dropped the damaged chunks from the repository's index ("
                + r.report().salvagedPacks().size() + " pack(s) replaced by their intact chunks, "
                + r.report().blobsLost() + " chunk(s) lost): the next backup of a source that still holds the files"
                + " stores them again, and every backup naming them reads again.");
        return new Outcome(true, false);
    }

    /**
     * The warning for a drop that failed with {@code failure} (the store could not be written, say).
     *
     * @param repairPacks what repairs the packs instead, as the caller names it
     */
    public static String notDropped(Throwable failure, String repairPacks) {
        return "Warning: the damaged chunks could not be dropped from the repository's index ("
                + Messages.rootMessage(failure) + "); the next backup may reuse them: run " + repairPacks
                + " once the store can be written.";
    }

    /**
     * {@link #drop} for {@link dev.ballast.backup.Backups#verify}: the repository's index read afresh
     * from {@code store} (after the verify's reads), a failure told to {@code notes} as a warning, and
     * chunks in no pack told too (nothing to drop: the next backup stores them again).
     *
     * @return whether no damaged chunk is left in the index
     */
    public static boolean dropAfterVerify(
            SealedStore view,
            ObjectStore store,
            MasterKey key,
            int transfers,
            List<Verifier.Damage> damaged,
            Clock clock,
            Consumer<String> notes) {
        try (PackedBlobs content = PackedBlobs.open(store, key, transfers)) {
            Outcome outcome = drop(view, content, damaged, clock, notes);
            if (outcome.missing()) {
                notes.accept("The damaged files' chunks are in no pack of the repository: the next backup of a"
                        + " source that still holds the files stores them again, and every backup naming them reads"
                        + " again.");
            }
            return outcome.dropped();
        } catch (RuntimeException e) {
            notes.accept(notDropped(e, Advice.REPAIR_PACKS.text()));
            return false;
        }
    }
}
