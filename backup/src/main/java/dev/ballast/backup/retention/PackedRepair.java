package dev.ballast.backup.retention;

import dev.ballast.backup.pack.BlobRepository;
import dev.ballast.backup.pack.RepairReport;
import dev.ballast.backup.run.RunMarker;
import dev.ballast.backup.snapshot.SealedStore;
import java.time.Clock;
import java.util.List;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * A repair of a repository of format 3 ({@link BlobRepository#repair}) under the prune's protocol: it
 * deletes index files and damaged packs, so it holds the prune marker ({@link PackedPrune#PRUNE_MARKER})
 * while it runs, which keeps new backups from starting, and does nothing while another backup or prune
 * may be running (a backup may be deduplicating against a pack the repair deletes).
 */
public final class PackedRepair {
    private PackedRepair() {}

    /**
     * What a repair did.
     *
     * @param report what was found and done; null when it was not attempted
     * @param skipped why nothing was done, one sentence each (empty when the repair ran)
     */
    public record Result(@Nullable RepairReport report, List<String> skipped) {
        public Result {
            skipped = List.copyOf(skipped);
        }
    }

    /**
     * Repairs the repository seen through {@code view} whose blobs are {@code blobs}.
     *
     * @param readData which packs to read whole ({@code k -> false}: the index against the listing alone)
     * @throws dev.ballast.storage.StorageException if the store fails (what was done so far is safe)
     */
    public static Result run(SealedStore view, BlobRepository blobs, Predicate<String> readData, Clock clock) {
        try (RunMarker own = RunMarker.start(view, PackedPrune.PRUNE_MARKER, clock)) {
            List<String> running = PackedPrune.running(view, clock.instant(), own.runId());
            if (!running.isEmpty()) {
                return new Result(null, running);
            }
            return new Result(blobs.repair(readData), List.of());
        }
    }
}
