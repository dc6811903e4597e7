package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.ballast.backup.Cancellation;
import dev.ballast.backup.keys.Passwords;
import dev.ballast.testkit.LeakCheck;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Exit codes and messages of failures found before any store is opened, and of the default store's setup. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(LeakCheck.class)
class BallastTest {
    @TempDir
    Path home;

    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    final ByteArrayOutputStream err = new ByteArrayOutputStream();

    int run(String... args) {
        return run(Map.of(), args);
    }

    /** Whether a command ran with the harness's default password only, which stands for none (see InProcessCli). */
    private boolean defaultPasswordOnly;

    int run(Map<String, String> env, String... args) {
        defaultPasswordOnly |= InProcessCli.defaultPasswordOnly(env, args);
        CliContext ctx = new CliContext(
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                InProcessCli.withTestPassword(env),
                home,
                false,
                new Cancellation(),
                Clock.systemUTC(),
                Duration.ofSeconds(5),
                Duration.ofSeconds(1),
                p -> {});
        return Ballast.run(args, ctx);
    }

    /** Nothing was created for the default data directory: the input error was found first. */
    void assertNoStoreOpened() {
        assertThat(home.resolve(".ballast")).doesNotExist();
    }

    String err() {
        String printed = err.toString(StandardCharsets.UTF_8);
        return defaultPasswordOnly
                ? InProcessCli.UNUSED_PASSWORD_WARNING.matcher(printed).replaceAll("")
                : printed;
    }

    @Test
    void aResticUsersVariablesAreNamedWhenTheyAreWhatWasMeant() {
        // field input: RESTIC_REPOSITORY set, a first backup made a new store in the default place, exit 0
        assertThat(run(Map.of("RESTIC_REPOSITORY", "/srv/restic"), "list")).isNotZero();
        assertThat(err())
                .startsWith("Note: RESTIC_REPOSITORY is set, which is restic's; Ballast reads BALLAST_REPOSITORY"
                        + " (or -r), and without either uses its default store.\n");
        err.reset();
        run(
                Map.of("RESTIC_REPOSITORY", "/srv/restic"),
                "list",
                "--data-dir",
                home.resolve("d").toString());
        assertThat(err()).doesNotContain("RESTIC_REPOSITORY");
        err.reset();
        // a password: RESTIC_PASSWORD is named beside the ways Ballast reads one
        assertThat(run(Map.of("BALLAST_PASSWORD", "", "RESTIC_PASSWORD", "x"), "init"))
                .isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("BALLAST_PASSWORD is set but empty");
        err.reset();
        assertThat(Passwords.ways(Map.of("RESTIC_PASSWORD_FILE", "/p")))
                .endsWith("(RESTIC_PASSWORD_FILE is set, which is restic's: Ballast reads BALLAST_PASSWORD_FILE)");
    }

