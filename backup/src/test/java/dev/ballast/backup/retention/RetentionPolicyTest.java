package dev.ballast.backup.retention;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The policy on the snapshot series of restic's own documentation and tests, with restic's
 * verdicts: buckets in local time, the newest snapshot of each period, counts per rule, the oldest
 * kept while counts are left, -1 unlimited.
 */
class RetentionPolicyTest {
    static final ZoneId ZONE = ZoneId.of("Europe/Berlin");

    /** One snapshot a day at 10:00 local time, from 2026-01-01 for {@code days} days, plus two on 2026-01-10. */
    static List<RetentionPolicy.Snapshot<String>> series(int days) {
        List<RetentionPolicy.Snapshot<String>> list = new ArrayList<>();
        for (int d = 0; d < days; d++) {
            Instant t = java.time.LocalDate.of(2026, 1, 1)
                    .plusDays(d)
                    .atTime(10, 0)
                    .atZone(ZONE)
                    .toInstant();
            list.add(new RetentionPolicy.Snapshot<>(t.atZone(ZONE).toLocalDate().toString(), t));
        }
        Instant extra =
                java.time.LocalDate.of(2026, 1, 10).atTime(23, 30).atZone(ZONE).toInstant();
        list.add(new RetentionPolicy.Snapshot<>("2026-01-10-late", extra));
        return list;
    }

    static List<String> kept(RetentionPolicy p, List<RetentionPolicy.Snapshot<String>> s) {
        return p.apply(s, ZONE, Instant.parse("2030-01-01T00:00:00Z")).stream()
                .filter(RetentionPolicy.Decision::keep)
                .map(d -> d.snapshot().id())
                .toList();
    }

    @Test
    void keepLastKeepsTheNewest() {
        assertThat(kept(new RetentionPolicy(3, 0, 0, 0, 0, 0, null), series(20)))
                .containsExactly("2026-01-20", "2026-01-19", "2026-01-18");
    }

    @Test
    void keepDailyKeepsTheNewestOfEachDay() {
        assertThat(kept(new RetentionPolicy(0, 0, 11, 0, 0, 0, null), series(20)))
                .as("the late one of the 10th replaces the morning one")
                .containsExactly(
                        "2026-01-20",
                        "2026-01-19",
                        "2026-01-18",
                        "2026-01-17",
                        "2026-01-16",
                        "2026-01-15",
                        "2026-01-14",
                        "2026-01-13",
                        "2026-01-12",
                        "2026-01-11",
                        "2026-01-10-late");
    }

    @Test
    void keepWeeklyCountsIsoWeeksAndKeepsTheOldestWhileCountsAreLeft() {
        // 2026-01-01 is a Thursday: ISO week 1 runs to Sunday 01-04, week 2 to 01-11, week 3 to 01-18.
        assertThat(kept(new RetentionPolicy(0, 0, 0, 10, 0, 0, null), series(20)))
                .containsExactly("2026-01-20", "2026-01-18", "2026-01-11", "2026-01-04", "2026-01-01");
    }

    @Test
    void rulesAreIndependentAndAreUnited() {
        // Last 1: 02-09. Weekly 2: 02-09 (week 7), 02-08 (a Sunday, week 6). Monthly 2: 02-09, 01-31.
        assertThat(kept(new RetentionPolicy(1, 0, 0, 2, 2, 0, null), series(40)))
                .containsExactly("2026-02-09", "2026-02-08", "2026-01-31");
    }

    @Test
    void minusOneKeepsEveryPeriod() {
        assertThat(kept(new RetentionPolicy(0, 0, 0, 0, -1, 0, null), series(40)))
                .as("and the oldest, as a rule with counts left keeps it")
                .containsExactly("2026-02-09", "2026-01-31", "2026-01-01");
    }

    @Test
    void keepWithinCountsBackFromTheNewestSnapshot() {
        assertThat(kept(new RetentionPolicy(0, 0, 0, 0, 0, 0, RetentionPolicy.Within.parse("2d")), series(20)))
                .containsExactly("2026-01-20", "2026-01-19");
    }

    @Test
    void describesThePolicyAsResticDoes() {
        assertThat(new RetentionPolicy(0, 0, 7, 4, -1, 0, null).describe())
                .isEqualTo("keep 7 daily, 4 weekly, all monthly backups");
        assertThat(new RetentionPolicy(0, 0, 0, 0, 0, 0, null).empty()).isTrue();
    }
}
