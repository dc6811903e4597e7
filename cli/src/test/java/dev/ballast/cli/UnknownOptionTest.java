package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.testkit.LeakCheck;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** An option no command takes: named alone, never the arguments after it. */
@ExtendWith(LeakCheck.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UnknownOptionTest extends InProcessCli {

    /**
     * Field input (a README-only newcomer): {@code ballast backup --compression max /tmp/nb1-work/ex} said
     * "Unknown options: '--compression', '/tmp/nb1-work/ex'", as did {@code list --latest 1} and {@code
     * forget --keep-tag x}, as if the directory or the value were options too.
     */
    @Test
    void onlyTheOptionsAreNamedNotTheArgumentsAfterThem() {
        assertThat(run("backup", "--compression", "max", "/tmp/nb1-work/ex")).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .startsWith("Error: Unknown option '--compression'.")
                .doesNotContain("/tmp/nb1-work/ex")
                .doesNotContain("'max'")
                .contains("'ballast backup --help' lists the accepted options.");

        assertThat(run("list", "--latest", "1")).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).startsWith("Error: Unknown option '--latest'.").doesNotContain("'1'");

        assertThat(run("forget", "n", "--keep-tag", "x", "--keep-hostname", "h"))
                .isEqualTo(ExitCodes.USAGE);
        assertThat(err()).startsWith("Error: Unknown options '--keep-tag', '--keep-hostname'.");
    }

    /**
     * Field input (a README-only newcomer): {@code echo hi | ballast backup --stdin} said "Missing the
     * directory to back up" and never that {@code --stdin} is no option; with a directory it did.
     */
    @Test
    void anUnknownOptionIsNamedBeforeAMissingArgument() {
        assertThat(run("backup", "--stdin")).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .startsWith("Error: Unknown option '--stdin'.")
                .doesNotContain("Missing")
                .contains("'ballast backup --help' lists the accepted options.");

        assertThat(run("restore", "n", "--bogus=1", "-q")).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).startsWith("Error: Unknown option '--bogus=1'.");
        // restic's own options keep their hint on this path too
        assertThat(run("restore", "n", "--target=/tmp/x")).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).startsWith("Error: Unknown option '--target=/tmp/x': ");

        // options it knows, a short one with its value attached included, leave the missing argument named
        assertThat(run("backup", "-q", "-rREPO")).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).startsWith("Error: Missing the directory to back up");
    }
}
