package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.local.LocalObjectStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A new user's pass: a password given is never silently unused. A store holding only another
 * program's objects is new (it becomes an encrypted repository); one of the earlier format says on
 * every command that the password given is not used.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class SharedStoreTest extends InProcessCli {
    static final Map<String, String> NO_PASSWORD = NewStoreEncryptionTest.NO_PASSWORD;

    Path store() {
        return data().resolve("ballast-backups");
    }

    Path source() throws Exception {
        Path src = Files.createDirectories(home.resolve("src"));
        Files.writeString(src.resolve("payroll-2026.csv"), "alice;90210\n".repeat(100));
        return src;
    }

    java.util.List<String> objects() {
        try (LocalObjectStore s = LocalObjectStore.open(
                store(),
                dev.ballast.storage.object.local.LocalStoreConfig.builder()
                        .readOnly(true)
                        .build())) {
            return s.list("");
        }
    }

    boolean isRepository() {
        try (LocalObjectStore s = LocalObjectStore.open(
                store(),
                dev.ballast.storage.object.local.LocalStoreConfig.builder()
                        .readOnly(true)
                        .build())) {
            return dev.ballast.backup.keys.KeyFiles.isRepository(s);
        }
    }

    void putForeign(String key) {
        try (LocalObjectStore s = LocalObjectStore.open(store())) {
            s.put(key, ObjectContent.ofBytes("not ballast's".getBytes(StandardCharsets.UTF_8)));
        }
    }

    @Test
    void aStoreHoldingOnlyAnotherProgramsObjectsBecomesAnEncryptedRepository() throws Exception {
        Files.createDirectories(data());
        putForeign("other-app/data.txt");
        Path src = source();
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        assertThat(err()).contains("Created the encrypted repository");
        assertThat(isRepository()).isTrue();
        assertThat(objects())
                .contains("config", "other-app/data.txt")
                .noneMatch(k -> k.startsWith("src/") || k.contains("payroll"));
        assertThat(run(at("restore", "src", home.resolve("r").toString())))
                .as(err())
                .isZero();
        assertThat(home.resolve("r/payroll-2026.csv")).hasSameTextualContentAs(src.resolve("payroll-2026.csv"));
    }

    @Test
    void anotherProgramsObjectWhereARepositoryWritesIsRefusedAndNothingIsWritten() throws Exception {
        Files.createDirectories(data());
        putForeign("data/report.csv");
        assertThat(run(at("backup", source().toString()))).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .isEqualTo("Error: The store at " + store() + " holds 'data/report.csv', an object of another program"
                        + " where an encrypted repository keeps its own (config, keys/, data/, index/, snapshots/), so"
                        + " no repository is made there and nothing was written: pass another --bucket or"
                        + " --data-dir.\n");
        assertThat(objects()).containsExactly("data/report.csv");
    }

    static final String EARLIER_FORMAT_WARNING = "Warning: the local store %s is of the earlier, unencrypted format,"
            + " so the password given is not used and backups stored there stay unencrypted; for an encrypted"
            + " repository back up into a new store (another --data-dir or --bucket), or run 'ballast init' on an"
            + " empty one; leave the password out to silence this.\n";

    @Test
    void aPasswordGivenForAStoreOfTheEarlierFormatIsSaidToBeUnused() throws Exception {
        Path src = source();
        assertThat(run(NO_PASSWORD, at("backup", "--insecure-no-encryption", src.toString())))
                .as(err())
                .isZero();
        assertThat(err()).doesNotContain("Warning");
        String warning = String.format(EARLIER_FORMAT_WARNING, store());

        assertThat(run(Map.of("BALLAST_PASSWORD", "secret"), at("backup", src.toString())))
                .as(err())
                .isZero();
        assertThat(err()).startsWith(warning).containsOnlyOnce("Warning:");
        assertThat(isRepository()).isFalse();
        assertThat(run(Map.of("BALLAST_PASSWORD", "secret"), at("list")))
                .as(err())
                .isZero();
        assertThat(err()).isEqualTo(warning);
        Path pwFile = Files.writeString(home.resolve("pw"), "secret\n");
        assertThat(run(NO_PASSWORD, at("ls", "src", "--password-file", pwFile.toString())))
                .as(err())
                .isZero();
        assertThat(err()).isEqualTo(warning);

        // no password given: no warning
        assertThat(run(NO_PASSWORD, at("list"))).as(err()).isZero();
        assertThat(err()).isEmpty();
    }
}
