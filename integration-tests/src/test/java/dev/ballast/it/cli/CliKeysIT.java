package dev.ballast.it.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.cli.ExitCodes;
import dev.ballast.it.cli.CliHarness.Run;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.VersionEntry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An encrypted repository made by {@code ballast init} on the local store and on an S3 endpoint
 * (S3Mock): a wrong password, a repository without key files and a damaged {@code config} are each
 * one sentence and their exit code, and nothing is written; keys are added and removed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CliKeysIT extends CliOnBothStores {
    /** A store of its own per test and kind (init needs an empty one). */
    static List<String> storeArgs(Store store, String name) {
        return store == Store.LOCAL
                ? List.of("--data-dir", base.resolve("keys-" + name).toString())
                : List.of(
                        "--endpoint",
                        s3.uri().toString(),
                        "--bucket",
                        "keys-" + name,
                        "--access-key",
                        "ballast",
                        "--secret-key",
                        "ballast",
                        "--timeout",
                        "20s");
    }

    static StorageFacade open(Store store, String name) {
        return store == Store.LOCAL
                ? StorageFacade.newBuilder()
                        .localObjects(base.resolve("keys-" + name).resolve("ballast-backups"))
                        .build()
                : CliHarness.facade(s3.uri(), "keys-" + name);
    }

    static Run ballast(Store store, String name, Map<String, String> env, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(storeArgs(store, name));
        if (env.isEmpty()) {
            return CliHarness.run(base.resolve("home"), p -> {}, all.toArray(String[]::new));
        }
        // the password options stand in for the environment here: the harness sets BALLAST_PASSWORD itself
        all.addAll(List.of("--password-command", "printf %s " + env.get("BALLAST_PASSWORD")));
        return CliHarness.run(base.resolve("home"), p -> {}, all.toArray(String[]::new));
    }

    static List<VersionEntry> everything(Store store, String name) {
        try (StorageFacade f = open(store, name)) {
            return f.objects().listVersions("");
        }
    }

    @ParameterizedTest
    @EnumSource(Store.class)
    void aWrongPasswordIsExit12AndWritesNothing(Store store) {
        String name = "wrong-" + store.name().toLowerCase();
        assertThat(ballast(store, name, Map.of(), "init").exitCode()).isEqualTo(ExitCodes.OK);
        List<VersionEntry> before = everything(store, name);
        assertThat(before).extracting(VersionEntry::key).contains("config").hasSize(2);

        Run wrong = ballast(store, name, Map.of("BALLAST_PASSWORD", "wrong"), "list");
        assertThat(wrong.exitCode()).isEqualTo(ExitCodes.WRONG_PASSWORD);
        assertThat(wrong.err())
                .contains("Error: No key of the repository at ")
                .contains("opens with the password given")
                .doesNotContain("Exception");
        assertThat(ballast(store, name, Map.of("BALLAST_PASSWORD", "wrong"), "key", "add")
                        .exitCode())
                .isEqualTo(ExitCodes.WRONG_PASSWORD);
        assertThat(everything(store, name)).isEqualTo(before);
        assertThat(ballast(store, name, Map.of(), "list").exitCode()).isEqualTo(ExitCodes.OK);
    }

    @ParameterizedTest
    @EnumSource(Store.class)
    void noKeyFilesIsExit12AndADamagedConfigExit4NamingIt(Store store) {
        String name = "damage-" + store.name().toLowerCase();
        assertThat(ballast(store, name, Map.of(), "init").exitCode()).isEqualTo(ExitCodes.OK);
        byte[] config;
        List<String> keyFiles;
        try (StorageFacade f = open(store, name)) {
            try (ObjectRead r = f.objects().get("config")) {
                config = r.readAllBytes();
            }
            keyFiles = f.objects().list("keys/");
            config[config.length / 2] ^= 1;
            f.objects().put("config", ObjectContent.ofBytes(config));
        }
        Run damaged = ballast(store, name, Map.of(), "key", "list");
        assertThat(damaged.exitCode()).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(damaged.err())
                .contains("The object 'config' of the repository at ")
                .contains("is damaged");

        try (StorageFacade f = open(store, name)) {
            keyFiles.forEach(f.objects()::delete);
        }
        Run noKey = ballast(store, name, Map.of(), "list");
        assertThat(noKey.exitCode()).isEqualTo(ExitCodes.WRONG_PASSWORD);
        assertThat(noKey.err()).contains("has no key files (keys/ is empty or unreadable)");
    }

    @ParameterizedTest
    @EnumSource(Store.class)
    void aSecondKeyOpensTheRepositoryAndTheFirstCanThenBeRemoved(Store store) throws Exception {
        String name = "two-" + store.name().toLowerCase();
        assertThat(ballast(store, name, Map.of(), "init").exitCode()).isEqualTo(ExitCodes.OK);
        Path second = base.resolve("second-" + name);
        java.nio.file.Files.writeString(second, "second\n");
        Run added = ballast(store, name, Map.of(), "key", "add", "--new-password-file", second.toString());
        assertThat(added.exitCode()).as(added.err()).isEqualTo(ExitCodes.OK);
        Run list = ballast(store, name, Map.of("BALLAST_PASSWORD", "second"), "key", "list");
        assertThat(list.exitCode()).isEqualTo(ExitCodes.OK);
        String first = list.out()
                .lines()
                .filter(l -> l.matches(" [0-9a-f]{8} .*"))
                .findFirst()
                .orElseThrow()
                .substring(1, 9);
        assertThat(ballast(store, name, Map.of("BALLAST_PASSWORD", "second"), "key", "remove", first)
                        .exitCode())
                .isEqualTo(ExitCodes.OK);
        assertThat(ballast(store, name, Map.of(), "list").exitCode()).isEqualTo(ExitCodes.WRONG_PASSWORD);
        assertThat(ballast(store, name, Map.of("BALLAST_PASSWORD", "second"), "list")
                        .exitCode())
                .isEqualTo(ExitCodes.OK);
        // the removed key file is gone in every version, not hidden behind a delete marker
        assertThat(everything(store, name))
                .extracting(VersionEntry::key)
                .filteredOn(k -> k.startsWith("keys/" + first))
                .isEmpty();
    }
}
