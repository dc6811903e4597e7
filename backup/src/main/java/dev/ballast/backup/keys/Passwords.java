package dev.ballast.backup.keys;

import dev.ballast.backup.BackupException;
import dev.ballast.backup.BackupException.Kind;
import dev.ballast.backup.Messages;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Where a repository's password comes from, as restic takes it: {@code --password-file FILE} (its
 * first line) or {@code --password-command CMD} (what the command prints), which may also be given
 * as {@code BALLAST_PASSWORD_FILE} / {@code BALLAST_PASSWORD_COMMAND}; else the environment variable
 * {@code BALLAST_PASSWORD}; else a prompt on the terminal (no echo). Never a command-line argument:
 * every local user can read those in the process list. With none of them, one sentence naming them.
 *
 * <p>Leading and trailing white space of a file's line and a command's output is dropped (restic
 * trims both). The command is split into words as a POSIX shell would split it (single and double
 * quotes, backslash escapes), then run directly, without a shell: no variables, globs, pipes or
 * redirections, as restic runs it; its standard error goes to this process's, its standard input is
 * empty.
 *
 * <p>Every failure is a {@link BackupException} of kind {@link Kind#INVALID_INPUT} (the CLI's exit
 * code 2) with one sentence. Returned arrays are the caller's to zero; the intermediate byte copies
 * made here are zeroed. Stateless and thread-safe.
 */
public final class Passwords {
    /** The password itself, as restic's {@code RESTIC_PASSWORD}. */
    public static final String ENV = "BALLAST_PASSWORD";

    /** A file whose first line is the password, as {@code --password-file}. */
    public static final String FILE_ENV = "BALLAST_PASSWORD_FILE";

    /** A command that prints the password, as {@code --password-command}. */
    public static final String COMMAND_ENV = "BALLAST_PASSWORD_COMMAND";

    private static final String WAYS = "set BALLAST_PASSWORD, pass --password-file FILE or --password-command"
            + " CMD (or set BALLAST_PASSWORD_FILE or BALLAST_PASSWORD_COMMAND, as a cron job would), or run the"
            + " command on a terminal to be asked";

    private Passwords() {}

    /** Reads a password from the terminal without echo; null when there is no terminal or input ended. */
    @FunctionalInterface
    public interface Prompt {
        /**
         * @param prompt what to show, e.g. {@code "Password: "}
         * @return what was typed, without the line end, or null at end of input
         */
        char @Nullable [] read(String prompt);
    }

    /**
     * The places a password may come from.
     *
     * @param file {@code --password-file}, or null ({@value Passwords#FILE_ENV} then)
     * @param command {@code --password-command}, or null ({@value Passwords#COMMAND_ENV} then)
     * @param env the environment
     * @param prompt the terminal, or null when there is none
     */
    public record Sources(
            @Nullable Path file,
            @Nullable String command,
            Map<String, String> env,
            @Nullable Prompt prompt) {
        /** Copies {@code env}. */
        public Sources {
            env = Map.copyOf(Objects.requireNonNull(env, "env"));
        }
    }

    /**
     * The password of an existing repository: from the file or command (option, else its environment
     * variable), else {@value #ENV}, else asked once on the terminal.
     *
     * @throws BackupException {@link Kind#INVALID_INPUT} if both a file and a command are given, the
     *     file cannot be read, the command fails or prints nothing, or no source gives a password
     */
    public static char[] current(Sources sources) {
        char[] given = given(sources);
        if (given != null) {
            return given;
        }
        if (sources.prompt() != null) {
            char[] typed = sources.prompt().read("Password for the repository: ");
            if (typed != null && typed.length > 0) {
                return typed;
            }
        }
        throw noPassword("No password was given", sources);
    }

    /**
     * Where {@link #current} takes the password from, for the advice of a wrong password: "the password
     * in --password-file FILE (its first line)", "the password --password-command 'CMD' prints" (or
     * the same of {@value #FILE_ENV} and {@value #COMMAND_ENV}), "the password in BALLAST_PASSWORD" or
     * "the password typed at the prompt"; null when there is none. Reads no file and runs no command.
     */
    public static @Nullable String source(Sources sources) {
        Named named = named(sources);
        if (named.file() != null) {
            return "the password in " + named.fileSource() + " " + named.file() + " (its first line)";
        }
        if (named.command() != null) {
            return "the password " + named.commandSource() + " '" + named.command() + "' prints";
        }
        if (!sources.env().getOrDefault(ENV, "").isEmpty()) {
            return "the password in " + ENV;
        }
        return sources.prompt() != null ? "the password typed at the prompt" : null;
    }

