package dev.ballast.backup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.retention.RetentionPolicy;
import dev.ballast.storage.object.local.LocalObjectStore;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a service that prunes through the {@link Backups} API learns of the unused space a prune
 * leaves in the packs: the figures {@code ballast prune} prints as "Unused space left in packs".
 */
@ExtendWith(LeakCheck.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PruneResultTest {
    /** Each file's size; random bytes, so each is stored at about this size (zstd cannot shrink them). */
    static final int FILE = 200_000;

    @TempDir
    Path dir;

    /**
     * Twenty files, two of them changed and the first snapshot forgotten: the two old contents are
     * unused space in the packs. "unlimited" leaves it and says how much, of how much stored; a dry
     * run of "0" says none would be left; "0" leaves none.
     */
    @Test
    void aPruneSaysHowManyBytesOfUnusedSpaceItLeftInThePacksAndOfHowManyStored() throws IOException {
        try (LocalObjectStore store = LocalObjectStore.open(dir.resolve("store"))) {
            prunesTwoOldContents(Backups.of(store, EncryptedBackupsTest.init(store))
                    .withClock(Clock.offset(Clock.systemUTC(), Duration.ofMinutes(1))));
        }
    }

    private void prunesTwoOldContents(Backups backups) throws IOException {
        Path source = Files.createDirectories(dir.resolve("source"));
        for (int i = 0; i < 20; i++) {
            Files.write(source.resolve("f" + i + ".bin"), EncryptedBackupsTest.random(FILE, 100 + i));
        }
        assertThat(backups.backup("p", source).ok()).isTrue();
        for (int i = 0; i < 2; i++) {
            Files.write(source.resolve("f" + i + ".bin"), EncryptedBackupsTest.random(FILE, 200 + i));
        }
        assertThat(backups.backup("p", source).ok()).isTrue();
        assertThat(backups.forget("p", RetentionPolicy.builder().last(1).build(), false)
                        .removed())
                .hasSize(1);

        PruneResult left = backups.prune(Duration.ZERO, "unlimited", false);
        assertThat(left.skippedNames()).isEmpty();
        // No pack goes ("unlimited" keeps the mixed ones), but the forgotten snapshot's manifest parts do:
        // both figures count them.
        assertThat(left.deletedBytes()).isPositive();
        assertThat(left.deletedVersions()).isPositive();
        assertThat(left.packsWritten()).isZero();
        assertThat(left.unusedBytesLeft()).as("the two old contents").isBetween(2L * FILE, 2L * FILE + 10_000);
        assertThat(left.storedBytesLeft())
                .as("the twenty files' contents and the two old ones")
                .isBetween(22L * FILE, 22L * FILE + 100_000);

        PruneResult plan = backups.prune(Duration.ZERO, "0", true);
        assertThat(plan.dryRun()).isTrue();
        assertThat(plan.unusedBytesLeft()).isZero();
        assertThat(plan.storedBytesLeft()).isBetween(20L * FILE, 20L * FILE + 100_000);

        PruneResult done = backups.prune(Duration.ZERO, "0", false);
        assertThat(done.deletedVersions()).isPositive();
        assertThat(done.deletedVersions()).isEqualTo(plan.deletedVersions());
        assertThat(done.packsWritten()).as("the repacked packs' needed chunks").isPositive();
        assertThat(done.deletedBytes())
                .as("less than the two old contents: new packs were written")
                .isPositive();
        assertThat(done.unusedBytesLeft()).isZero();
        assertThat(done.storedBytesLeft()).isEqualTo(plan.storedBytesLeft());
    }

    /** A store of the earlier formats has no packs: no unused space in them, before or after. */
    @Test
    void aStoreOfTheEarlierFormatsHasNoUnusedSpaceInPacks() throws IOException {
        try (LocalObjectStore earlier = LocalObjectStore.open(dir.resolve("earlier"))) {
            Path source = Files.createDirectories(dir.resolve("plain"));
            Files.writeString(source.resolve("a.txt"), "one");
            Backups backups = Backups.of(earlier);
            assertThat(backups.backup("p", source).ok()).isTrue();
            PruneResult pruned = backups.prune(Duration.ZERO, false);
            assertThat(pruned.unusedBytesLeft()).isZero();
            assertThat(pruned.storedBytesLeft()).isZero();
        }
    }
}
