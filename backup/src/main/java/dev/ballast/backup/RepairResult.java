package dev.ballast.backup;

import dev.ballast.backup.pack.RepairReport;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What {@link Backups#repair} found and did.
 *
 * @param report what the repair of the repository's index and packs found and did; null when it was
 *     not attempted (see {@code skipped})
 * @param skipped why nothing was done, one sentence each ("a backup of 'docs' is running", say); empty
 *     when the repair ran
 */
public record RepairResult(@Nullable RepairReport report, List<String> skipped) {
    /** Copies the list. */
    public RepairResult {
        skipped = List.copyOf(skipped);
    }

    /** The report, when the repair ran. */
    public Optional<RepairReport> reportIfAny() {
        return Optional.ofNullable(report);
    }

    /** Whether the repair ran and no blob was lost (nothing missing or damaged beyond what it could copy). */
    public boolean ok() {
        return report != null
                && report.blobsLost() == 0
                && report.unreadablePacks().isEmpty();
    }
}
