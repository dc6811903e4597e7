package dev.ballast.backup.restore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.OpenFileLimit;
import org.junit.jupiter.api.Test;

/**
 * How many written files a restore lets wait for their sync, each holding a descriptor: within what the
 * limit of open files leaves. Field case (a fault tester): under {@code ulimit -n 128} a restore of 300
 * files of 1 MiB or more from the local store failed 56 to 240 of them with "Too many open files", up to
 * {@link RestoreRunner#MAX_AWAITING_SYNC} (256) of them held open while the disk synced; after the change
 * it restored all of them in every run, at 4 and at 11 transfers.
 */
class RestoreAwaitingSyncTest {
    @Test
    void aLowLimitLeavesFewFilesWaitingAndAHighOneTheMaximum() {
        // ulimit -n 128, about 62 open when the restore starts: room for 128 - 62 - 24 = 42
        long room = 128 - 62 - OpenFileLimit.RESERVE;
        int held = DirectoryIdentities.maxOpen(128);
        int awaiting = RestoreRunner.awaitingSync(4, held, room);
        assertThat(4L * OpenFileLimit.PER_TRANSFER + 2L * held + awaiting)
                .as("transfers, held directories and waiting files within the room")
                .isLessThanOrEqualTo(Math.max(room, 4L * OpenFileLimit.PER_TRANSFER + 2L * held + 1));
        assertThat(awaiting).isBetween(1, RestoreRunner.MAX_AWAITING_SYNC);

        assertThat(RestoreRunner.awaitingSync(4, 128, 1_000_000)).isEqualTo(RestoreRunner.MAX_AWAITING_SYNC);
        assertThat(RestoreRunner.awaitingSync(4, 128, Long.MAX_VALUE))
                .as("limit unknown")
                .isEqualTo(RestoreRunner.MAX_AWAITING_SYNC);
        assertThat(RestoreRunner.awaitingSync(11, 16, 0))
                .as("no room: one at a time, never none")
                .isEqualTo(1);
    }
}
