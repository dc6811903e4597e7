package dev.ballast.it.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.keys.KeyFiles;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.cli.ExitCodes;
import dev.ballast.it.cli.CliHarness.Run;
import dev.ballast.storage.StorageFacade;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * CliRetentionIT's forget by a policy on the encrypted repository a new store is (format 3), on the
 * local store and on S3Mock: {@code forget --dry-run} removes nothing, {@code forget} removes the
 * snapshots the policy does not keep, {@code prune --dry-run} says what it would delete and deletes
 * nothing (no pack, no snapshot), {@code prune} then gives back what only they held and every kept
 * snapshot still restores; a snapshot is named by its short ID or a prefix of its ID.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@ExtendWith(LeakCheck.class)
class CliRepositoryRetentionIT {
    @TempDir
    static Path base;

    static final String BUCKET = "cli-repository-retention-it";

    /** Tomorrow at midnight UTC: every command's time is after the S3 server's own version timestamps. */
    static final Instant DAY0 = Instant.now().truncatedTo(ChronoUnit.DAYS).plus(Duration.ofDays(1));

    static Run ballast(StoreKind store, Clock clock, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(store.args(base.resolve("data"), BUCKET));
        return CliHarness.run(base.resolve("home"), clock, p -> {}, all.toArray(String[]::new));
    }

    /** The snapshots (manifest versions) of {@code name}, read through the repository's key. */
    static int snapshots(StoreKind store, String name) {
        try (StorageFacade f = store.open(base.resolve("data"), BUCKET)) {
            assertThat(KeyFiles.isRepository(f.objects()))
                    .as("a new store is an encrypted repository")
                    .isTrue();
            return CliHarness.asCommandsSeeIt(f.objects())
                    .versions(Manifest.key(name))
                    .size();
        }
    }

    /** The keys of the repository's packs ({@code data/}), sorted. */
    static List<String> packs(StoreKind store) {
        try (StorageFacade f = store.open(base.resolve("data"), BUCKET)) {
            return f.objects().list("data/").stream().sorted().toList();
        }
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void forgetKeepsWhatThePolicySaysAndPruneKeepsWhatTheKeptSnapshotsNeed(StoreKind store) throws IOException {
        String name = "ret3-" + store;
        Path source = Files.createDirectories(base.resolve(name));
        Files.writeString(source.resolve("stable.txt"), "never changes");
        FakeTime clock = new FakeTime(DAY0);
        // Day 1 10:00, day 2 10:00, day 3 09:00 and 18:00, day 4 10:00: five backups, each with new content.
        long[] hours = {24 + 10, 48 + 10, 72 + 9, 72 + 18, 96 + 10};
        for (long h : hours) {
            clock.set(DAY0.plus(Duration.ofHours(h)));
            Files.writeString(source.resolve("changing.txt"), "content at hour " + h);
            assertThat(ballast(store, clock, "backup", source.toString()).exitCode())
                    .isEqualTo(ExitCodes.OK);
        }
        clock.set(DAY0.plus(Duration.ofDays(6)));
        assertThat(snapshots(store, name)).isEqualTo(5);

        Run dry = ballast(store, clock, "forget", name, "--keep-daily", "2", "--dry-run");
        assertThat(dry.exitCode()).as(dry.err()).isEqualTo(ExitCodes.OK);
        assertThat(dry.out())
                .contains("keep 2 backups")
                .contains("would remove 3 backups")
                .contains("daily snapshot")
                .contains("nothing was removed");
        assertThat(snapshots(store, name)).isEqualTo(5);

        Run forget = ballast(store, clock, "forget", name, "--keep-daily", "2");
        assertThat(forget.exitCode()).as(forget.err()).isEqualTo(ExitCodes.OK);
        assertThat(snapshots(store, name)).isEqualTo(2);

        List<String> packs = packs(store);
        Run dryPrune = ballast(store, clock, "prune", "--grace", "0s", "--dry-run");
        assertThat(dryPrune.exitCode()).as(dryPrune.out() + dryPrune.err()).isEqualTo(ExitCodes.OK);
        assertThat(dryPrune.out())
                .contains("Prune dry run: would delete ")
                .contains("(nothing was written or deleted).")
                .contains("Unused space that would be left in packs: ");
        assertThat(packs(store)).as("the packs after a dry run").isEqualTo(packs);
        assertThat(snapshots(store, name)).isEqualTo(2);

        Run prune = ballast(store, clock, "prune", "--grace", "0s");
        assertThat(prune.exitCode()).as(prune.out() + prune.err()).isEqualTo(ExitCodes.OK);
        assertThat(prune.out()).contains("Prune done: ");

        Path target = base.resolve(name + "-restored");
        assertThat(ballast(store, clock, "restore", name, target.toString()).exitCode())
                .isEqualTo(ExitCodes.OK);
        assertThat(target.resolve("changing.txt")).hasContent("content at hour " + hours[4]);
        assertThat(target.resolve("stable.txt")).hasContent("never changes");
        assertThat(ballast(store, clock, "verify", name).exitCode()).isEqualTo(ExitCodes.OK);

        assertThat(ballast(store, clock, "forget", name).exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(ballast(store, clock, "forget", "no-such-backup", "--keep-last", "1")
                        .exitCode())
                .isEqualTo(ExitCodes.NOT_FOUND);

        // The older kept snapshot (day 3, 18:00), named by its short ID or a prefix of its ID, still restores
        // after the prune: nothing it needs was given back.
        List<String> lines = ballast(store, clock, "list").out().lines().toList();
        List<String[]> columns = lines.stream()
                .skip(lines.indexOf(name) + 1L)
                .takeWhile(l -> l.startsWith(" "))
                .map(l -> l.trim().split("\\s+"))
                .toList();
        assertThat(columns).hasSize(2);
        String older = columns.get(1)[1];
        Run byShortId = ballast(store, clock, "forget", name, "--manifest-version", columns.get(1)[0], "--dry-run");
        assertThat(byShortId.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(byShortId.out()).contains(older);
        Run byPrefix = ballast(store, clock, "forget", name, "--manifest-version", older.substring(0, 12), "--dry-run");
        assertThat(byPrefix.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(byPrefix.out()).contains(older);
        Path olderTarget = base.resolve(name + "-older");
        Run restoreOlder =
                ballast(store, clock, "restore", name, olderTarget.toString(), "--manifest-version", columns.get(1)[0]);
        assertThat(restoreOlder.exitCode()).as(restoreOlder.err()).isEqualTo(ExitCodes.OK);
        assertThat(olderTarget.resolve("changing.txt")).hasContent("content at hour " + hours[3]);
    }
}
