package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.Manifests;
import dev.ballast.backup.tree.LocalHost;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.local.LocalObjectStore;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code list} and {@code ls} show the directory each snapshot backed up and the host it ran on, as
 * restic's {@code snapshots} shows Paths and Host: a name reused for two directories shows both.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(LeakCheck.class)
class SnapshotSourceAndHostTest extends InProcessCli {
    String backUp(Path source, String name) throws IOException {
        Files.writeString(source.resolve("f.txt"), source.toString());
        assertThat(run("backup", source.toString(), "--name", name, "--data-dir", data().toString()))
                .as(err())
                .isZero();
        return savedSnapshot();
    }

    /** The line {@code list} printed for the version {@code id}. */
    String listed(String id) {
        return out().lines()
                .filter(l -> l.startsWith("  " + Manifests.shortId(id) + "  "))
                .findFirst()
                .orElseThrow(() -> new AssertionError(id + " not listed: " + out()));
    }

    @Test
    void listAndLsShowTheDirectoryAndHostOfEachBackupOfAName() throws IOException {
        String host = LocalHost.name();
        assertThat(host).as("this machine's host name").isNotEmpty();
        Path first = Files.createDirectories(home.resolve("a/src"));
        // A tab in the directory's name: printed escaped, as every message prints a path.
        Path second = Files.createDirectories(home.resolve("b/tab\there"));
        String firstId = backUp(first, "docs");
        String secondId = backUp(second, "docs");

        assertThat(run("list", "--data-dir", data().toString())).as(err()).isZero();
        assertThat(listed(firstId)).contains(" UTC  " + host + " ").endsWith(" bytes  " + first);
        assertThat(listed(secondId))
                .contains(" UTC  " + host + " ")
                .endsWith(" bytes  " + home + "/b/tab\\u0009here  (latest)");

        assertThat(run("ls", "docs", "--manifest-version", firstId, "--data-dir", data().toString()))
                .as(err())
                .isZero();
        assertThat(out().lines().toList().get(1)).isEqualTo("Source: " + first + "  Host: " + host);
        assertThat(run("ls", "docs", "--data-dir", data().toString())).as(err()).isZero();
        assertThat(out().lines().toList().get(1)).isEqualTo("Source: " + home + "/b/tab\\u0009here  Host: " + host);

        assertThat(run("list", "--help")).isZero();
        assertThat(out()).contains("the host it ran on");
        assertThat(run("ls", "--help")).isZero();
        assertThat(out()).contains("the host it ran on");
    }

    @Test
    void aBackupMadeBeforeDirectoryAndHostWereRecordedShowsADashForEach() throws IOException {
        backUp(Files.createDirectories(home.resolve("src")), "new");
        Manifest old = new Manifest(1, "old", Instant.parse("2026-01-02T03:04:05Z"), true, List.of(), List.of());
        String oldId;
        try (LocalObjectStore store = LocalObjectStore.open(data().resolve("ballast-backups"))) {
            oldId = asCommandsSeeIt(store)
                    .put(Manifest.key("old"), ObjectContent.ofBytes(old.toJson()))
                    .versionId();
        }

        assertThat(run("list", "--data-dir", data().toString())).as(err()).isZero();
        assertThat(listed(oldId)).contains("2026-01-02 03:04:05 UTC  - ").endsWith("0 bytes  -  (latest)");
        assertThat(run("ls", "old", "--data-dir", data().toString())).as(err()).isZero();
        assertThat(out().lines().toList().get(1)).isEqualTo("Source: -  Host: -");
    }
}
