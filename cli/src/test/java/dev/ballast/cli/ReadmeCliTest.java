package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.keys.Passwords;
import dev.ballast.backup.pack.MaxUnused;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the README tells a new user about the CLI is what the CLI reads: an S3 endpoint shown for the
 * CLI comes with the AWS key variables it takes (not only the {@code BALLAST_S3_*} variables of
 * {@code scripts/ceph-rgw.sh env}, which only the tests read), every password variable is named, and
 * what a backup does not keep is said.
 */
class ReadmeCliTest {
    static String readme() throws Exception {
        Path p = Path.of("..", "README.md");
        if (!Files.exists(p)) {
            p = Path.of("README.md");
        }
        return Files.readString(p);
    }

    /** The {@code ```sh} blocks of the README. */
    static List<String> shellBlocks(String md) {
        List<String> blocks = new ArrayList<>();
        var m = java.util.regex.Pattern.compile("(?ms)^```sh\\n(.*?)^```").matcher(md);
        while (m.find()) {
            blocks.add(m.group(1));
        }
        return blocks;
    }

    @Test
    void everyCliCommandWithAnEndpointHasTheKeysTheCliReads() throws Exception {
        List<String> cli = shellBlocks(readme()).stream()
                .filter(b -> b.lines().anyMatch(l -> l.startsWith("./ballast") && l.contains("--endpoint")))
                .toList();
        assertThat(cli).isNotEmpty();
        for (String block : cli) {
            assertThat(block)
                    .as("a block running the CLI on an endpoint")
                    .contains("AWS_ACCESS_KEY_ID=")
                    .contains("AWS_SECRET_ACCESS_KEY=");
        }
    }

    @Test
    void everyPasswordVariableIsNamedAndWhatIsNotKeptIsSaid() throws Exception {
        String md = readme();
        assertThat(md).contains(Passwords.ENV, Passwords.FILE_ENV, Passwords.COMMAND_ENV);
        assertThat(md.replaceAll("\\s+", " "))
                .contains("ACLs and extended attributes")
                .contains("are not kept")
                .contains("(docs/cli.md#file-metadata)");
    }

    @Test
    void theReadmeSaysPruneKeepsWhatIsWithinItsGraceWithTheDefaultTheCliHas() throws Exception {
        // Field input: a forget and prune right after a backup freed nothing, and the README did not say why.
        String md = readme().replaceAll("\\s+", " ");
        assertThat(md)
                .contains("`prune` never deletes what was written within its `--grace` period (default 1h) before it"
                        + " started")
                .contains("`--grace 0s` frees it at once, when no backup is running");
        assertThat(PruneCommand.class
                        .getDeclaredField("grace")
                        .getAnnotation(picocli.CommandLine.Option.class)
                        .defaultValue())
                .isEqualTo("1h");
        assertThat(md).contains("`--max-unused` (default " + MaxUnused.DEFAULT + ", as restic's)");
    }
}
