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
}
