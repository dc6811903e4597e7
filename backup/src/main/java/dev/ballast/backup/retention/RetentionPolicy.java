package dev.ballast.backup.retention;

import dev.ballast.backup.Advice;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.IsoFields;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.ToLongFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Which backups {@code forget} keeps, with restic's policy semantics ({@code ApplyPolicy} in
 * restic's {@code snapshot_policy.go}, documented in restic's "Removing backup snapshots"):
 *
 * <ul>
 *   <li>Backups are taken newest first. {@code --keep-last n} keeps the {@code n} newest.
 *   <li>{@code --keep-hourly/daily/weekly/monthly/yearly n}: each rule walks the backups newest
 *       first and keeps a backup whenever its hour, day, ISO week, month or year (in local time)
 *       differs from that of the last backup the rule kept, until it has kept {@code n}: the newest
 *       backup of each of the {@code n} latest periods that have one.
 *   <li>A rule that still has counts left when it reaches the oldest backup keeps it too, so that
 *       as much history as asked for is kept ("oldest daily snapshot" and so on).
 *   <li>{@code -1} means unlimited: every period's newest backup.
 *   <li>{@code --keep-within 1y2m3d4h} keeps every backup made within that span before the newest
 *       backup (the newest not in the future).
 *   <li>The rules are independent: a backup is kept if any rule keeps it, and counts for each rule
 *       that keeps it.
 * </ul>
 *
 * Immutable and thread-safe. {@link #builder()} names each rule it sets; the rules not set keep
 * nothing (0):
 *
 * <pre>{@code
 * RetentionPolicy policy = RetentionPolicy.builder().last(3).daily(7).weekly(4).within("30d").build();
 * }</pre>
 *
 * @param last how many of the newest backups to keep (0: none by this rule, -1: all)
 * @param hourly newest backup of the last n hours that have one
 * @param daily newest of the last n days
 * @param weekly newest of the last n ISO weeks
 * @param monthly newest of the last n months
 * @param yearly newest of the last n years
 * @param within span before the newest backup within which every backup is kept, or null
 */
public record RetentionPolicy(
        int last,
        int hourly,
        int daily,
        int weekly,
        int monthly,
        int yearly,
        @Nullable Within within) {

    public RetentionPolicy {
        for (int n : new int[] {last, hourly, daily, weekly, monthly, yearly}) {
            if (n < -1) {
                throw new IllegalArgumentException(
                        Advice.KEEP_COUNT.text() + " must be -1 (unlimited), 0 or more but was " + n);
            }
        }
    }

    /** A builder with no rule set (every count 0, no span). */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this policy's rules, to change some of them. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.last = last;
        b.hourly = hourly;
        b.daily = daily;
        b.weekly = weekly;
        b.monthly = monthly;
        b.yearly = yearly;
        b.within = within;
        return b;
    }

    /**
     * Sets a policy's rules by name; each count is -1 (unlimited), 0 (the default: none by that rule) or
     * more, checked by {@link #build()}. Not thread-safe: one builder per thread.
     */
    public static final class Builder {
        private int last;
        private int hourly;
        private int daily;
        private int weekly;
        private int monthly;
        private int yearly;
        private @Nullable Within within;

        private Builder() {}

        /** Keep the {@code n} newest backups ({@code --keep-last}). */
        public Builder last(int n) {
            this.last = n;
            return this;
        }

        /** Keep the newest backup of each of the {@code n} latest hours that have one. */
        public Builder hourly(int n) {
            this.hourly = n;
            return this;
        }

        /** Keep the newest backup of each of the {@code n} latest days that have one. */
        public Builder daily(int n) {
            this.daily = n;
            return this;
        }

        /** Keep the newest backup of each of the {@code n} latest ISO weeks that have one. */
        public Builder weekly(int n) {
            this.weekly = n;
            return this;
        }

        /** Keep the newest backup of each of the {@code n} latest months that have one. */
        public Builder monthly(int n) {
            this.monthly = n;
            return this;
        }

        /** Keep the newest backup of each of the {@code n} latest years that have one. */
        public Builder yearly(int n) {
            this.yearly = n;
            return this;
        }

        /** Keep every backup made within {@code span} before the newest one, or none by this rule (null). */
        public Builder within(@Nullable Within span) {
            this.within = span;
            return this;
        }

        /**
         * Keep every backup made within {@code span} before the newest one.
         *
         * @param span years, months, days and hours, as {@code 1y2m3d4h}, {@code 30d} or {@code 12h}
         * @throws IllegalArgumentException if {@code span} is not of that form
         */
        public Builder within(String span) {
            return within(Within.parse(span));
        }

        /**
         * The policy.
         *
         * @throws IllegalArgumentException if a count is below -1
         */
        public RetentionPolicy build() {
            return new RetentionPolicy(last, hourly, daily, weekly, monthly, yearly, within);
        }
    }

    /** Whether no rule was given (then nothing would be kept: {@code forget} refuses such a policy). */
    public boolean empty() {
        return last == 0 && hourly == 0 && daily == 0 && weekly == 0 && monthly == 0 && yearly == 0 && within == null;
    }

    /** A span of years, months, days and hours, as restic's {@code --keep-within} takes it ({@code 1y2m3d4h}). */
    public record Within(int years, int months, int days, int hours, String text) {
        private static final Pattern FORM = Pattern.compile("(?:(\\d+)y)?(?:(\\d+)m)?(?:(\\d+)d)?(?:(\\d+)h)?");

        /**
         * @throws IllegalArgumentException if {@code text} is not of the form {@code 1y2m3d4h} (any part may be left out)
         */
        public static Within parse(String text) {
            Matcher m = FORM.matcher(text.trim().toLowerCase(Locale.ROOT));
            if (text.isBlank() || !m.matches()) {
                throw new IllegalArgumentException("'" + text + "' is not a span such as 1y2m3d4h, 30d or 12h");
            }
            return new Within(part(m, 1), part(m, 2), part(m, 3), part(m, 4), text.trim());
        }

        private static int part(Matcher m, int group) {
            return m.group(group) == null ? 0 : Integer.parseInt(m.group(group));
        }

        public Instant before(Instant newest, ZoneId zone) {
            return ZonedDateTime.ofInstant(newest, zone)
                    .minusYears(years)
                    .minusMonths(months)
                    .minusDays(days)
                    .minusHours(hours)
                    .toInstant();
        }
    }

    /** A backup the policy judges: an identifier and when it was made. */
    public record Snapshot<T>(T id, Instant time) {}

    /** The verdict on one backup: kept (with the reasons) or removed. */
    public record Decision<T>(Snapshot<T> snapshot, boolean keep, List<String> reasons) {}

    /** A human-readable summary, as restic prints it: "keep 3 daily, 2 weekly snapshots". */
    public String describe() {
        List<String> keeps = new ArrayList<>();
        add(keeps, last, "latest");
        add(keeps, hourly, "hourly");
        add(keeps, daily, "daily");
        add(keeps, weekly, "weekly");
        add(keeps, monthly, "monthly");
        add(keeps, yearly, "yearly");
        // "keep 1 latest backup", "keep 2 latest backups", "keep 1 latest, 1 daily backups" (as restic words it).
        boolean one = keeps.size() == 1 && keeps.get(0).startsWith("1 ");
        String s = keeps.isEmpty() ? "" : String.join(", ", keeps) + (one ? " backup" : " backups");
        if (within != null) {
            s += (s.isEmpty() ? "" : " and ") + "all backups within " + within.text() + " of the newest";
        }
        return "keep " + s;
    }

    private static void add(List<String> keeps, int n, String what) {
        if (n > 0) {
            keeps.add(n + " " + what);
        } else if (n == -1) {
            keeps.add("all " + what);
        }
    }

    /**
     * Applies the policy to {@code snapshots} (any order), in {@code zone}'s local time.
     *
     * @param now no backup later than this counts as the newest for {@code --keep-within}
     * @return a decision per backup, newest first
     */
    public <T> List<Decision<T>> apply(List<Snapshot<T>> snapshots, ZoneId zone, Instant now) {
        List<Snapshot<T>> list = new ArrayList<>(snapshots);
        list.sort(Comparator.comparing((Snapshot<T> s) -> s.time()).reversed());
        List<Decision<T>> decisions = new ArrayList<>();
        if (list.isEmpty()) {
            return decisions;
        }
        Rule[] rules = {
            new Rule(last, null, "last snapshot"),
            new Rule(
                    hourly,
                    t -> t.getYear() * 1_000_000L
                            + t.getMonthValue() * 10_000L
                            + t.getDayOfMonth() * 100L
                            + t.getHour(),
                    "hourly snapshot"),
            new Rule(
                    daily, t -> t.getYear() * 10_000L + t.getMonthValue() * 100L + t.getDayOfMonth(), "daily snapshot"),
            new Rule(
                    weekly,
                    t -> t.get(IsoFields.WEEK_BASED_YEAR) * 100L + t.get(IsoFields.WEEK_OF_WEEK_BASED_YEAR),
                    "weekly snapshot"),
            new Rule(monthly, t -> t.getYear() * 100L + t.getMonthValue(), "monthly snapshot"),
            new Rule(yearly, t -> (long) t.getYear(), "yearly snapshot"),
        };
        Instant withinFrom = null;
        if (within != null) {
            Instant newest = null;
            for (Snapshot<T> s : list) {
                if (!s.time().isAfter(now) && (newest == null || s.time().isAfter(newest))) {
                    newest = s.time();
                }
            }
            withinFrom = newest == null ? null : within.before(newest, zone);
        }
        for (int nr = 0; nr < list.size(); nr++) {
            Snapshot<T> cur = list.get(nr);
            ZonedDateTime local = ZonedDateTime.ofInstant(cur.time(), zone);
            List<String> reasons = new ArrayList<>();
            if (withinFrom != null && cur.time().isAfter(withinFrom)) {
                reasons.add("within " + within.text());
            }
            boolean oldest = nr == list.size() - 1;
            for (Rule r : rules) {
                if (r.count > 0 || r.count == -1) {
                    long val = r.bucket == null ? nr : r.bucket.applyAsLong(local);
                    if (val != r.lastValue || oldest) {
                        reasons.add(val == r.lastValue ? "oldest " + r.reason : r.reason);
                        r.lastValue = val;
                        if (r.count > 0) {
                            r.count--;
                        }
                    }
                }
            }
            decisions.add(new Decision<>(cur, !reasons.isEmpty(), List.copyOf(reasons)));
        }
        return decisions;
    }

    /** One counting rule while a policy is applied. */
    private static final class Rule {
        public int count;
        public final @Nullable ToLongFunction<ZonedDateTime> bucket;
        public final String reason;
        public long lastValue = Long.MIN_VALUE;

        public Rule(int count, @Nullable ToLongFunction<ZonedDateTime> bucket, String reason) {
            this.count = count;
            this.bucket = bucket;
            this.reason = reason;
        }
    }
}