    @Test
    void helpListsEveryCommandAndTheExitCodes() {
        assertThat(run("--help")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("backup", "restore", "list", "ls", "verify", "versions", "Exit codes:", "130");
    }

    @Test
    void eachCommandsHelpExplainsTheCommonOptions() {
        for (String cmd : new String[] {"backup", "restore", "list", "ls", "verify", "versions"}) {
            out.reset();
            assertThat(run(cmd, "--help")).isZero();
            assertThat(out.toString(StandardCharsets.UTF_8))
                    .contains(
                            "--data-dir",
                            "--endpoint",
                            "--bucket",
                            "--region",
                            "path-style",
                            "--profile",
                            "--access-key",
                            "--secret-key",
                            "--timeout",
                            "--verbose",
                            "Exit codes:");
        }
    }

    @Test
    void everyHelpFormatsWithoutAWarning() {
        // An unescaped '%' in verify's help made picocli print "[picocli WARN] Could not format ..." three times.
        PrintStream systemErr = System.err;
        ByteArrayOutputStream warnings = new ByteArrayOutputStream();
        System.setErr(new PrintStream(warnings, true, StandardCharsets.UTF_8));
        try {
            for (String cmd :
                    new String[] {"backup", "restore", "list", "ls", "verify", "versions", "forget", "prune"}) {
                out.reset();
                assertThat(run(cmd, "--help")).isZero();
                assertThat(out.toString(StandardCharsets.UTF_8)).doesNotContain("%%");
            }
        } finally {
            System.setErr(systemErr);
        }
        assertThat(warnings.toString(StandardCharsets.UTF_8)).doesNotContain("WARN");
        assertThat(err()).doesNotContain("WARN");
    }

    @Test
    void aTildeInFrontOfTheDataDirectoryIsTheHomeDirectory() {
        // --data-dir=~/backups reaches the command unexpanded (the shell expands no ~ after '=').
        Path home = Path.of("/home/u");
        assertThat(StoreSession.withHome(Path.of("~/backups"), home)).isEqualTo(Path.of("/home/u/backups"));
        assertThat(StoreSession.withHome(Path.of("~"), home)).isEqualTo(home);
        assertThat(StoreSession.withHome(Path.of("a/~/b"), home)).isEqualTo(Path.of("a/~/b"));
        assertThat(StoreSession.withHome(Path.of("~other/x"), home)).isEqualTo(Path.of("~other/x"));
    }

    @Test
    void aRestoreNeverWritesIntoTheStoreItReads() throws IOException {
        // A backup holding a file named index.db, restored with --overwrite into the store's directory,
        // replaced the store's index: every backup in it was lost.
        Path src = Files.createDirectories(home.resolve("src"));
        Files.writeString(src.resolve("index.db"), "not a database");
        Files.createDirectories(src.resolve("ballast-backups"));
        Files.writeString(src.resolve("ballast-backups/index.db"), "not a database either");
        Path data = home.resolve("data");
        assertThat(run("backup", src.toString(), "--data-dir", data.toString())).isZero();
        Path store = data.resolve("ballast-backups");

        err.reset();
        assertThat(run("restore", "src", store.toString(), "--overwrite", "--data-dir", data.toString()))
                .isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("lies inside the local store this restore reads");
        assertThat(run("restore", "src", store.resolve("sub").toString(), "--data-dir", data.toString()))
                .isEqualTo(ExitCodes.USAGE);

        err.reset();
        assertThat(run("restore", "src", data.toString(), "--overwrite", "--data-dir", data.toString()))
                .isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("'ballast-backups/index.db' would be written into the local store", "--exclude");

        err.reset();
        assertThat(run("restore", "src", "", "--data-dir", data.toString())).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("TARGET-DIR is empty");

        out.reset();
        assertThat(run("list", "--data-dir", data.toString())).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("src");
        assertThat(run("restore", "src", home.resolve("out").toString(), "--data-dir", data.toString()))
                .isZero();
        assertThat(home.resolve("out/index.db")).hasContent("not a database");
    }

    @Test
    void aMissingDirectoryIsAUsageErrorInOneSentenceWithoutAStackTrace() {
        assertThat(run("backup", home.resolve("nope").toString())).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .contains("does not exist; pass the directory to back up.")
                .doesNotContain("Exception")
                .doesNotContain("\tat ");
        assertNoStoreOpened();
    }

    @Test
    void anEmptyDirectoryArgumentIsRefusedNotTakenForTheCurrentDirectory() {
        // Field input: `backup ""` backed up the current directory.
        assertThat(run("backup", "")).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("DIR is empty; pass the directory to back up");
        assertThat(err().lines().count()).isEqualTo(1);
        assertNoStoreOpened();
    }

    @Test
    void anUnusableBackupNameIsRefused() throws Exception {
        Path dir = Files.createDirectories(home.resolve("d"));
        assertThat(run("backup", dir.toString(), "--name", "a/b")).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("The backup name 'a/b' is not usable because it contains a slash");
        assertThat(err()).contains("pass --name with a name such as 'photos-2026'");
        assertThat(run("restore", ".ballast", dir.toString())).isEqualTo(ExitCodes.USAGE);
        assertNoStoreOpened();
    }

    @Test
    void aCommandReadingABackupAdvisesTheNameAsListShowsItNotAnOptionItDoesNotHave() {
        // A source path given where the backup's name goes: restore, ls, verify and forget have no --name.
        for (String[] args : List.of(
                new String[] {"restore", "/home/me/src", home.resolve("out").toString()},
                new String[] {"ls", "/home/me/src"},
                new String[] {"verify", "/home/me/src"},
                new String[] {"forget", "/home/me/src", "--keep-last", "3"})) {
            assertThat(run(args)).as(String.join(" ", args)).isEqualTo(ExitCodes.USAGE);
            assertThat(err())
                    .contains("The backup name '/home/me/src' is not usable because it contains a slash;"
                            + " pass a backup's name as 'ballast list' shows it.")
                    .doesNotContain("--name");
        }
        assertNoStoreOpened();
    }

    @Test
    void unknownOptionsMissingArgumentsAndBadKeysAreUsageErrors() {
        assertThat(run("backup", "--bogus")).isEqualTo(ExitCodes.USAGE);
        assertThat(run("restore", "only-name")).isEqualTo(ExitCodes.USAGE);
        assertThat(run("versions", "no-slash")).isEqualTo(ExitCodes.USAGE);
        assertThat(run("list", "--timeout", "soon")).isEqualTo(ExitCodes.USAGE);
        assertThat(run()).isEqualTo(ExitCodes.USAGE);
    }

    @Test
    void aValueThatCannotBeParsedIsOneSentenceNamingItAndWhatIsAcceptedWithoutTheUsageText() throws Exception {
        Path dir = Files.createDirectories(home.resolve("src"));
        String[][] inputs = {
            {"backup", dir.toString(), "--transfers", "abc"},
            {"list", "--timeout", "5"},
            {"list", "--timeout", "PTsoon"},
            {"list", "--endpoint", "not a url"},
            {"list", "--endpoint", "ftp://host/"},
            {"restore", "only-name"},
        };
        String[] expected = {
            "--transfers 'abc' is not a number of files to move at once; give a whole number from 1 to 64",
            "--timeout '5' is not a duration; give one like 30s, 2m, 1h30m, 500ms or PT30S.",
            "--timeout 'PTsoon' is not a duration",
            "--endpoint 'not a url' is not an S3 endpoint URL; give one like http://localhost:9000",
            "--endpoint 'ftp://host/' is not an S3 endpoint URL",
            "Missing the directory to restore into: pass it as 'ballast restore NAME TARGET-DIR [PATH...]'"
        };
        for (int i = 0; i < inputs.length; i++) {
            err.reset();
            assertThat(run(inputs[i])).as(String.join(" ", inputs[i])).isEqualTo(ExitCodes.USAGE);
            // a value's sentence says what the option takes; other mistakes point to --help
            if (!expected[i].startsWith("--") && !expected[i].startsWith("Missing")) {
                assertThat(err()).as(String.join(" ", inputs[i])).contains("--help' lists the accepted options.");
            }
            assertThat(err())
                    .as(String.join(" ", inputs[i]))
                    .startsWith("Error: ")
                    .contains(expected[i])
                    .doesNotContain("Usage:")
                    .doesNotContain("Exception")
                    .doesNotContain("\tat ");
            assertThat(err().lines().count()).as(String.join(" ", inputs[i])).isLessThanOrEqualTo(2);
        }
        assertNoStoreOpened();
    }

    /** Field input: a restic user's '--grace 1h30m' was refused; restic and Go write durations that way. */
    @Test
    void durationsAreWrittenAsResticAndGoWriteThem() {
        CommonOptions.DurationConverter timeout = new CommonOptions.DurationConverter();
        PruneCommand.GraceConverter grace = new PruneCommand.GraceConverter();
        java.util.Map<String, java.time.Duration> accepted = java.util.Map.of(
                "1h30m", java.time.Duration.ofMinutes(90),
                "1.5h", java.time.Duration.ofMinutes(90),
                "2m30s", java.time.Duration.ofSeconds(150),
                "500ms", java.time.Duration.ofMillis(500),
                "1m0.5s", java.time.Duration.ofMillis(60_500),
                "PT30S", java.time.Duration.ofSeconds(30),
                "30S", java.time.Duration.ofSeconds(30));
        accepted.forEach((text, d) -> {
            assertThat(timeout.convert(text)).as(text).isEqualTo(d);
            assertThat(grace.convert(text)).as(text).isEqualTo(d);
        });
        assertThat(grace.convert("0")).isZero();
        assertThat(grace.convert("0s")).isZero();
        for (String bad : new String[] {"1h30", "h", "", "30", "1h-5m", "1d", "1.h", "5 m"}) {
            assertThatThrownBy(() -> timeout.convert(bad))
                    .as(bad)
                    .hasMessage("'" + bad + "' is not a duration; give one like 30s, 2m, 1h30m, 500ms or PT30S");
            assertThatThrownBy(() -> grace.convert(bad)).as(bad).hasMessageContaining("is not a grace period");
        }
    }

    @Test
    void aMistypedCommandIsNamedWithTheCommandsAndTheClosestOne() {
        assertThat(run("bakup", "/tmp/x")).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .startsWith(
                        "Error: Unknown command 'bakup': pass one of init, backup, restore, list, ls, verify, check, versions, forget, prune, unlock, repair, key.")
                .contains("Did you mean 'ballast backup'?")
                .doesNotContain("Unmatched")
                .doesNotContain("Usage:");
    }

    /**
     * A README-only newcomer's: {@code self-update} was offered "ballast help or ballast backup", {@code
     * rewrite} "ballast restore or ballast init or ballast repair": words no slip of the keys away.
     */
    @Test
    void onlyACommandOrOptionASlipOfTheKeysAwayIsSuggested() {
        assertThat(run("self-update")).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).doesNotContain("Did you mean");
        err.reset();
        assertThat(run("rewrite", "x")).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).doesNotContain("Did you mean");
        err.reset();
        assertThat(run("restroe", "x", "y")).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("Did you mean 'ballast restore'?");
        err.reset();
        assertThat(run("backup", "--exclud", "x", "/tmp/x")).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("Did you mean '--exclude'?");
        assertThat(Ballast.editDistance("restroe", "restore")).isEqualTo(1);
    }

    /** A tester's: 'ballast key -r R bogus' said "'ballast key' takes no arguments; 'bogus' is one argument too many". */
    @Test
    void anUnknownSubcommandIsNamedWithTheCommandsSubcommands() {
        assertThat(run("key", "-r", home.resolve("r").toString(), "bogus")).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .isEqualTo("Error: Unknown subcommand 'bogus' of 'ballast key': pass one of list, add, remove ID,"
                        + " passwd.\n'ballast key --help' lists the accepted subcommands and options.\n");
        err.reset();
        assertThat(run("key", "passwrd")).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .startsWith("Error: Unknown subcommand 'passwrd' of 'ballast key': pass one of list, add, remove ID,"
                        + " passwd.")
                .contains("Did you mean 'ballast key passwd'?");
    }

    /** 'ballast key -r R -- list' said "Unknown subcommand 'list' ... Did you mean: key list?". */
    @Test
    void aSubcommandAfterDoubleDashIsSaidToBeAnArgumentWithWhatToType() {
        assertThat(again("key", "-r", home.resolve("r").toString(), "--", "list"))
                .isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .isEqualTo("Error: '--' ends the options, so 'list' after it was taken as an argument, which"
                        + " 'ballast key' does not take; leave out the '--' to run 'ballast key list' (its options"
                        + " may come before or after it).\n");
        assertThat(again("--", "list")).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .isEqualTo("Error: '--' ends the options, so 'list' after it was taken as an argument, which"
                        + " 'ballast' does not take; leave out the '--' to run 'ballast list' (its options may come"
                        + " before or after it).\n");
        // a word after '--' that names no subcommand is refused as before
        assertThat(again("key", "--", "bogus")).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).startsWith("Error: Unknown subcommand 'bogus' of 'ballast key'");
        assertNoStoreOpened();
    }

    /**
     * An option or a command typed after '--' is refused before anything runs: '--' made it an argument,
     * and 'prune -- --dry-run' pruned for real with '--dry-run' taken as a backup name.
     */
    @Test
    void anOptionOrCommandAfterDoubleDashIsRefusedBeforeTheCommandRuns() {
        String store = home.resolve("r").toString();
        assertThat(again("prune", "--grace", "0s", "-r", store, "--", "--dry-run"))
                .isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .isEqualTo("Error: '--' ends the options, so '--dry-run' after it was taken as an argument, not as"
                        + " the option --dry-run of 'ballast prune'; put the option before the '--'.\n");
        assertThat(again("restore", "src", "--", "--overwrite")).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .endsWith("put the option before the '--' (a path that is spelled like an option can be"
                        + " written ./--overwrite).\n");
        assertThat(again("ls", "-r", store, "--", "src", "--manifest-version=ab12cd34"))
                .isEqualTo(ExitCodes.USAGE);
        assertThat(err()).startsWith("Error: '--' ends the options, so '--manifest-version=ab12cd34' after it");
        for (String[] line :
                new String[][] {{"-r", store, "--", "list"}, {"--", "-r", store, "list"}, {"-v", "--", "list"}}) {
            assertThat(again(line)).as(String.join(" ", line)).isEqualTo(ExitCodes.USAGE);
            assertThat(err())
                    .as(String.join(" ", line))
                    .isEqualTo("Error: '--' ends the options, so 'list' after it was taken as an argument, which"
                            + " 'ballast' does not take; leave out the '--' to run 'ballast list' (its options may"
                            + " come before or after it).\n");
        }
        // a short option's spelling after '--' is the argument it spells: a directory named '-x' (its
        // backup name must then be given, as no new backup may be named with a leading '-')
        Path dashed = home.resolve("-x");
        try {
            java.nio.file.Files.createDirectories(dashed);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        assertThat(again("backup", "--", dashed.toString())).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("The backup name '-x' is not usable because it begins with '-'");
        assertThat(again("list", "--", "--help")).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).endsWith("put the option before the '--'.\n");
        assertNoStoreOpened();
        assertThat(home.resolve("r")).doesNotExist();
    }

    /** 'ballast list --version' printed nothing, exit 0, though every command's help lists --version. */
    @Test
    void everyCommandsVersionOptionPrintsTheVersion() {
        for (String[] line :
                new String[][] {{"list", "--version"}, {"backup", "-V"}, {"key", "--version"}, {"key", "list", "-V"}}) {
            assertThat(again(line)).as(String.join(" ", line)).isZero();
            assertThat(out()).as(String.join(" ", line)).isEqualTo("ballast 0.1.0\n");
        }
        assertNoStoreOpened();
    }

    /** 'ballast key remove' without an ID printed picocli's "Missing required parameter: 'ID'". */
    @Test
    void aMissingArgumentIsOneSentenceSayingWhatItIsAndHowToPassIt() {
        String[][] inputs = {
            {"key", "remove"},
            {"backup"},
            {"restore"},
            {"restore", "n"},
            {"ls"},
            {"verify"},
            {"forget"},
            {"versions"},
            {"repair"},
            {"ls", "src", "--manifest-version"},
            {"list", "-r"},
        };
        String[] expected = {
            "Missing the ID of the key to remove (its first characters are enough): pass it as 'ballast key remove"
                    + " ID'; 'ballast key list' lists the IDs.",
            "Missing the directory to back up: pass it as 'ballast backup DIR'.",
            "Missing the backup's name and the directory to restore into: pass them as 'ballast restore NAME"
                    + " TARGET-DIR [PATH...]'; 'ballast list' lists the names.",
            "Missing the directory to restore into: pass it as 'ballast restore NAME TARGET-DIR [PATH...]'.",
            "Missing the backup's name: pass it as 'ballast ls NAME'; 'ballast list' lists the names.",
            "Missing the backup's name: pass it as 'ballast verify NAME'; 'ballast list' lists the names.",
            "Missing the backup's name: pass it as 'ballast forget NAME'; 'ballast list' lists the names.",
            "Missing the backup's name and the file's path in it (e.g. jdk/lib/modules): pass it as 'ballast"
                    + " versions NAME/PATH'; 'ballast list' lists the names.",
            "Missing what to repair, 'index' or 'packs': pass it as 'ballast repair index|packs'.",
            "--manifest-version was given without its ID; pass it as --manifest-version ID.",
            "--repo was given without its REPO; pass it as --repo REPO.",
        };
        for (int i = 0; i < inputs.length; i++) {
            assertThat(again(inputs[i])).as(String.join(" ", inputs[i])).isEqualTo(ExitCodes.USAGE);
            assertThat(err()).as(String.join(" ", inputs[i])).isEqualTo("Error: " + expected[i] + "\n");
        }
        assertNoStoreOpened();
    }

    /** 'ballast key --help bogus' printed the help and exited 0. */
    @Test
    void anArgumentBesideHelpIsRefusedAsItIsWithoutHelp() {
        assertThat(again("key", "--help", "bogus")).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .isEqualTo("Error: Unknown subcommand 'bogus' of 'ballast key': pass one of list, add, remove ID,"
                        + " passwd.\n'ballast key --help' lists the accepted subcommands and options.\n");
        assertThat(again("list", "--help", "bogus")).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).startsWith("Error: 'ballast list' takes no arguments; 'bogus' is one argument too many.\n");
        for (String[] args : List.of(
                new String[] {"--help", "bogus"},
                new String[] {"key", "list", "--help", "bogus"},
                new String[] {"key", "remove", "-h", "a", "b"},
                new String[] {"restore", "--help", "--bogus"},
                new String[] {"check", "--version", "bogus"})) {
            assertThat(again(args)).as(String.join(" ", args)).isEqualTo(ExitCodes.USAGE);
            assertThat(out()).as(String.join(" ", args)).isEmpty();
            assertThat(err()).as(String.join(" ", args)).startsWith("Error: ").doesNotContain("Usage:");
        }
        // what the command takes still goes with --help
        assertThat(again("restore", "--help", "n", "t", "a/b")).isZero();
        assertThat(again("key", "--help", "list")).isZero();
        assertThat(out()).contains("Usage: ballast key ");
        assertNoStoreOpened();
    }

    /** {@link #run(String...)} with what the commands before it printed forgotten. */
    private int again(String... args) {
        out.reset();
        err.reset();
        return run(args);
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void resticsCommandsAndOptionsTypedOutOfHabitPointToTheirEquivalents() {
        assertThat(run("snapshots")).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .startsWith("Error: Unknown command 'snapshots': restic's 'snapshots' is 'ballast list' here")
                .doesNotContain("Did you mean");
        assertThat(run("version")).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("'ballast --version'").doesNotContain("Did you mean");
        assertThat(run("restore", "n", "--target", "/tmp/x")).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .contains("Error: Unknown option '--target': the target directory is restore's second argument");
        // A README-only restic user's: '--tag nightly' named 'nightly' an option too, '--exclude-if-present'
        // suggested --exclude, 'restore --verify' suggested --verbose.
        assertThat(run("backup", "/tmp", "--tag", "nightly")).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("Unknown option '--tag': there are no tags").doesNotContain("'nightly'");
        assertThat(run("backup", "/tmp", "--exclude-if-present", ".nobackup")).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("--exclude-caches leaves out a folder holding a CACHEDIR.TAG");
        assertThat(run("restore", "n", "/tmp/x", "--verify")).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("a restore always checks each chunk").doesNotContain("--verbose");
        assertThat(run("forget", "n", "--group-by", "host")).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("the snapshots of one backup name");
        assertThat(run("ls", "src", "0c087ff4")).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .contains(
                        "'0c087ff4' is one argument too many (a snapshot is chosen with --manifest-version 0c087ff4).");
        assertNoStoreOpened();
    }

    @Test
    void aSecondWriterIsToldAnotherBallastIsWritingNotThatAServerIsDown() throws Exception {
        Path dir = Files.createDirectories(home.resolve("src"));
        Files.writeString(dir.resolve("a.txt"), "a");
        assertThat(run("backup", dir.toString())).isZero();
        Path store = home.resolve(".ballast/ballast-backups");
        // Another process holds the store's writer lock (a POSIX record lock, as the JVM takes it).
        org.junit.jupiter.api.Assumptions.assumeTrue(
                new java.io.File("/usr/bin/python3").canExecute(), "needs python3");
        Process holder = new ProcessBuilder(
                        "/usr/bin/python3",
                        "-c",
                        "import fcntl,sys; f=open(sys.argv[1],'a'); fcntl.lockf(f, fcntl.LOCK_EX); print('locked', flush=True); "
                                + "sys.stdin.read()",
                        store.resolve("lock").toString())
                .redirectErrorStream(true)
                .start();
        try {
            assertThat(new String(holder.getInputStream().readNBytes(6), StandardCharsets.UTF_8))
                    .isEqualTo("locked");
            err.reset();
            assertThat(run("backup", dir.toString())).isEqualTo(ExitCodes.UNAVAILABLE);
            // one sentence, without "(run with --verbose to see the cause)": there is no more to see (a tester's)
            assertThat(err())
                    .isEqualTo("Error: Another ballast command is writing to the local store " + store
                            + "; wait for it to finish, then run this command again.\n");
        } finally {
            holder.destroyForcibly().waitFor();
        }
    }

    @Test
    void aSourceTreeHoldingTheStoreLeavesTheStoreOut() throws Exception {
        Path dir = Files.createDirectories(home.resolve("home"));
        Files.writeString(dir.resolve("notes.txt"), "notes");
        Path dataDir = dir.resolve(".ballast");

        for (int run = 0; run < 2; run++) {
            out.reset();
            err.reset();
            assertThat(run("backup", dir.toString(), "--data-dir", dataDir.toString()))
                    .as(err())
                    .isZero();
            assertThat(err()).contains(".ballast/ballast-backups/ (the store this backup is written to)");
        }
        Path target = home.resolve("restored");
        assertThat(run("restore", "home", target.toString(), "--data-dir", dataDir.toString()))
                .isZero();
        assertThat(target.resolve("notes.txt")).hasContent("notes");
        assertThat(target.resolve(".ballast/ballast-backups")).doesNotExist();
    }

    /**
     * Field input: {@code src/storelink -> STORE} backed up with --follow-symlinks into STORE stored the
     * store itself (its index.db, its -wal file, its packs), more with every run.
     */
    @Test
    void followingLinksTheStoreReachedThroughALinkIsLeftOutToo() throws Exception {
        Path src = Files.createDirectories(home.resolve("src"));
        Files.writeString(src.resolve("notes.txt"), "notes");
        Path dataDir = home.resolve("data");
        Files.createSymbolicLink(src.resolve("storelink"), dataDir);
        Files.createSymbolicLink(src.resolve("up"), Path.of("..")); // a folder above the store
        for (int run = 0; run < 2; run++) {
            err.reset();
            int code = run("backup", src.toString(), "--data-dir", dataDir.toString(), "--follow-symlinks");
            if (run == 1) {
                assertThat(code).as(err()).isIn(0, 1); // 'up' loops back to src: a loop, reported
                assertThat(err()).contains("storelink/ballast-backups/ (the store this backup is written to)");
            }
        }
        out.reset();
        assertThat(run("ls", "src", "--data-dir", dataDir.toString())).as(err()).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("notes.txt")
                .doesNotContain("index.db")
                .doesNotContain("reserve");
    }

    @Test
    void aNewLocalStoreIsReadableByItsOwnerOnly() throws Exception {
        Path dir = Files.createDirectories(home.resolve("src"));
        Files.writeString(dir.resolve("private.txt"), "secret");
        assertThat(run("backup", dir.toString())).isZero();
        assertThat(Files.getPosixFilePermissions(home.resolve(".ballast/ballast-backups")))
                .isEqualTo(java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
    }

    @Test
    void aStoreWhoseIndexWasLostIsAnIntegrityErrorNotAnEmptyStore() throws Exception {
        Path dir = Files.createDirectories(home.resolve("src"));
        Files.write(dir.resolve("big.bin"), new byte[200_000]);
        assertThat(run("backup", dir.toString())).isZero();
        Path store = home.resolve(".ballast/ballast-backups");
        try (var files = Files.list(store)) {
            for (Path f : files.filter(p -> p.getFileName().toString().startsWith("index.db"))
                    .toList()) {
                Files.delete(f);
            }
        }
        for (String[] args : new String[][] {
            {"list"},
            {"backup", dir.toString()},
            {"restore", "src", home.resolve("t").toString()}
        }) {
            err.reset();
            assertThat(run(args)).as(String.join(" ", args)).isEqualTo(ExitCodes.INTEGRITY);
            assertThat(err())
                    .contains("holds stored content but no index (" + store.resolve("index.db")
                            + ", which was deleted or lost)")
                    .contains("restore that directory from a copy");
        }
        assertThat(store.resolve("index.db")).doesNotExist();
        // Field input: a directory at the index's name was said to be "deleted or lost"
        Files.createDirectory(store.resolve("index.db"));
        err.reset();
        assertThat(run("list")).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(err())
                .contains("holds stored content but no index (" + store.resolve("index.db")
                        + ", where something other than a file stands)")
                .contains("run 'ballast repair index'");
    }

    @Test
    void lsListsEveryEntryOfABackupWithSizeTimeAndPathHardLinksAndSymbolicLinksIncluded() throws Exception {
        Path dir = Files.createDirectories(home.resolve("photos/2024"));
        Files.writeString(dir.resolve("a.jpg"), "12345");
        Files.writeString(home.resolve("photos/notes.txt"), "");
        java.time.Instant may = java.time.Instant.parse("2024-05-06T07:08:09Z");
        Files.setLastModifiedTime(dir.resolve("a.jpg"), java.nio.file.attribute.FileTime.from(may));
        Files.createLink(dir.resolve("b.jpg"), dir.resolve("a.jpg"));
        Files.createSymbolicLink(home.resolve("photos/latest"), Path.of("2024/a.jpg"));
        assertThat(run("backup", home.resolve("photos").toString())).isZero();
        out.reset();

        assertThat(run("ls", "photos")).isZero();
        List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines.get(0))
                .startsWith("Backup 'photos', manifest version ")
                .endsWith("UTC: 2 files, 5 bytes (and 1 hard link, 1 symbolic link, 1 directory)");
        int pathColumn = 12 + 2 + 19 + 2;
        // Which of the two names holds the content and which links to it is the order the walk met them in.
        assertThat(lines.get(1)).startsWith("Source: " + home.resolve("photos") + "  Host: ");
        List<String> paths = lines.subList(2, lines.size()).stream()
                .map(l -> l.substring(pathColumn))
                .toList();
        assertThat(paths)
                .isIn(
                        List.of(
                                "2024/",
                                "2024/a.jpg",
                                "2024/b.jpg  (hard link to 2024/a.jpg)",
                                "latest -> 2024/a.jpg",
                                "notes.txt"),
                        List.of(
                                "2024/",
                                "2024/a.jpg  (hard link to 2024/b.jpg)",
                                "2024/b.jpg",
                                "latest -> 2024/a.jpg",
                                "notes.txt"));
        assertThat(lines.subList(3, 5))
                .allSatisfy(l -> assertThat(l).startsWith("           5  2024-05-06 07:08:09  "));
        assertThat(lines.get(6)).startsWith("           0  ");

        err.reset();
        assertThat(run("ls", "nope")).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(err()).contains("There is no backup named 'nope'");
    }

    @Test
    void homeIsTheHomeVariableWhenItIsAnAbsolutePath() {
        assertThat(CliContext.home("/srv/backup-user")).isEqualTo(Path.of("/srv/backup-user"));
        assertThat(CliContext.home("relative/home")).isEqualTo(Path.of(System.getProperty("user.home")));
        assertThat(CliContext.home(null)).isEqualTo(Path.of(System.getProperty("user.home")));
    }

    @Test
    void aStoreWhoseIndexIsDamagedIsAnIntegrityErrorWithTheCauseOnlyWithVerbose() throws Exception {
        Path store = Files.createDirectories(home.resolve(".ballast/ballast-backups"));
        Files.writeString(store.resolve("index.db"), "not a database");

        assertThat(run("list")).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(err())
                .contains("Error: The index of the local store " + store + " is damaged")
                .contains("restore the store's directory from a copy")
                .contains("(run with --verbose")
                .doesNotContain("server")
                .doesNotContain("Cause:")
                .doesNotContain("\tat ");
        err.reset();
        assertThat(run("list", "--verbose")).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(err()).contains("Cause:");
    }

    /**
     * Field input: "(run with --verbose to see the cause)" followed an error whose sentence already held
     * the whole cause, and --verbose then showed nothing more. It is offered only where the cause says
     * more than the sentence (the damaged index above, a password command that cannot be started).
     */
    @Test
    void verboseIsOfferedOnlyWhereTheCauseSaysMoreThanTheSentence() {
        assertThat(run("init")).as(err()).isZero();
        Path missing = home.resolve("no-such-password-file");

        err.reset();
        assertThat(run("list", "--password-file", missing.toString())).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .isEqualTo("Error: The password file " + missing + " (--password-file) cannot be read (" + missing
                        + ": no such file or directory); pass a readable file whose first line is the password.\n");
        err.reset();
        assertThat(run("list", "--password-file", missing.toString(), "--verbose"))
                .isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("Cause: java.nio.file.NoSuchFileException: " + missing + "\n");

        String command = home.resolve("no-such-command").toString();
        err.reset();
        assertThat(run("list", "--password-command", command)).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .isEqualTo("Error: The password command '" + command + "' (--password-command) could not be started"
                        + " (error=2, No such file or directory); pass a command that exists and can be run.\n");
        // the cause (Cannot run program "...": error=2, ...) says no more: no pointer to --verbose (a README user's)
        err.reset();
        assertThat(run("list", "--password-command", command, "--verbose")).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("Cause: java.io.IOException: Cannot run program \"" + command + "\"");
    }

    @Test
    void readingCommandsOnAStoreThatDoesNotExistAreNotFoundAndCreateNothing() throws Exception {
        String missing = "Error: There is no local store at " + home.resolve(".ballast/ballast-backups")
                + " (no data directory " + home.resolve(".ballast")
                + "); check --data-dir and --bucket (the first backup into a store creates it).\n";
        String[][] commands = {
            {"list"},
            {"restore", "photos", home.resolve("out").toString()},
            {"ls", "photos"},
            {"verify", "photos"},
            {"versions", "photos/a.jpg"},
            {"forget", "photos", "--keep-last", "1"},
            {"forget", "photos", "--keep-last", "1", "--dry-run"},
            {"prune"},
            {"prune", "--dry-run"}
        };
        for (String[] command : commands) {
            err.reset();
            assertThat(run(command))
                    .as(String.join(" ", command) + ": " + err())
                    .isEqualTo(ExitCodes.NOT_FOUND);
            assertThat(err()).as(String.join(" ", command)).isEqualTo(missing);
            assertNoStoreOpened();
        }
        assertThat(out.toString(StandardCharsets.UTF_8)).doesNotContain("No backups");

        // a mistyped --bucket under a data directory that exists
        Path src = java.nio.file.Files.createDirectories(home.resolve("src"));
        java.nio.file.Files.writeString(src.resolve("a.txt"), "a");
        assertThat(run("backup", src.toString())).as(err()).isZero();
        err.reset();
        assertThat(run("list", "--bucket", "typo-bucket")).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(err())
                .isEqualTo("Error: There is no local store at " + home.resolve(".ballast/typo-bucket")
                        + " (no bucket 'typo-bucket' in the data directory); check --data-dir and --bucket (the first"
                        + " backup into a store creates it).\n");
        assertThat(home.resolve(".ballast/typo-bucket")).doesNotExist();

        // a backup name the repository does not hold: prune (which looks at every name of an encrypted
        // repository) pruned everything, exit 0, with a note
        err.reset();
        assertThat(run("prune", "photoz", "--dry-run")).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(err())
                .isEqualTo("Error: There is no backup named 'photoz' in the local store "
                        + home.resolve(".ballast/ballast-backups") + "; 'ballast list' shows the backups there.\n");
        // the same in a store of the earlier, unencrypted format, where prune does narrow to the names
        String earlier = home.resolve("earlier").toString();
        assertThat(run("backup", src.toString(), "--data-dir", earlier, "--insecure-no-encryption"))
                .as(err())
                .isZero();
        err.reset();
        assertThat(run("prune", "scr", "--data-dir", earlier)).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(err()).contains("There is no backup named 'scr' in the local store ");
        err.reset();
        assertThat(run("prune", "a/b")).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .contains("pass a backup's name as 'ballast list' shows it.")
                .doesNotContain("--name");
    }

    @Test
    void commandsThatWriteIntoAnExistingStoreFindAMissingOneMissingAndCreateNothing() throws Exception {
        // Only backup and init make a store: a mistyped --data-dir given to verify --repair, a key command,
        // unlock or repair packs is reported missing (exit 5), as the reading commands report it.
        Path src = Files.createDirectories(home.resolve("src"));
        Files.writeString(src.resolve("a.txt"), "a");
        Path newPassword = Files.writeString(home.resolve("new-password"), "another password\n");
        String[][] commands = {
            {"verify", "photos", "--repair", src.toString()},
            {"key", "list"},
            {"key", "add", "--new-password-file", newPassword.toString()},
            {"key", "passwd", "--new-password-file", newPassword.toString()},
            {"key", "remove", "0123abcd"},
            {"unlock", "--remove-all"},
            {"repair", "packs"},
            {"repair", "index"}
        };
        for (String[] command : commands) {
            err.reset();
            assertThat(run(command))
                    .as(String.join(" ", command) + ": " + err())
                    .isEqualTo(ExitCodes.NOT_FOUND);
            assertThat(err())
                    .as(String.join(" ", command))
                    .startsWith("Error: There is no local store at " + home.resolve(".ballast/ballast-backups"));
            assertNoStoreOpened();
        }
    }

    @Test
    void aDataDirectoryInTheOldEmbeddedServerLayoutIsToldWhatToDoInOneSentence() throws Exception {
        Files.createDirectories(home.resolve(".ballast/s3/ballast-backups"));
        Path dir = Files.createDirectories(home.resolve("src"));

        for (String[] args : new String[][] {
            {"list"},
            {"backup", dir.toString()},
            {"restore", "src", home.resolve("t").toString()}
        }) {
            err.reset();
            assertThat(run(args)).as(String.join(" ", args)).isEqualTo(ExitCodes.USAGE);
            assertThat(err().lines())
                    .singleElement()
                    .asString()
                    .contains(
                            "holds backups in the layout of the S3Mock server that earlier builds of ballast embedded")
                    .contains("move that directory aside (or pass another --data-dir)");
        }
        assertThat(home.resolve(".ballast/ballast-backups")).doesNotExist();
    }

    @Test
    void aBucketThatCannotBeADirectoryNameIsRefused() {
        assertThat(run("list", "--bucket", "../up")).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("The bucket name '../up' is not usable");
        assertNoStoreOpened();
    }

    @Test
    void aBucketNameS3RefusesIsOneSentenceNamingTheRulesBeforeAnyRequest() throws Exception {
        Path dir = Files.createDirectories(home.resolve("src"));
        assertThat(run("backup", dir.toString(), "--endpoint", "http://127.0.0.1:9", "--bucket", "e1"))
                .isEqualTo(ExitCodes.USAGE);
        assertThat(err().lines())
                .singleElement()
                .asString()
                .contains("The bucket name 'e1' is not usable: pass one (--bucket, or BUCKET in --repo s3:URL/BUCKET)"
                        + " of 3 to 63 lowercase letters");
        assertNoStoreOpened();
    }

    @Test
    void aNegativeOrHugeGraceAndAnEmptyDataDirAreRefusedBeforeTheStoreIsOpened() {
        for (String grace : new String[] {"-1h", "-5m", "99999999999999h", "PT-1H"}) {
            err.reset();
            assertThat(run("prune", "--grace", grace)).as(grace).isEqualTo(ExitCodes.USAGE);
            assertThat(err()).as(grace).contains("'" + grace + "'").contains("from 0s");
        }
        err.reset();
        assertThat(run("list", "--data-dir", "")).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("--data-dir is empty");
        assertNoStoreOpened();
    }

    @Test
    void aMaxUnusedOfNoneOfResticsFormsIsRefusedInOneSentenceBeforeTheStoreIsOpened() {
        for (String limit : new String[] {"5x", "-1%", "150%", "100%", "5 %", ""}) {
            for (String[] args : new String[][] {
                {"prune", "--max-unused", limit},
                {"forget", "src", "--keep-last", "1", "--prune", "--max-unused", limit}
            }) {
                err.reset();
                assertThat(run(args)).as(limit).isEqualTo(ExitCodes.USAGE);
                assertThat(err().lines().findFirst().orElseThrow())
                        .as(limit)
                        .isEqualTo("Error: --max-unused '" + limit + "' must be a"
                                + " percentage from 0% to below 100% (e.g. 5%), a number of bytes with or without k, m,"
                                + " g or t for KiB, MiB, GiB or TiB (e.g. 0, 500M), or unlimited.");
            }
        }
        assertNoStoreOpened();
    }

    @Test
    void aBadTransfersCountIsRefusedBeforeTheStoreIsOpened() throws Exception {
        Path dir = Files.createDirectories(home.resolve("src"));
        assertThat(run("backup", dir.toString(), "--transfers", "0")).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("--transfers '0' is not a number of files to move at once");
        assertNoStoreOpened();
    }

    @Test
    void theTimeoutOptionAcceptsShortForms() {
        CommonOptions.DurationConverter c = new CommonOptions.DurationConverter();
        assertThat(c.convert("30s")).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.convert("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(c.convert("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(c.convert("PT5S")).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void aMissingDirectoryAndAFileAreToldApart() throws Exception {
        assertThat(run(
                        "backup",
                        home.resolve("nope").toString(),
                        "--data-dir",
                        home.resolve("d").toString()))
                .isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("does not exist").doesNotContain("Exception");
        err.reset();
        Path file = Files.writeString(home.resolve("f.txt"), "x");
        assertThat(run(
                        "backup",
                        file.toString(),
                        "--data-dir",
                        home.resolve("d").toString()))
                .isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("is not a directory").doesNotContain("does not exist");
        assertThat(home.resolve("d")).doesNotExist();
    }

    @Test
    void aDataDirThatIsAFileIsAnInputErrorFoundBeforeTheStoreIsOpened() throws Exception {
        Path file = Files.writeString(home.resolve("data"), "x");
        for (String[] args : new String[][] {
            {"list"}, {"versions", "a/b"}, {"restore", "a", home.resolve("t").toString()}
        }) {
            err.reset();
            String[] all = java.util.stream.Stream.concat(
                            java.util.Arrays.stream(args),
                            java.util.stream.Stream.of(
                                    "--data-dir", file.resolve("sub").toString()))
                    .toArray(String[]::new);
            assertThat(run(all)).as(String.join(" ", args)).isEqualTo(ExitCodes.USAGE);
            assertThat(err())
                    .contains("The data directory", "cannot be used", "--data-dir")
                    .doesNotContain("Exception");
            // the cause (the path: Not a directory) is in the sentence: --verbose would add nothing
            assertThat(err().lines()).hasSize(1);
        }
    }

    /**
     * Field input: a restic user passed the store's own directory, as messages name it, to --data-dir
     * ('ballast backup SRC --data-dir /tmp/s1/store/ballast-backups'): the backup made a second, empty
     * repository inside the first and exited 0.
     */
    @Test
    void theStoresOwnDirectoryAsDataDirIsRefusedAndNamesTheDataDirToPass() throws Exception {
        Path src = Files.createDirectories(home.resolve("src"));
        Files.writeString(src.resolve("a.txt"), "a");
        Path data = home.resolve("data");
        assertThat(run("backup", src.toString(), "--data-dir", data.toString()))
                .as(err())
                .isZero();
        Path store = data.resolve("ballast-backups");
        for (String[] args : new String[][] {
            {"backup", src.toString()},
            {"list"},
            {"restore", "src", home.resolve("t").toString()},
            {"init"}
        }) {
            err.reset();
            String[] all = java.util.stream.Stream.concat(
                            java.util.Arrays.stream(args), java.util.stream.Stream.of("--data-dir", store.toString()))
                    .toArray(String[]::new);
            assertThat(run(all)).as(String.join(" ", args) + ": " + err()).isEqualTo(ExitCodes.USAGE);
            assertThat(err())
                    .isEqualTo("Error: The data directory '" + store + "' is itself a local store (the bucket"
                            + " 'ballast-backups' of the data directory '" + data + "'), so 'ballast-backups' in it"
                            + " would be a second store inside the first; pass --data-dir " + data
                            + " (nothing was created).\n");
            assertThat(store.resolve("ballast-backups")).doesNotExist();
        }
        // another bucket's directory names that bucket
        err.reset();
        assertThat(run("backup", src.toString(), "--data-dir", data.toString(), "--bucket", "other"))
                .as(err())
                .isZero();
        err.reset();
        assertThat(run("list", "--data-dir", data.resolve("other").toString())).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("pass --data-dir " + data + " --bucket other (nothing was created).");
        assertThat(run("list", "--data-dir", data.toString())).as(err()).isZero();
    }

    /**
     * Field input: a file named with the byte 0xFF and one named with the four characters {@code \xFF}
     * were listed alike by {@code ls}, and a name with a newline, as {@code ls} printed it, was "not in
     * the backup" for a restore.
     */
    @Test
    void namesListedAlikeNoMoreAndAPrintedNameRestoresWhatItWasPrintedFor() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(dev.ballast.backup.tree.Names.exact(), "names as bytes");
        Path src = Files.createDirectories(home.resolve("esc"));
        Files.writeString(src.resolve("bad\\xFF"), "letters");
        Files.writeString(
                dev.ballast.backup.tree.Names.resolve(
                        src, "bad" + dev.ballast.backup.tree.Names.decode(new byte[] {(byte) 0xFF})),
                "byte");
        Files.createDirectories(src.resolve("odd"));
        Files.writeString(src.resolve("odd/new\nline.txt"), "newline");
        assertThat(run("backup", src.toString(), "--data-dir", home.toString()))
                .as(err())
                .isZero();

        assertThat(run("ls", "esc", "--data-dir", home.toString())).as(err()).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("  bad\\xFF\n")
                .contains("  bad\\\\xFF\n")
                .contains("  odd/new\\u000Aline.txt\n");

        Path back = home.resolve("back");
        assertThat(run(
                        "restore",
                        "esc",
                        back.toString(),
                        "odd/new\\u000Aline.txt",
                        "bad\\\\xFF",
                        "--data-dir",
                        home.toString()))
                .as(err())
                .isZero();
        assertThat(back.resolve("odd/new\nline.txt")).hasContent("newline");
        // 'bad\\\\xFF' as ls printed it names the four characters' file, not the byte's; a name the backup
        // holds as it is typed is taken as it is ('bad\\xFF' restores the four characters' file too).
        assertThat(back.resolve("bad\\xFF")).hasContent("letters");
        try (java.util.stream.Stream<Path> top = Files.list(back)) {
            assertThat(top).hasSize(2);
        }
    }

    @Test
    void controlCharactersInAnInputAreShownEscapedOnOneLine() {
        assertThat(run("backup", home.resolve("no\nsuch\u001b[31m").toString(), "--data-dir", home.toString()))
                .isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("no\\u000Asuch\\u001B[31m").doesNotContain("\u001b");
        assertThat(err().lines()).hasSize(1);
    }

    @Test
    void aRestoreTargetBelowAFileIsAnInputErrorFoundBeforeTheStoreIsOpened() throws Exception {
        Path file = Files.writeString(home.resolve("f.txt"), "x");
        assertThat(run(
                        "restore",
                        "n",
                        file.resolve("sub/dir").toString(),
                        "--data-dir",
                        home.resolve("d").toString()))
                .isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .contains("cannot be created because '" + file + "' is not a directory")
                .doesNotContain("Exception");
        assertThat(home.resolve("d")).doesNotExist();
    }

    @Test
    void aLocalFileFailureNamesTheFileAndWhatWentWrong() {
        assertThat(Errors.describeIo(new java.nio.file.AccessDeniedException("/x/y")))
                .isEqualTo("/x/y: permission denied");
        assertThat(Errors.describeIo(new java.io.UncheckedIOException(new java.nio.file.NoSuchFileException("/gone"))))
                .isEqualTo("/gone: no such file or directory");
    }

    @Test
    void aTlsHandshakeFailureIsAnInputErrorThatPointsAtTheScheme() {
        var e = new dev.ballast.storage.StorageUnavailableException(
                null,
                "PUT failed",
                new java.io.IOException(
                        "wrapped", new javax.net.ssl.SSLException("Unrecognized SSL message, plaintext connection?")));
        CliFailure f = Errors.toFailure(e, "the S3 endpoint https://127.0.0.1:9000", "b");
        assertThat(f.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(f.getMessage()).contains("TLS handshake", "plaintext connection", "http://");
    }

    @Test
    void aSecretKeyOnTheCommandLineIsWarnedAboutInOneLineAndOnlyThen() {
        // no store there: the command ends not found (exit 5) after the warning, which is what is checked here
        assertThat(run("list", "--data-dir", home.resolve("d").toString())).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(err()).doesNotContain("Warning");
        err.reset();
        assertThat(run(
                        "list",
                        "--access-key",
                        "AK",
                        "--secret-key",
                        "s3cr3t",
                        "--data-dir",
                        home.resolve("d").toString()))
                .isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(err().lines())
                .first()
                .isEqualTo(
                        "Warning: --secret-key is visible to every local user in the "
                                + "process list; set AWS_SECRET_ACCESS_KEY or use a profile in ~/.aws/credentials (--profile) instead.");
        assertThat(err().lines().filter(l -> l.startsWith("Warning"))).hasSize(1);
        assertThat(err()).doesNotContain("s3cr3t");
    }

    @Test
    void theKeysOfAProfileAreTheOnesSentToTheEndpoint() throws Exception {
        Files.createDirectories(home.resolve(".aws"));
        Files.writeString(
                home.resolve(".aws/credentials"),
                "[default]\naws_access_key_id = AKDEFAULT\naws_secret_access_key = d\n"
                        + "[backup]\naws_access_key_id = AKBACKUP\naws_secret_access_key = b\n");
        List<String> authorizations = new CopyOnWriteArrayList<>();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            authorizations.add(String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")));
            exchange.getRequestBody().readAllBytes();
            byte[] body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>AccessDenied</Code>"
                            + "<Message>Access Denied</Message></Error>")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/xml");
            if ("HEAD".equals(exchange.getRequestMethod())) {
                exchange.sendResponseHeaders(403, -1);
            } else {
                exchange.sendResponseHeaders(403, body.length);
                exchange.getResponseBody().write(body);
            }
            exchange.close();
        });
        server.start();
        try {
            String endpoint = "http://127.0.0.1:" + server.getAddress().getPort();
            // given: AWS_PROFILE names the profile, the environment holds no keys
            assertThat(run(Map.of("AWS_PROFILE", "backup"), "list", "--endpoint", endpoint))
                    .isEqualTo(ExitCodes.USAGE);
            assertThat(err()).contains("refused the credentials").doesNotContain("Warning");
            assertThat(authorizations)
                    .isNotEmpty()
                    .allSatisfy(a -> assertThat(a).contains("Credential=AKBACKUP/"));
            // the environment's keys win over the implicit default profile
            authorizations.clear();
            assertThat(run(
                            Map.of("AWS_ACCESS_KEY_ID", "AKENV", "AWS_SECRET_ACCESS_KEY", "e"),
                            "list",
                            "--endpoint",
                            endpoint))
                    .isEqualTo(ExitCodes.USAGE);
            assertThat(authorizations)
                    .isNotEmpty()
                    .allSatisfy(a -> assertThat(a).contains("Credential=AKENV/"));
            // without either, the default profile
            authorizations.clear();
            assertThat(run("list", "--endpoint", endpoint)).isEqualTo(ExitCodes.USAGE);
            assertThat(authorizations)
                    .isNotEmpty()
                    .allSatisfy(a -> assertThat(a).contains("Credential=AKDEFAULT/"));
        } finally {
            server.stop(0);
        }
        assertNoStoreOpened();
    }
}
