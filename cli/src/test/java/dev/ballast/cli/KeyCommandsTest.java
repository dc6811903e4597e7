package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.local.LocalObjectStore;
import dev.ballast.storage.object.local.LocalStoreConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code ballast init} and {@code ballast key ...} as a user runs them, on the local store, with the
 * default KDF parameters (each command that opens the repository pays one Argon2id derivation).
 */
class KeyCommandsTest extends InProcessCli {
    static final Pattern HEX64 = Pattern.compile("[0-9a-f]{64}");

    Path store() {
        return data().resolve("ballast-backups");
    }

    <T> T withStore(boolean write, Function<ObjectStore, T> f) {
        try (LocalObjectStore s = LocalObjectStore.open(
                store(), LocalStoreConfig.builder().readOnly(!write).build())) {
            return f.apply(s);
        }
    }

    Path passwordFile(String name, String password) throws Exception {
        Path f = home.resolve(name);
        Files.writeString(f, password + "\n");
        return f;
    }

    @Test
    void initCreatesAnEncryptedRepositoryAndSaysToKeepThePassword() {
        assertThat(run(at("init"))).as(err()).isZero();
        Matcher id = HEX64.matcher(out());
        assertThat(id.find()).as(out()).isTrue();
        assertThat(out())
                .startsWith("Created the encrypted repository " + id.group() + " in the local store " + store())
                .contains("Keep the password safe");
        List<String> objects = withStore(false, s -> s.list(""));
        assertThat(objects).hasSize(2).contains("config").anyMatch(k -> k.startsWith("keys/"));

        assertThat(run(at("init"))).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).startsWith("Error: The store at " + store() + " is already a repository");
    }

    @Test
    void initRefusesAStoreWithBackupsOfTheEarlierFormat() throws Exception {
        Path src = Files.createDirectories(home.resolve("src"));
        Files.writeString(src.resolve("a.txt"), "a");
        assertThat(run(at("backup", src.toString(), "--insecure-no-encryption")))
                .as(err())
                .isZero();
        assertThat(run(at("init"))).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .contains("already holds backups of the unencrypted format")
                .doesNotContain("Exception");
        // and such a store still needs no password
        assertThat(run(Map.of("BALLAST_PASSWORD", ""), at("list"))).as(err()).isZero();
    }

    @Test
    void aWrongPasswordIsExit12InOneSentenceAndWritesNothing() {
        assertThat(run(at("init"))).isZero();
        List<String> before = withStore(false, s -> s.list(""));
        assertThat(run(Map.of("BALLAST_PASSWORD", "not it"), at("list"))).isEqualTo(ExitCodes.WRONG_PASSWORD);
        assertThat(err())
                .isEqualTo("Error: No key of the repository at " + store() + " opens with the password given; check"
                        + " the password in BALLAST_PASSWORD.\n");
        assertThat(run(Map.of("BALLAST_PASSWORD", "not it"), at("key", "add"))).isEqualTo(ExitCodes.WRONG_PASSWORD);
        List<String> after = withStore(false, s -> s.list(""));
        assertThat(after).isEqualTo(before);
    }

    /**
     * Field input: a wrong password given by a file was told to check "(BALLAST_PASSWORD,
     * --password-file or --password-command)"; the advice names the one place the password came from.
     */
    @Test
    void aWrongPasswordIsToldToCheckThePlaceItCameFrom() throws Exception {
        assertThat(run(at("init"))).isZero();
        String wrong = "Error: No key of the repository at " + store() + " opens with the password given; check ";
        Path file = passwordFile("wrong.txt", "not it");

        assertThat(run(at("list", "--password-file", file.toString()))).isEqualTo(ExitCodes.WRONG_PASSWORD);
        assertThat(err()).isEqualTo(wrong + "the password in --password-file " + file + " (its first line).\n");

        assertThat(run(at("list", "--password-command", "echo not-it"))).isEqualTo(ExitCodes.WRONG_PASSWORD);
        assertThat(err()).isEqualTo(wrong + "the password --password-command 'echo not-it' prints.\n");

        assertThat(run(Map.of("BALLAST_PASSWORD_FILE", file.toString()), at("list")))
                .isEqualTo(ExitCodes.WRONG_PASSWORD);
        assertThat(err()).isEqualTo(wrong + "the password in BALLAST_PASSWORD_FILE " + file + " (its first line).\n");

        assertThat(run(Map.of("BALLAST_PASSWORD_COMMAND", "echo not-it"), at("list")))
                .isEqualTo(ExitCodes.WRONG_PASSWORD);
        assertThat(err()).isEqualTo(wrong + "the password BALLAST_PASSWORD_COMMAND 'echo not-it' prints.\n");
    }

    @Test
    void noKeyFilesIsExit12WithItsOwnSentence() {
        assertThat(run(at("init"))).isZero();
        withStore(true, s -> {
            s.list("keys/").forEach(s::delete);
            return null;
        });
        assertThat(run(at("list"))).isEqualTo(ExitCodes.WRONG_PASSWORD);
        assertThat(err())
                .startsWith("Error: The repository at " + store() + " has no key files (keys/ is empty or unreadable)")
                .doesNotContain("at dev.");
    }

    @Test
    void noPasswordAndNoTerminalIsExit2NamingTheWays() {
        assertThat(run(Map.of("BALLAST_PASSWORD", ""), at("init"))).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .isEqualTo("Error: No password was given for the new repository: BALLAST_PASSWORD is set but"
                        + " empty, and an empty password is refused; set it to the password, pass"
                        + " --password-file FILE or --password-command CMD, or run the command on a terminal to be"
                        + " asked.\n");
        assertThat(Files.exists(store())).as("nothing created").isFalse();
        assertThat(run(at("init"))).isZero();
        assertThat(run(Map.of("BALLAST_PASSWORD", ""), at("list"))).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).startsWith("Error: No password was given: BALLAST_PASSWORD is set but empty,");
    }

    @Test
    void passwordFileAndCommandOptionsWinOverTheEnvironment() throws Exception {
        Path file = passwordFile("pw", "from file");
        assertThat(run(at("init", "--password-file", file.toString())))
                .as(err())
                .isZero();
        // BALLAST_PASSWORD (the harness's) is not it, the file is
        assertThat(run(at("key", "list", "--password-file", file.toString())))
                .as(err())
                .isZero();
        assertThat(run(at("key", "list", "--password-command", "echo from file")))
                .as(err())
                .isZero();
        assertThat(run(at("key", "list"))).isEqualTo(ExitCodes.WRONG_PASSWORD);
        assertThat(run(at("key", "list", "--password-command", "false"))).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .isEqualTo("Error: The password command 'false' (--password-command) exited with status 1;"
                        + " run it alone to see why, then try again.\n");
    }

    @Test
    void keyAddListRemoveAndPasswd() throws Exception {
        assertThat(run(at("init"))).isZero();
        assertThat(run(at(
                        "key",
                        "add",
                        "--new-password-file",
                        passwordFile("second", "second pw").toString())))
                .as(err())
                .isZero();
        Matcher added = Pattern.compile("Added key ([0-9a-f]{8}) \\(([0-9a-f]{64})\\)\\.")
                .matcher(out());
        assertThat(added.find()).as(out()).isTrue();

        assertThat(run(at("key", "list"))).isZero();
        String user = System.getProperty("user.name");
        assertThat(out().lines().toList()).hasSize(4).satisfies(lines -> {
            assertThat(lines.get(0)).startsWith(" ID").contains("User", "Host", "Created (UTC)", "KDF");
            assertThat(lines.get(1)).matches("-+");
            assertThat(lines.stream().filter(l -> l.startsWith("*"))).hasSize(1);
            // oldest first; two keys added in the same second are in the order of their IDs
            assertThat(lines.subList(2, 4))
                    .filteredOn(l -> l.startsWith(" " + added.group(1)))
                    .singleElement()
                    .satisfies(l -> assertThat(l).contains(user, "argon2id 64 MiB t=1 p=4"));
        });
        String first = out().lines()
                .filter(l -> l.startsWith("*"))
                .findFirst()
                .orElseThrow()
                .substring(1, 9);

        // the key in use is not removed; with the second password the first one is
        assertThat(run(at("key", "remove", first))).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("is the key in use");
        Map<String, String> second = Map.of("BALLAST_PASSWORD", "second pw");
        byte[] removedKeyFile = withStore(false, (ObjectStore s) -> {
            String name = s.list("keys/" + first).get(0);
            try (var read = s.get(name)) {
                return read.readAllBytes();
            }
        });
        assertThat(filesHolding(removedKeyFile))
                .as("a key file is a file of its own in the local store")
                .hasSize(1);
        assertThat(run(second, at("key", "remove", first))).as(err()).isZero();
        assertThat(out()).startsWith("Removed key " + first + " (");
        assertThat(filesHolding(removedKeyFile))
                .as("the removed key file's bytes are in none of the local store's files")
                .isEmpty();
        assertThat(run(at("list"))).isEqualTo(ExitCodes.WRONG_PASSWORD);
        assertThat(run(second, at("key", "remove", "ffffffffff"))).isEqualTo(ExitCodes.NOT_FOUND);

        assertThat(run(
                        second,
                        at(
                                "key",
                                "passwd",
                                "--new-password-file",
                                passwordFile("third", "third").toString())))
                .as(err())
                .isZero();
        assertThat(out()).startsWith("Changed the password: key ").endsWith(" replaces key " + added.group(1) + ".\n");
        assertThat(run(second, at("list"))).isEqualTo(ExitCodes.WRONG_PASSWORD);
        assertThat(run(Map.of("BALLAST_PASSWORD", "third"), at("key", "list"))).isZero();
        assertThat(out().lines().filter(l -> l.matches("[ *][0-9a-f]{8} .*"))).hasSize(1);
    }

    @Test
    void keyCommandsOnAStoreThatIsNoRepositoryAreNotFound() throws Exception {
        // a store that does not exist is not found, and not created
        assertThat(run(at("key", "add"))).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(err()).startsWith("Error: There is no local store at " + store());
        assertThat(store()).doesNotExist();
        // an empty store: key commands make no repository of it
        assertThat(withStore(true, (ObjectStore s) -> s.list(""))).isEmpty();
        assertThat(run(at("key", "add"))).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(err()).startsWith("Error: There is no encrypted repository in the local store " + store());
        assertThat(withStore(false, (ObjectStore s) -> s.list(""))).isEmpty();

        Path src = Files.createDirectories(home.resolve("src"));
        Files.writeString(src.resolve("a.txt"), "a");
        assertThat(run(at("backup", src.toString(), "--insecure-no-encryption")))
                .isZero();
        assertThat(run(at("key", "list"))).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(err()).startsWith("Error: There is no encrypted repository in the local store " + store());
        assertThat(run(at("key", "add"))).isEqualTo(ExitCodes.NOT_FOUND);
    }

    @Test
    void aNewPasswordNeedsAFileOrATerminal() {
        assertThat(run(at("init"))).isZero();
        assertThat(run(at("key", "add"))).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .isEqualTo("Error: No new password was given: pass --new-password-file FILE, or run the command on a"
                        + " terminal to be asked.\n");
    }

    /** The files under the local store's directory whose bytes contain {@code bytes}. */
    List<Path> filesHolding(byte[] bytes) throws java.io.IOException {
        try (java.util.stream.Stream<Path> all = Files.walk(store())) {
            List<Path> holding = new java.util.ArrayList<>();
            for (Path f : all.filter(Files::isRegularFile).toList()) {
                byte[] content = Files.readAllBytes(f);
                for (int i = 0; i + bytes.length <= content.length; i++) {
                    if (java.util.Arrays.equals(content, i, i + bytes.length, bytes, 0, bytes.length)) {
                        holding.add(f);
                        break;
                    }
                }
            }
            return holding;
        }
    }

    /** The options a command line of {@code --data-dir data()} gives. */
    CommonOptions options() {
        CommonOptions o = new CommonOptions();
        o.dataDir = data();
        o.bucket = CommonOptions.DEFAULT_BUCKET;
        o.timeout = java.time.Duration.ofSeconds(30);
        return o;
    }

    CliContext context() {
        return context(Map.of());
    }

    @Test
    void aStoreWithBackupsOfTheEarlierFormatIsNeverMadeARepositoryAndHasNoMasterKey() throws Exception {
        Path src = Files.createDirectories(home.resolve("src"));
        Files.writeString(src.resolve("a.txt"), "a");
        assertThat(run(at("backup", src.toString(), "--insecure-no-encryption")))
                .isZero();
        try (StoreSession s = StoreSession.open(options(), context(), StoreSession.Access.WRITE, true)) {
            assertThat(s.masterKey())
                    .as("a store with backups is never made a repository")
                    .isNull();
        }
    }

    @Test
    void encryptingNewStoresMakesAnEmptyStoreARepositoryWithThePasswordGiven() {
        CommonOptions o = options();
        byte[] key;
        try (StoreSession s = StoreSession.open(o, context(), StoreSession.Access.WRITE, true)) {
            assertThat(s.masterKey()).isNotNull();
            key = s.masterKey().encoded();
        }
        assertThat(err.toString(java.nio.charset.StandardCharsets.UTF_8))
                .startsWith("Created the encrypted repository ");
        try (StoreSession s = StoreSession.open(options(), context(), StoreSession.Access.READ)) {
            assertThat(s.masterKey()).isNotNull();
            assertThat(s.masterKey().encoded()).isEqualTo(key);
            assertThat(s.repository().keyId()).hasSize(64);
        }
        assertThat(StoreSession.ENCRYPT_NEW_STORES)
                .as("the default since issue 22: a backup into an empty store makes it a repository")
                .isTrue();
    }

    @Test
    void helpListsExitCode12() {
        for (String[] cmd : new String[][] {{"init"}, {"key", "list"}, {"key", "remove"}, {"list"}, {"restore"}}) {
            String[] args = java.util.Arrays.copyOf(cmd, cmd.length + 1);
            args[cmd.length] = "--help";
            assertThat(run(args)).isZero();
            assertThat(out()).contains("--password-file", "--password-command", "Exit codes:");
            if (!cmd[0].equals("init")) {
                assertThat(out()).as(String.join(" ", cmd)).contains("  12   wrong password");
            }
        }
        assertThat(run("--help")).isZero();
        assertThat(out()).contains("init", "key", "  12   wrong password");
    }

    /** A damaged key file is a row of key list, with the command that removes it (a fault tester's). */
    @org.junit.jupiter.api.Test
    void aDamagedKeyFileIsARowOfTheTableNamingTheCommandThatRemovesIt() {
        String hex = "ea33215b2435b10147ddf2d7ef27dca49fd1fe2adcfd70930394ad96926a268d";
        String table = KeyCommand.ListKeys.table(java.util.List.of(
                new dev.ballast.backup.keys.KeyFiles.KeyInfo(
                        "47a796d2" + hex.substring(8),
                        java.time.Instant.parse("2026-12-05T07:10:27Z"),
                        "vm",
                        "root",
                        dev.ballast.backup.keys.KdfParameters.DEFAULT,
                        true),
                new dev.ballast.backup.keys.KeyFiles.KeyInfo(
                        hex, java.time.Instant.EPOCH, "", "", null, false, "its SHA-256 is not its name"),
                new dev.ballast.backup.keys.KeyFiles.KeyInfo(
                        "junk", java.time.Instant.EPOCH, "", "", null, false, "its SHA-256 is not its name")));
        org.assertj.core.api.Assertions.assertThat(table)
                .contains("*47a796d2  root  vm    2026-12-05 07:10:27  argon2id 64 MiB t=1 p=4\n")
                .contains(" ea33215b                                   damaged: its SHA-256 is not its name (ballast"
                        + " key remove ea33215b)\n")
                .contains(" junk                                       damaged: its SHA-256 is not its name (ballast"
                        + " key remove junk)");
    }
}
