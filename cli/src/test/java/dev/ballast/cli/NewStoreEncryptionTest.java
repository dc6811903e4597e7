package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.keys.KeyFiles;
import dev.ballast.storage.object.local.LocalObjectStore;
import dev.ballast.storage.object.local.LocalStoreConfig;
import dev.ballast.testkit.LeakCheck;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 22 item 2, encryption on by default: a {@code backup} into an empty store makes it an
 * encrypted repository first; without a password and without a terminal it is refused before anything
 * is written; {@code --insecure-no-encryption} keeps a new store of the earlier format, is refused on a
 * repository and changes nothing on a store already of the earlier format.
 */
@ExtendWith(LeakCheck.class)
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class NewStoreEncryptionTest extends InProcessCli {
    /** No password from anywhere: BALLAST_PASSWORD empty, no file or command variable; tests run on no terminal. */
    static final Map<String, String> NO_PASSWORD = Map.of("BALLAST_PASSWORD", "");

    Path store() {
        return data().resolve("ballast-backups");
    }

    Path source() throws Exception {
        Path src = Files.createDirectories(home.resolve("src"));
        Files.writeString(src.resolve("payroll-2026.csv"), "alice;90210\n".repeat(100));
        return src;
    }

    List<String> objects() {
        try (LocalObjectStore s = LocalObjectStore.open(
                store(), LocalStoreConfig.builder().readOnly(true).build())) {
            return s.list("");
        }
    }

    boolean isRepository() {
        try (LocalObjectStore s = LocalObjectStore.open(
                store(), LocalStoreConfig.builder().readOnly(true).build())) {
            return KeyFiles.isRepository(s);
        }
    }

    @Test
    void theFirstBackupIntoAnEmptyStoreMakesItAnEncryptedRepository() throws Exception {
        Path src = source();
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        assertThat(err())
                .containsPattern("Created the encrypted repository [0-9a-f]{64} in the local store " + store()
                        + "; keep the password safe: without it nothing in it can be read back\\.");
        assertThat(isRepository()).isTrue();
        assertThat(objects()).contains("config").noneMatch(k -> k.startsWith("src/") || k.contains("payroll"));

        // the same password opens it; another is exit 12; none is exit 2
        assertThat(run(at("restore", "src", home.resolve("r").toString())))
                .as(err())
                .isZero();
        assertThat(home.resolve("r/payroll-2026.csv")).hasSameTextualContentAs(src.resolve("payroll-2026.csv"));
        assertThat(run(Map.of("BALLAST_PASSWORD", "not it"), at("list"))).isEqualTo(ExitCodes.WRONG_PASSWORD);
        assertThat(run(NO_PASSWORD, at("backup", src.toString()))).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).startsWith("Error: No password was given: BALLAST_PASSWORD is set but empty,");

        // the second backup opens the repository: no second one is made
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        assertThat(err()).doesNotContain("Created the encrypted repository");
        assertThat(objects().stream().filter(k -> k.startsWith("keys/"))).hasSize(1);
    }

    @Test
    void withoutAPasswordAndWithoutATerminalANewStoreIsRefusedAndNothingIsWritten() throws Exception {
        Path src = source();
        assertThat(run(NO_PASSWORD, at("backup", src.toString()))).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .isEqualTo("Error: No password was given for the encrypted repository this first backup makes of the"
                        + " local store " + store() + ": BALLAST_PASSWORD is set but empty, and an empty password"
                        + " is refused; set it to the password, pass --password-file FILE or"
                        + " --password-command CMD, or run the command on a terminal to be asked (or pass"
                        + " --insecure-no-encryption to store it unencrypted, in the earlier format).\n");
        assertThat(out()).doesNotContain("Backing up");
        assertThat(data())
                .as("neither the data directory nor the store is created")
                .doesNotExist();
    }

    @Test
    void aPasswordFileOrCommandThatCannotBeReadRefusesTheFirstBackupAndNothingIsCreated() throws Exception {
        // field input: each of these left a store (index, lock, reserve) that then listed as empty, exit 0
        Path src = source();
        Path badUtf8 = Files.write(home.resolve("latin1.txt"), new byte[] {'p', (byte) 0xe9, '\n'});
        for (String[] given : List.of(
                new String[] {"--password-file", home.resolve("missing.txt").toString()},
                new String[] {"--password-command", "false"},
                new String[] {"--password-file", badUtf8.toString()})) {
            List<String> args = new java.util.ArrayList<>(List.of("backup", src.toString()));
            args.addAll(List.of(given));
            assertThat(run(NO_PASSWORD, at(args.toArray(String[]::new))))
                    .as(String.join(" ", given) + ": " + err())
                    .isEqualTo(ExitCodes.USAGE);
            assertThat(err()).startsWith("Error: The password ");
            assertThat(data()).as(String.join(" ", given) + ": nothing created").doesNotExist();
        }
    }

    @Test
    void aLocalStoreWhosePathIsNotUtf8IsRefusedBeforeAnythingIsMade() throws Exception {
        // field input: BALLAST_REPOSITORY=/tmp/hf-u\xff/st made a store in /tmp/hf-u\xEF\xBF\xBD/st, exit 0;
        // read byte for byte, SQLite could not open an index there after making the directory (exit 3)
        org.junit.jupiter.api.Assumptions.assumeTrue(dev.ballast.backup.tree.Names.exact());
        Path src = source();
        Path parent = dev.ballast.backup.tree.Names.path(
                home + "/" + dev.ballast.backup.tree.Names.decode(new byte[] {'u', (byte) 0xff}));
        Files.createDirectories(parent);
        Path store = parent.resolve("st");

        assertThat(run(Map.of(), "backup", src.toString(), "-r", dev.ballast.backup.tree.Names.name(store)))
                .as(err())
                .isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("is not valid UTF-8").contains("\\xFF/st");
        assertThat(store).doesNotExist();
    }

    @Test
    void optOutWritesTheEarlierFormatIntoAnEmptyStoreWithoutAPassword() throws Exception {
        Path src = source();
        assertThat(run(NO_PASSWORD, at("backup", src.toString(), "--insecure-no-encryption")))
                .as(err())
                .isZero();
        assertThat(err()).doesNotContain("Created the encrypted repository");
        assertThat(isRepository()).isFalse();
        assertThat(objects()).contains("src/payroll-2026.csv", "src/.ballast-manifest.json");

        // a store of the earlier format stays one: later backups, with or without the option, need no password
        Files.writeString(src.resolve("new.txt"), "new");
        assertThat(run(NO_PASSWORD, at("backup", src.toString()))).as(err()).isZero();
        assertThat(run(NO_PASSWORD, at("backup", src.toString(), "--insecure-no-encryption")))
                .as(err())
                .isZero();
        assertThat(isRepository()).isFalse();
        assertThat(objects()).contains("src/new.txt").doesNotContain("config");
        assertThat(run(NO_PASSWORD, at("restore", "src", home.resolve("r").toString())))
                .as(err())
                .isZero();
        assertThat(home.resolve("r/new.txt")).hasContent("new");
    }

    @Test
    void optOutOnAnEncryptedRepositoryIsRefusedInOneSentenceAndWritesNothing() throws Exception {
        Path src = source();
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        List<String> before = objects();

        Files.writeString(src.resolve("new.txt"), "new");
        assertThat(run(at("backup", src.toString(), "--insecure-no-encryption")))
                .isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .isEqualTo("Error: --insecure-no-encryption asks for the earlier, unencrypted format, but the local"
                        + " store " + store() + " is an encrypted repository, whose backups stay encrypted: leave the"
                        + " option out (its password opens it), or pass another --data-dir or --bucket for a new store"
                        + " of the earlier format.\n");
        assertThat(out()).doesNotContain("Backing up");
        assertThat(objects()).isEqualTo(before);
    }

    @Test
    void initStillMakesTheRepositoryAndTheFirstBackupThenUsesIt() throws Exception {
        assertThat(run(at("init"))).as(err()).isZero();
        String id = out().replaceAll("(?s).*Created the encrypted repository ([0-9a-f]{64}) .*", "$1");
        assertThat(run(at("backup", source().toString()))).as(err()).isZero();
        assertThat(err()).doesNotContain("Created the encrypted repository");
        assertThat(objects().stream().filter(k -> k.startsWith("keys/"))).hasSize(1);
        assertThat(id).hasSize(64);
    }

    @Test
    void otherWritingCommandsMakeNoRepositoryOfAnEmptyStore() throws Exception {
        // a store that does not exist is not found (exit 5), and not created
        assertThat(run(at("unlock"))).as(err()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(run(at("key", "add"))).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(store()).doesNotExist();
        // an empty store that exists stays empty
        try (LocalObjectStore s = LocalObjectStore.open(store())) {
            assertThat(s.list("")).isEmpty();
        }
        assertThat(run(at("unlock"))).as(err()).isZero();
        assertThat(run(at("key", "add"))).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(objects()).isEmpty();
    }

    @Test
    void backupHelpNamesTheOptOut() {
        assertThat(run("backup", "--help")).isZero();
        assertThat(out().replaceAll("\\s+", " "))
                .contains("--insecure-no-encryption")
                .contains("makes it an encrypted repository")
                .contains("Refused (exit 2) on an encrypted repository");
    }
}
