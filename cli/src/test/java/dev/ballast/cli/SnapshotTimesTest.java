package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.testkit.LeakCheck;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A snapshot has one time, the same in every command that names it: when its backup started, in UTC,
 * as restic shows a snapshot's time everywhere ({@code list}, {@code ls}, {@code forget},
 * {@code restore}).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(LeakCheck.class)
class SnapshotTimesTest extends InProcessCli {
    /** A clock a second further on at each reading, so that a backup ends seconds after it starts. */
    static final class SteppingClock extends Clock {
        private final AtomicLong readings = new AtomicLong();

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.parse("2026-01-02T03:04:05Z").plusSeconds(readings.getAndIncrement());
        }
    }

    private final Clock clock = new SteppingClock();

    @Override
    CliContext context(Map<String, String> env) {
        CliContext c = super.context(env);
        return new CliContext(
                c.out(),
                c.err(),
                c.env(),
                c.home(),
                c.terminal(),
                c.cancellation(),
                clock,
                c.progressInterval(),
                c.manifestGrace(),
                c.onFileStored());
    }

    @Test
    void listLsForgetAndRestoreShowEachSnapshotWithTheTimeItsBackupStarted() throws Exception {
        Path source = Files.createDirectories(home.resolve("docs"));
        Files.writeString(source.resolve("a.txt"), "first");
        assertThat(run("backup", source.toString(), "--data-dir", data().toString()))
                .as(err())
                .isZero();
        Files.writeString(source.resolve("a.txt"), "second");
        assertThat(run("backup", source.toString(), "--data-dir", data().toString()))
                .as(err())
                .isZero();

        assertThat(run("list", "--data-dir", data().toString())).as(err()).isZero();
        String list = out();
        List<String> shortIds = new ArrayList<>();
        Matcher ids = Pattern.compile("(?m)^  ([0-9a-f]{8})  ").matcher(list);
        while (ids.find()) {
            shortIds.add(ids.group(1));
        }
        assertThat(shortIds).hasSize(2);

        List<String> times = new ArrayList<>();
        for (String id : shortIds) {
            // ls names the time the snapshot's run started (the manifest's createdAt) in its header.
            assertThat(run("ls", "docs", "--manifest-version", id, "--data-dir", data().toString()))
                    .as(err())
                    .isZero();
            Matcher header = Pattern.compile("manifest version " + id
                            + " \\([^)]+\\) of (\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC): ")
                    .matcher(out());
            assertThat(header.find()).as(out()).isTrue();
            String started = header.group(1);
            assertThat(started).startsWith("2026-01-02 03:");
            times.add(started);

            assertThat(list.lines().filter(l -> l.startsWith("  " + id + "  ")))
                    .singleElement()
                    .satisfies(l -> assertThat(l).contains(" " + started + " "));

            Path target = home.resolve("restored-" + id);
            assertThat(run(
                            "restore",
                            "docs",
                            target.toString(),
                            "--manifest-version",
                            id,
                            "--data-dir",
                            data().toString()))
                    .as(err())
                    .isZero();
            assertThat(out()).contains("(manifest version " + id + " (").contains(" of " + started + ", ");
        }
        assertThat(times.get(0)).isNotEqualTo(times.get(1));

        assertThat(run("forget", "docs", "--keep-last", "1", "--dry-run", "--data-dir", data().toString()))
                .as(err())
                .isZero();
        for (int i = 0; i < 2; i++) {
            String id = shortIds.get(i);
            String time = times.get(i);
            assertThat(out().lines().filter(l -> l.startsWith("  " + id + "  ")))
                    .singleElement()
                    .satisfies(l -> assertThat(l).contains(" " + time + " "));
        }
        assertThat(out()).contains("times shown in UTC");

        // Named by its ID, the version forget would remove is shown as list shows it (it showed when the
        // store wrote it, a second later here, with no files or size).
        String older = shortIds.get(1);
        assertThat(run("forget", "docs", "--manifest-version", older, "--dry-run", "--data-dir", data().toString()))
                .as(err())
                .isZero();
        assertThat(out().lines().filter(l -> l.startsWith("  " + older + "  ")))
                .singleElement()
                .satisfies(l -> assertThat(l).contains(" " + times.get(1) + " ").contains("1 file"));

        assertThat(run("list", "--help")).isZero();
        assertThat(out()).contains("the time each backup started");
    }
}
