package dev.ballast.backup.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.backup.BackupException;
import dev.ballast.backup.BackupException.Kind;
import dev.ballast.backup.keys.Passwords.Prompt;
import dev.ballast.backup.keys.Passwords.Sources;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PasswordsTest {
    @TempDir
    Path dir;

    static String s(char[] c) {
        return new String(c);
    }

    Path file(String content) throws Exception {
        Path f = dir.resolve("pw-" + content.hashCode());
        Files.writeString(f, content, StandardCharsets.UTF_8);
        return f;
    }

    /** A terminal that answers with {@code answers} in turn, and records the questions. */
    static final class ScriptedPrompt implements Prompt {
        final Deque<String> answers;
        final List<String> asked = new java.util.ArrayList<>();

        ScriptedPrompt(String... answers) {
            this.answers = new ArrayDeque<>(List.of(answers));
        }

        @Override
        public char[] read(String prompt) {
            asked.add(prompt);
            String a = answers.poll();
            return a == null ? null : a.toCharArray();
        }
    }

    @Test
    void anyGivenNamesEverySourceWithoutReadingOrRunningIt() {
        assertThat(Passwords.anyGiven(new Sources(null, null, Map.of(), null))).isFalse();
        assertThat(Passwords.anyGiven(new Sources(null, null, Map.of("BALLAST_PASSWORD", ""), null)))
                .as("an empty BALLAST_PASSWORD gives no password")
                .isFalse();
        assertThat(Passwords.anyGiven(new Sources(null, null, Map.of("BALLAST_PASSWORD_FILE", " "), null)))
                .isFalse();
        assertThat(Passwords.anyGiven(new Sources(null, null, Map.of("BALLAST_PASSWORD", "pw"), null)))
                .isTrue();
        // neither read nor run: a file that does not exist and a command that would fail still count as given
        assertThat(Passwords.anyGiven(new Sources(dir.resolve("absent"), null, Map.of(), null)))
                .isTrue();
        assertThat(Passwords.anyGiven(new Sources(null, "false", Map.of(), null)))
                .isTrue();
        assertThat(Passwords.anyGiven(new Sources(null, null, Map.of("BALLAST_PASSWORD_FILE", "/x"), null)))
                .isTrue();
        assertThat(Passwords.anyGiven(new Sources(null, null, Map.of("BALLAST_PASSWORD_COMMAND", "x"), null)))
                .isTrue();
        ScriptedPrompt terminal = new ScriptedPrompt();
        assertThat(Passwords.anyGiven(new Sources(null, null, Map.of(), terminal)))
                .isTrue();
        assertThat(terminal.asked).as("the terminal is not asked").isEmpty();
    }

    @Test
    void theEnvironmentVariable() {
        assertThat(s(Passwords.current(new Sources(null, null, Map.of("BALLAST_PASSWORD", "from env"), null))))
                .isEqualTo("from env");
    }

    @Test
    void theFirstLineOfTheFileTrimmedAsRestic() throws Exception {
        Path f = file("  s3cret pw \r\nsecond line\n");
        assertThat(s(Passwords.current(new Sources(f, null, Map.of(), null)))).isEqualTo("s3cret pw");
        assertThat(s(Passwords.current(new Sources(file("café"), null, Map.of(), null))))
                .isEqualTo("café");
    }

    @Test
    void theOutputOfTheCommandSplitAsAShellWouldButRunWithoutOne() {
        assertThat(s(Passwords.current(new Sources(null, "printf '%s\\n' 'two words'", Map.of(), null))))
                .isEqualTo("two words");
        // no shell: $HOME and the pipe are arguments, not expanded
        assertThat(s(Passwords.current(new Sources(null, "echo $HOME | x", Map.of(), null))))
                .isEqualTo("$HOME | x");
        assertThat(Passwords.split("a \"b \\\" c\" d\\ e ''", "--password-command"))
                .containsExactly("a", "b \" c", "d e", "");
    }

    @Test
    void fileAndCommandOptionsWinOverTheEnvironment() throws Exception {
        Map<String, String> env = Map.of("BALLAST_PASSWORD", "env");
        assertThat(s(Passwords.current(new Sources(file("file"), null, env, null))))
                .isEqualTo("file");
        assertThat(s(Passwords.current(new Sources(null, "echo command", env, null))))
                .isEqualTo("command");
        // BALLAST_PASSWORD_FILE and BALLAST_PASSWORD_COMMAND stand for the options, over BALLAST_PASSWORD
        Map<String, String> viaEnv = Map.of(
                "BALLAST_PASSWORD",
                "env",
                "BALLAST_PASSWORD_FILE",
                file("file env").toString());
        assertThat(s(Passwords.current(new Sources(null, null, viaEnv, null)))).isEqualTo("file env");
        // the option wins over the variable naming a file
        assertThat(s(Passwords.current(new Sources(null, "echo opt", viaEnv, null))))
                .isEqualTo("opt");
        // and any of them over the terminal, which is not asked
        ScriptedPrompt prompt = new ScriptedPrompt("typed");
        assertThat(s(Passwords.current(new Sources(null, null, env, prompt)))).isEqualTo("env");
        assertThat(prompt.asked).isEmpty();
    }

    /**
     * Field input: a wrong password typed at the prompt was told to check "(BALLAST_PASSWORD,
     * --password-file or --password-command)"; the advice names the place the password was taken from,
     * the one {@link Passwords#current} reads, without reading it.
     */
    @Test
    void theSourceNamedIsTheOneThePasswordIsTakenFrom() throws Exception {
        ScriptedPrompt terminal = new ScriptedPrompt("typed");
        assertThat(Passwords.source(new Sources(null, null, Map.of(), terminal)))
                .isEqualTo("the password typed at the prompt");
        assertThat(Passwords.source(new Sources(null, null, Map.of("BALLAST_PASSWORD", "env"), terminal)))
                .isEqualTo("the password in BALLAST_PASSWORD");
        // an empty BALLAST_PASSWORD is no password: the terminal is asked
        assertThat(Passwords.source(new Sources(null, null, Map.of("BALLAST_PASSWORD", ""), terminal)))
                .isEqualTo("the password typed at the prompt");
        Path f = file("file");
        assertThat(Passwords.source(new Sources(f, null, Map.of("BALLAST_PASSWORD", "env"), terminal)))
                .isEqualTo("the password in --password-file " + f + " (its first line)");
        assertThat(Passwords.source(new Sources(null, "pass show backup", Map.of(), terminal)))
                .isEqualTo("the password --password-command 'pass show backup' prints");
        assertThat(Passwords.source(new Sources(null, null, Map.of("BALLAST_PASSWORD_FILE", f.toString()), null)))
                .isEqualTo("the password in BALLAST_PASSWORD_FILE " + f + " (its first line)");
        assertThat(Passwords.source(new Sources(null, null, Map.of("BALLAST_PASSWORD_COMMAND", "echo x"), null)))
                .isEqualTo("the password BALLAST_PASSWORD_COMMAND 'echo x' prints");
        assertThat(Passwords.source(new Sources(null, null, Map.of(), null))).isNull();
        assertThat(terminal.asked).isEmpty();
    }

    @Test
    void bothFileAndCommandAreRefused() throws Exception {
        Path f = file("x");
        assertThatThrownBy(() -> Passwords.current(new Sources(f, "echo y", Map.of(), null)))
                .hasMessage("--password-file and --password-command both give a password; pass only one of them.");
    }

    @Test
    void theTerminalIsAskedLastOnceForAnOpenTwiceForANewRepository() {
        ScriptedPrompt once = new ScriptedPrompt("typed");
        assertThat(s(Passwords.current(new Sources(null, null, Map.of(), once))))
                .isEqualTo("typed");
        assertThat(once.asked).containsExactly("Password for the repository: ");

        ScriptedPrompt twice = new ScriptedPrompt("new", "new");
        assertThat(s(Passwords.forNewRepository(new Sources(null, null, Map.of(), twice))))
                .isEqualTo("new");
        assertThat(twice.asked).containsExactly("Password for the new repository: ", "Type it again: ");

        assertThatThrownBy(() -> Passwords.forNewRepository(
                        new Sources(null, null, Map.of(), new ScriptedPrompt("one", "other"))))
                .hasMessage("The two passwords typed differ; nothing was changed, run the command again.");
        assertThatThrownBy(() -> Passwords.forNewKey(null, new ScriptedPrompt("", "")))
                .hasMessageContaining("an empty password is not accepted");
    }

    @Test
    void noPasswordAndNoTerminalIsOneSentenceNamingTheWays() {
        assertThatThrownBy(() -> Passwords.current(new Sources(null, null, Map.of(), null)))
                .isInstanceOf(BackupException.class)
                .hasMessage("No password was given: set BALLAST_PASSWORD, pass --password-file FILE or"
                        + " --password-command CMD (or set BALLAST_PASSWORD_FILE or BALLAST_PASSWORD_COMMAND, as a"
                        + " cron job would), or run the command on a terminal to be asked.")
                .extracting(e -> ((BackupException) e).kind())
                .isEqualTo(Kind.INVALID_INPUT);
        // BALLAST_PASSWORD= (set, empty): said so, not "no password" (tester's finding)
        assertThatThrownBy(() -> Passwords.current(new Sources(null, null, Map.of("BALLAST_PASSWORD", ""), null)))
                .isInstanceOf(BackupException.class)
                .hasMessage("No password was given: BALLAST_PASSWORD is set but empty, and an empty password is"
                        + " refused; set it to the password, pass --password-file FILE or --password-command CMD,"
                        + " or run the command on a terminal to be asked.");
        assertThatThrownBy(
                        () -> Passwords.forNewRepository(new Sources(null, null, Map.of("BALLAST_PASSWORD", ""), null)))
                .hasMessageStartingWith(
                        "No password was given for the new repository: BALLAST_PASSWORD is set but empty");
        assertThatThrownBy(() -> Passwords.forNewKey(null, null))
                .hasMessage("No new password was given: pass --new-password-file FILE, or run the command on a"
                        + " terminal to be asked.");
    }

    @Test
    void aFailingOrSilentCommandAndAMissingFileAreOneSentence() {
        assertThatThrownBy(() -> Passwords.current(new Sources(null, "sh -c 'exit 3'", Map.of(), null)))
                .hasMessage("The password command 'sh -c 'exit 3'' (--password-command) exited with status 3; run it"
                        + " alone to see why, then try again.");
        assertThatThrownBy(() -> Passwords.current(new Sources(null, "true", Map.of(), null)))
                .hasMessage("The password command 'true' (--password-command) printed no password; it must print the"
                        + " password on its standard output.");
        assertThatThrownBy(() -> Passwords.current(new Sources(null, "/no/such/cmd", Map.of(), null)))
                .hasMessageStartingWith(
                        "The password command '/no/such/cmd' (--password-command) could not be" + " started");
        assertThatThrownBy(() -> Passwords.current(new Sources(null, "echo 'open", Map.of(), null)))
                .hasMessageContaining("has a single quote that is not closed");
        Path missing = dir.resolve("missing");
        assertThatThrownBy(() -> Passwords.current(new Sources(missing, null, Map.of(), null)))
                .hasMessageStartingWith("The password file " + missing + " (--password-file) cannot be read");
        assertThatThrownBy(() -> Passwords.forNewKey(dir.resolve("missing"), null))
                .hasMessageContaining("(--new-password-file) cannot be read");
    }

    @Test
    void anEmptyFileIsRefused() throws Exception {
        Path f = file("\n");
        assertThatThrownBy(() -> Passwords.current(new Sources(f, null, Map.of(), null)))
                .hasMessage("The password from --password-file " + f + " is empty; an empty password is not"
                        + " accepted.");
    }

    @Test
    void aPasswordFileWithoutALineEndInItsFirst64KiBIsRefusedWithoutReadingItWhole() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("pw");
        java.nio.file.Path huge = dir.resolve("huge");
        java.nio.file.Files.write(huge, new byte[Passwords.MAX_FILE_BYTES + 10]);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Passwords.firstLine(huge, "--password-file"))
                .isInstanceOf(dev.ballast.backup.BackupException.class)
                .hasMessage("The password file " + huge + " (--password-file) has a first line over 64 KiB; pass a"
                        + " file whose first line is the password.");
        java.nio.file.Path longFile = dir.resolve("long");
        byte[] content = new byte[Passwords.MAX_FILE_BYTES * 2];
        java.util.Arrays.fill(content, (byte) 'x');
        byte[] first = "secret\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        System.arraycopy(first, 0, content, 0, first.length);
        java.nio.file.Files.write(longFile, content);
        org.assertj.core.api.Assertions.assertThat(new String(Passwords.firstLine(longFile, "--password-file")))
                .isEqualTo("secret");
    }

    @Test
    void withoutAskingReadsAFileOrTheVariableButNeverRunsACommandOrAsks() throws Exception {
        java.nio.file.Path file = java.nio.file.Files.writeString(dir.resolve("pw"), "from-file\n");
        Passwords.Prompt terminal = prompt -> "typed".toCharArray();
        assertThat(Passwords.withoutAsking(new Sources(file, null, Map.of("BALLAST_PASSWORD", "env"), terminal)))
                .isEqualTo("from-file".toCharArray());
        assertThat(Passwords.withoutAsking(
                        new Sources(null, null, Map.of("BALLAST_PASSWORD_FILE", file.toString()), terminal)))
                .isEqualTo("from-file".toCharArray());
        assertThat(Passwords.withoutAsking(new Sources(null, null, Map.of("BALLAST_PASSWORD", "env"), terminal)))
                .isEqualTo("env".toCharArray());
        java.nio.file.Path ran = dir.resolve("ran");
        assertThat(Passwords.withoutAsking(
                        new Sources(null, "touch " + ran + "; echo pw", Map.of("BALLAST_PASSWORD", "env"), terminal)))
                .isNull();
        assertThat(Passwords.withoutAsking(new Sources(
                        null, null, Map.of("BALLAST_PASSWORD_COMMAND", "touch " + ran + "; echo pw"), terminal)))
                .isNull();
        assertThat(ran).doesNotExist();
        assertThat(Passwords.withoutAsking(new Sources(null, null, Map.of(), terminal)))
                .isNull();
        java.nio.file.Path fifo = dir.resolve("fifo");
        new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor();
        assertThat(Passwords.withoutAsking(new Sources(fifo, null, Map.of(), null)))
                .as("a FIFO gives its password once, to the open: never read ahead (this would hang)")
                .isNull();
        assertThat(Passwords.withoutAsking(
                        new Sources(null, null, Map.of("BALLAST_PASSWORD_FILE", fifo.toString()), null)))
                .isNull();
        assertThat(Passwords.withoutAsking(new Sources(dir.resolve("absent"), null, Map.of(), null)))
                .as("a file that cannot be read: the open reads it again and says why")
                .isNull();
    }
}
