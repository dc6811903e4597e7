package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.testkit.LeakCheck;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import picocli.CommandLine;

/**
 * A value an option that takes a number, a duration, a size or a span does not accept is one sentence
 * naming the option, the value and what it takes, exit 2, before any store is opened (tester's
 * finding: picocli's "Invalid value for option '--transfers': 'abc' is not an int").
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
@ExtendWith(LeakCheck.class)
class OptionValuesTest extends InProcessCli {
    /** Every option of every command (nested ones too) whose value is a count, duration, size or span. */
    private List<String[]> valueOptions() {
        List<String[]> found = new ArrayList<>();
        collect(Ballast.commandLine(context(Map.of()), null), List.of(), found);
        return found;
    }

    private static void collect(CommandLine cl, List<String> words, List<String[]> found) {
        for (Map.Entry<String, CommandLine> sub : cl.getSubcommands().entrySet()) {
            List<String> path = new ArrayList<>(words);
            path.add(sub.getKey());
            for (CommandLine.Model.OptionSpec o :
                    sub.getValue().getCommandSpec().options()) {
                Class<?> type = o.type();
                boolean valued = type == int.class
                        || type == Integer.class
                        || type == long.class
                        || type == Duration.class
                        || type == dev.ballast.backup.pack.MaxUnused.class
                        || o.converters().length > 0 && o.converters()[0] instanceof OptionValues.SpanConverter
                        || o.converters().length > 0 && o.converters()[0] instanceof OptionValues.SubsetConverter;
                if (valued) {
                    List<String> args = new ArrayList<>(path);
                    args.add(o.longestName());
                    found.add(args.toArray(String[]::new));
                }
            }
            collect(sub.getValue(), path, found);
        }
    }

    @Test
    void everyCountDurationSizeOrSpanOptionRefusesAWordInOneSentenceNamingItAndWhatItTakes() {
        Set<String> names = new TreeSet<>();
        for (String[] option : valueOptions()) {
            String[] args = java.util.Arrays.copyOf(option, option.length + 1);
            args[option.length] = "abc";
            String name = option[option.length - 1];
            names.add(name);

            assertThat(run(args)).as(String.join(" ", args)).isEqualTo(ExitCodes.USAGE);

            assertThat(err().lines().toList())
                    .as(String.join(" ", args))
                    .singleElement()
                    .satisfies(line -> assertThat(line)
                            .startsWith("Error: " + name + " 'abc' ")
                            .containsAnyOf("; give ", ": pass ", " such as ", "e.g.")
                            .endsWith(".")
                            .doesNotContain("Invalid value", "an int", "--help"));
        }
        assertThat(names)
                .containsExactlyInAnyOrder(
                        "--transfers",
                        "--timeout",
                        "--grace",
                        "--max-unused",
                        "--keep-last",
                        "--keep-hourly",
                        "--keep-daily",
                        "--keep-weekly",
                        "--keep-monthly",
                        "--keep-yearly",
                        "--keep-within",
                        "--read-data-subset");
        assertThat(home.resolve(".ballast")).doesNotExist();
    }

    @Test
    void aValueOutOfAnOptionsRangeGetsTheSameSentenceForEachKindOfOption() {
        Map<String[], String> cases = Map.of(
                new String[] {"backup", "/nowhere", "--transfers", "0"},
                "Error: --transfers '0' is not a number of files to move at once; give a whole number from 1 to 64"
                        + " (default 4).",
                new String[] {"restore", "n", "/tmp/x", "--transfers", "99999999999"},
                "Error: --transfers '99999999999' is not a number of files to move at once; give a whole number from"
                        + " 1 to 64 (default 4).",
                new String[] {"forget", "n", "--keep-daily", "-3"},
                "Error: --keep-daily '-3' is not a number of backups to keep; give a whole number, 0 or more, or -1"
                        + " to keep every one.",
                new String[] {"forget", "n", "--keep-within", "2w"},
                "Error: --keep-within '2w' is not a span such as 1y2m3d4h, 30d or 12h.",
                new String[] {"list", "--timeout", "0s"},
                "Error: --timeout '0s' is not positive; give a duration above zero, like 30s.",
                new String[] {"prune", "--grace", "-1h"},
                "Error: --grace '-1h' is not a grace period; give one from 0s to 87840h, like 1h, 1h30m, 30m, 0s or"
                        + " PT1H.",
                new String[] {"prune", "--max-unused", "100%"},
                "Error: --max-unused '100%' must be a percentage from 0% to below 100% (e.g. 5%), a number of bytes"
                        + " with or without k, m, g or t for KiB, MiB, GiB or TiB (e.g. 0, 500M), or unlimited.",
                new String[] {"verify", "n", "--read-data-subset", "0/7"},
                "Error: --read-data-subset '0/7' must be n/t with 1 <= n <= t, e.g. 1/7.");
        cases.forEach((args, sentence) -> {
            assertThat(run(args)).as(String.join(" ", args)).isEqualTo(ExitCodes.USAGE);
            assertThat(err().lines().toList()).as(String.join(" ", args)).containsExactly(sentence);
        });
        assertThat(home.resolve(".ballast")).doesNotExist();
    }
}