    /**
     * The password of an existing repository when a regular file ({@code --password-file}, else
     * {@value #FILE_ENV}) or {@value #ENV} gives it, as {@link #current} would read it; null where
     * {@link #current} would run a command, read a pipe or FIFO (which gives its bytes once), ask on the
     * terminal, or fail (it then fails with its own message when called). For reading the password before the store is opened, where that has no
     * side effect. Never throws.
     */
    public static char @Nullable [] withoutAsking(Sources sources) {
        boolean commandGiven = sources.command() != null
                || (sources.file() == null && blankToNull(sources.env().get(COMMAND_ENV)) != null);
        if (commandGiven) {
            return null;
        }
        try {
            String fileEnv = blankToNull(sources.env().get(FILE_ENV));
            Path file = sources.file() != null ? sources.file() : fileEnv != null ? Path.of(fileEnv) : null;
            if (file != null && !Files.isRegularFile(file)) {
                return null; // a pipe or FIFO (--password-file <(...)) gives its password once: to the open itself
            }
            return given(sources);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /**
     * That no source gave a password, saying so of an empty {@value #ENV} (set, as {@code
     * BALLAST_PASSWORD=} sets it, but empty: the empty password it stands for is refused).
     */
    private static BackupException noPassword(String first, Sources sources) {
        return new BackupException(Kind.INVALID_INPUT, first + ": " + ways(sources.env()) + ".");
    }

    /**
     * The ways to give a password, as a message's end (no full stop): "set BALLAST_PASSWORD, pass
     * --password-file FILE or --password-command CMD, or run the command on a terminal to be asked",
     * beginning with "BALLAST_PASSWORD is set but empty, and an empty password is refused" where
     * {@code env} sets it empty.
     */
    public static String ways(Map<String, String> env) {
        String value = env.get(ENV);
        if (value != null && value.isEmpty()) {
            return ENV + " is set but empty, and an empty password is refused; set it to the password, pass"
                    + " --password-file FILE or --password-command CMD, or run the command on a terminal to be"
                    + " asked";
        }
        for (String restic : List.of("RESTIC_PASSWORD", "RESTIC_PASSWORD_FILE", "RESTIC_PASSWORD_COMMAND")) {
            if (env.get(restic) != null && !env.get(restic).isEmpty()) {
                // a restic user's environment: say why it was not used
                return WAYS + " (" + restic + " is set, which is restic's: Ballast reads "
                        + restic.replace("RESTIC_", "BALLAST_") + ")";
            }
        }
        return WAYS;
    }

    /**
     * The password of a new repository ({@code init}): as {@link #current}, but on a terminal asked
     * twice, and never empty.
     *
     * @throws BackupException {@link Kind#INVALID_INPUT} as {@link #current}, or if the two typed
     *     passwords differ, or the password is empty
     */
    public static char[] forNewRepository(Sources sources) {
        char[] given = given(sources);
        if (given != null) {
            return given;
        }
        if (sources.prompt() != null) {
            return typedTwice(sources.prompt(), "Password for the new repository: ");
        }
        throw noPassword("No password was given for the new repository", sources);
    }

    /**
     * The new password of {@code key add} or {@code key passwd}: the first line of
     * {@code newPasswordFile} ({@code --new-password-file}), else typed twice on the terminal.
     *
     * @throws BackupException {@link Kind#INVALID_INPUT} if the file cannot be read or is empty, the
     *     two typed passwords differ, or there is neither file nor terminal
     */
    public static char[] forNewKey(@Nullable Path newPasswordFile, @Nullable Prompt prompt) {
        if (newPasswordFile != null) {
            return nonEmpty(
                    firstLine(newPasswordFile, "--new-password-file"), "--new-password-file " + newPasswordFile);
        }
        if (prompt != null) {
            return typedTwice(prompt, "New password: ");
        }
        throw new BackupException(
                Kind.INVALID_INPUT,
                "No new password was given: pass --new-password-file FILE, or run the command on a terminal to be"
                        + " asked.");
    }

    /**
     * Whether {@code sources} name any place a password could come from: a file or command (option or
     * its environment variable), a non-empty {@value #ENV}, or a terminal. Reads no file and runs no
     * command: a source named here may still fail or give an empty password when read. For a caller
     * that must refuse before doing anything when there is no password to be had.
     */
    public static boolean anyGiven(Sources sources) {
        return sources.file() != null
                || sources.command() != null
                || blankToNull(sources.env().get(FILE_ENV)) != null
                || blankToNull(sources.env().get(COMMAND_ENV)) != null
                || !sources.env().getOrDefault(ENV, "").isEmpty()
                || sources.prompt() != null;
    }

    /**
     * The password file and command the options name, else their environment variables (both null
     * when none), each with the name it was given by.
     */
    private record Named(
            @Nullable Path file,
            String fileSource,
            @Nullable String command,
            String commandSource) {}

    private static Named named(Sources sources) {
        if (sources.file() != null || sources.command() != null) {
            return new Named(sources.file(), "--password-file", sources.command(), "--password-command");
        }
        String fileEnv = blankToNull(sources.env().get(FILE_ENV));
        String commandEnv = blankToNull(sources.env().get(COMMAND_ENV));
        return new Named(fileEnv == null ? null : Path.of(fileEnv), FILE_ENV, commandEnv, COMMAND_ENV);
    }

    private static char @Nullable [] given(Sources sources) {
        Named named = named(sources);
        Path file = named.file();
        String command = named.command();
        String fileSource = named.fileSource();
        String commandSource = named.commandSource();
        if (file != null && command != null) {
            throw new BackupException(
                    Kind.INVALID_INPUT,
                    fileSource + " and " + commandSource + " both give a password; pass only one of them.");
        }
        if (file != null) {
            return nonEmpty(firstLine(file, fileSource), fileSource + " " + file);
        }
        if (command != null) {
            return nonEmpty(run(command, commandSource), commandSource + " '" + command + "'");
        }
        String env = sources.env().get(ENV);
        if (env != null && !env.isEmpty()) {
            return env.toCharArray();
        }
        return null;
    }

    private static char[] typedTwice(Prompt prompt, String question) {
        char[] first = prompt.read(question);
        if (first == null || first.length == 0) {
            throw new BackupException(Kind.INVALID_INPUT, "No password was typed; an empty password is not accepted.");
        }
        char[] second = prompt.read("Type it again: ");
        if (second == null || !Arrays.equals(first, second)) {
            Arrays.fill(first, '\0');
            if (second != null) {
                Arrays.fill(second, '\0');
            }
            throw new BackupException(
                    Kind.INVALID_INPUT, "The two passwords typed differ; nothing was changed, run the command again.");
        }
        Arrays.fill(second, '\0');
        return first;
    }

    private static char[] nonEmpty(char[] password, String source) {
        if (password.length == 0) {
            throw new BackupException(
                    Kind.INVALID_INPUT,
                    "The password from " + source + " is empty; an empty password is not accepted.");
        }
        return password;
    }

    /** The first line of {@code file}, white space around it dropped. */
    /** The most of a password file read: 64 KiB, in which its first line must end. */
    static final int MAX_FILE_BYTES = 64 * 1024;

    private static int indexOfNewline(byte[] bytes, int limit) {
        for (int i = 0; i < limit; i++) {
            if (bytes[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    static char[] firstLine(Path file, String source) {
        byte[] bytes;
        try (java.io.InputStream in = Files.newInputStream(file)) {
            // At most what a first line can be: a file of gigabytes (or /dev/zero) is not read whole.
            bytes = in.readNBytes(MAX_FILE_BYTES + 1);
        } catch (IOException e) {
            throw new BackupException(
                    Kind.INVALID_INPUT,
                    "The password file " + file + " (" + source + ") cannot be read (" + Messages.describeIo(e)
                            + "); pass a readable file whose first line is the password.",
                    e);
        }
        if (bytes.length > MAX_FILE_BYTES && indexOfNewline(bytes, MAX_FILE_BYTES) < 0) {
            Arrays.fill(bytes, (byte) 0);
            throw new BackupException(
                    Kind.INVALID_INPUT,
                    "The password file " + file + " (" + source + ") has a first line over " + MAX_FILE_BYTES / 1024
                            + " KiB; pass a file whose first line is the password.");
        }
        try {
            int end = 0;
            while (end < bytes.length && bytes[end] != '\n') {
                end++;
            }
            return trimmed(bytes, end, "the password file " + file);
        } finally {
            Arrays.fill(bytes, (byte) 0);
        }
    }

    /** The standard output of {@code command}, split into words and run without a shell, trimmed. */
    static char[] run(String command, String source) {
        List<String> words = split(command, source);
        Process process;
        try {
            process = new ProcessBuilder(words)
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
        } catch (IOException e) {
            throw new BackupException(
                    Kind.INVALID_INPUT,
                    "The password command '" + command + "' (" + source + ") could not be started ("
                            + Messages.describeIo(e) + "); pass a command that exists and can be run.",
                    e);
        }
        byte[] out = new byte[0];
        try (InputStream stdout = process.getInputStream()) {
            out = readAll(stdout);
            int status = process.waitFor();
            if (status != 0) {
                throw new BackupException(
                        Kind.INVALID_INPUT,
                        "The password command '" + command + "' (" + source + ") exited with status " + status
                                + "; run it alone to see why, then try again.");
            }
            char[] password = trimmed(out, out.length, "the output of the password command '" + command + "'");
            if (password.length == 0) {
                throw new BackupException(
                        Kind.INVALID_INPUT,
                        "The password command '" + command + "' (" + source + ") printed no password; it must"
                                + " print the password on its standard output.");
            }
            return password;
        } catch (IOException e) {
            throw new BackupException(
                    Kind.INVALID_INPUT,
                    "The output of the password command '" + command + "' could not be read (" + Messages.describeIo(e)
                            + ").",
                    e);
        } catch (InterruptedException e) {
            process.destroy();
            Thread.currentThread().interrupt();
            throw new BackupException(Kind.INCOMPLETE, "Interrupted while the password command '" + command + "' ran.");
        } finally {
            Arrays.fill(out, (byte) 0);
        }
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        byte[] chunk = new byte[256];
        int n;
        while ((n = in.read(chunk)) >= 0) {
            buffer.write(chunk, 0, n);
        }
        Arrays.fill(chunk, (byte) 0);
        return buffer.toByteArray();
    }

    /**
     * {@code command} as a POSIX shell splits it into words: white space separates them, single quotes
     * keep everything literally, double quotes keep everything but a backslash before {@code "} or
     * {@code \}, a backslash outside quotes keeps the next character. Nothing is expanded.
     */
    static List<String> split(String command, String source) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        for (int i = 0; i < command.length(); i++) {
            char c = command.charAt(i);
            if (c == '\'') {
                int end = command.indexOf('\'', i + 1);
                if (end < 0) {
                    throw unbalanced(command, source, "a single quote");
                }
                word.append(command, i + 1, end);
                i = end;
                inWord = true;
            } else if (c == '"') {
                int j = i + 1;
                for (; j < command.length() && command.charAt(j) != '"'; j++) {
                    char d = command.charAt(j);
                    if (d == '\\'
                            && j + 1 < command.length()
                            && (command.charAt(j + 1) == '"' || command.charAt(j + 1) == '\\')) {
                        d = command.charAt(++j);
                    }
                    word.append(d);
                }
                if (j >= command.length()) {
                    throw unbalanced(command, source, "a double quote");
                }
                i = j;
                inWord = true;
            } else if (c == '\\' && i + 1 < command.length()) {
                word.append(command.charAt(++i));
                inWord = true;
            } else if (Character.isWhitespace(c)) {
                if (inWord) {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
            } else {
                word.append(c);
                inWord = true;
            }
        }
        if (inWord) {
            words.add(word.toString());
        }
        if (words.isEmpty()) {
            throw new BackupException(
                    Kind.INVALID_INPUT,
                    source + " is empty; give a command that prints the password, such as 'pass" + " show backup'.");
        }
        return words;
    }

    private static BackupException unbalanced(String command, String source, String what) {
        return new BackupException(
                Kind.INVALID_INPUT,
                "The password command '" + command + "' (" + source + ") has " + what + " that is not closed; close"
                        + " it (the command is split into words as a shell would, then run without one).");
    }

    /** {@code bytes[0, end)} as UTF-8 without surrounding white space (a line's {@code \r} included). */
    private static char[] trimmed(byte[] bytes, int end, String what) {
        int start = 0;
        while (start < end && isSpace(bytes[start])) {
            start++;
        }
        while (end > start && isSpace(bytes[end - 1])) {
            end--;
        }
        CharBuffer chars;
        try {
            chars = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes, start, end - start));
        } catch (CharacterCodingException e) {
            throw new BackupException(
                    Kind.INVALID_INPUT, "The password in " + what + " is not valid UTF-8; give it as UTF-8 text.");
        }
        char[] out = Arrays.copyOfRange(chars.array(), chars.position(), chars.limit());
        Arrays.fill(chars.array(), '\0');
        return out;
    }

    private static boolean isSpace(byte b) {
        return b == ' ' || b == '\t' || b == '\r' || b == '\n' || b == 0x0B || b == '\f';
    }

    private static @Nullable String blankToNull(@Nullable String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
