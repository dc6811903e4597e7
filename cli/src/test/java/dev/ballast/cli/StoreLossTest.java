package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.snapshot.DamagedVersions;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.VersionEntry;
import dev.ballast.storage.object.local.LocalObjectStore;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 20, "a hole found by verify is stored again by the next backup": after the store lost what
 * the previous snapshot names (pack files, index rows, a version deleted, a damaged record of damaged
 * versions), the next backup stores those files again instead of calling them unchanged, and its
 * snapshot restores. The local store, with the CLI in-process.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
@ExtendWith(LeakCheck.class)
class StoreLossTest extends InProcessCli {
    /**
     * These cases are of the earlier format's mechanics (the local store's packs of small files holding
     * file contents, a file's object version deleted, the record of damaged versions found by its plain
     * bytes): their first backup keeps the store of that format. A pack of format 3 lost or damaged is
     * docs/backup-format.md's damage rules.
     */
    static final String EARLIER_FORMAT = "--insecure-no-encryption";

    Path storeRoot() {
        return data().resolve("ballast-backups");
    }

    /** Twenty files of 3,000 random bytes each in {@code src}. */
    Path twentyFiles() throws IOException {
        Path src = Files.createDirectories(home.resolve("src"));
        Random random = new Random(20);
        for (int i = 1; i <= 20; i++) {
            byte[] bytes = new byte[3000];
            random.nextBytes(bytes);
            Files.write(src.resolve("f" + i), bytes);
        }
        return src;
    }

    List<Path> packs() throws IOException {
        try (Stream<Path> all = Files.list(storeRoot().resolve("packs"))) {
            return all.filter(p -> p.getFileName().toString().endsWith(".pack"))
                    .sorted()
                    .toList();
        }
    }

    /** Restores {@code r} and checks every file against the source. */
    void restoresIntact(Path src) throws IOException {
        Path into = home.resolve("out");
        assertThat(run("restore", "r", into.toString(), "--data-dir", data().toString()))
                .as(err())
                .isZero();
        for (int i = 1; i <= 20; i++) {
            assertThat(into.resolve("f" + i)).hasSameBinaryContentAs(src.resolve("f" + i));
        }
    }

    @Test
    void afterPacksAndIndexAreLostAndTheIndexRepairedTheNextBackupStoresEveryFileAgain() throws IOException {
        Path src = twentyFiles();
        assertThat(run("backup", src.toString(), "--name", "r", "--data-dir", data().toString(), EARLIER_FORMAT))
                .isZero();
        for (Path p : packs()) {
            Files.delete(p);
        }
        try (Stream<Path> all = Files.list(storeRoot())) {
            for (Path p : all.filter(p -> p.getFileName().toString().startsWith("index.db"))
                    .toList()) {
                Files.delete(p);
            }
        }
        assertThat(run("repair", "index", "--data-dir", data().toString())).isEqualTo(ExitCodes.INTEGRITY);

        assertThat(run("backup", src.toString(), "--name", "r", "--data-dir", data().toString()))
                .as(err())
                .isZero();
        assertThat(out()).contains("20 files stored, 0 unchanged");
        assertThat(err()).contains("has lost the stored version of 20 file(s)", "stores them again");
        restoresIntact(src);
    }

    @ParameterizedTest(name = "checksum={0}")
    @ValueSource(booleans = {false, true})
    void aPackDeletedBehindTheIndexIsStoredAgainByTheNextBackup(boolean checksum) throws IOException {
        Path src = twentyFiles();
        assertThat(run("backup", src.toString(), "--name", "r", "--data-dir", data().toString(), EARLIER_FORMAT))
                .isZero();
        for (Path p : packs()) {
            Files.delete(p);
        }

        List<String> args = new ArrayList<>(List.of("backup", src.toString(), "--name", "r", "--data-dir"));
        args.add(data().toString());
        if (checksum) {
            args.add("--checksum");
        }
        assertThat(run(args.toArray(String[]::new))).as(err()).isZero();
        assertThat(out()).contains("20 files stored, 0 unchanged");
        // The local store lists a version whose pack file is gone at 0 bytes, and says which file it lost.
        assertThat(err()).contains("has lost the stored version of 20 file(s)", "is missing");
        restoresIntact(src);
    }

    @Test
    void aVersionNoLongerListedIsStoredAgainTheOthersStayUnchanged() throws IOException {
        Path src = twentyFiles();
        assertThat(run("backup", src.toString(), "--name", "r", "--data-dir", data().toString(), EARLIER_FORMAT))
                .isZero();
        try (LocalObjectStore store = LocalObjectStore.open(storeRoot())) {
            for (VersionEntry v : store.listVersions("r/f7")) {
                assertThat(store.deleteVersion(v.key(), v.versionId())).isTrue();
            }
        }

        assertThat(run("backup", src.toString(), "--name", "r", "--data-dir", data().toString()))
                .as(err())
                .isZero();
        assertThat(out()).containsPattern("\\b1 files? stored, 19 unchanged");
        assertThat(err()).contains("has lost the stored version of 1 file(s)", "f7: the store no longer lists");
        restoresIntact(src);
    }

    @Test
    void anUnchangedBackupOfAnIntactStoreSaysNothingOfLosses() throws IOException {
        Path src = twentyFiles();
        assertThat(run("backup", src.toString(), "--name", "r", "--data-dir", data().toString()))
                .isZero();
        assertThat(run("backup", src.toString(), "--name", "r", "--data-dir", data().toString()))
                .isZero();
        assertThat(out()).contains("0 files stored, 20 unchanged");
        assertThat(err()).doesNotContain("has lost");
    }

    @Test
    void whenTheRecordOfDamagedVersionsCannotBeReadTheNextBackupStoresEveryFileAgain() throws IOException {
        Path src = twentyFiles();
        assertThat(run("backup", src.toString(), "--name", "r", "--data-dir", data().toString(), EARLIER_FORMAT))
                .isZero();
        // A byte of f3's stored content flips; verify finds it and records the version as damaged.
        flipInPacks(Files.readAllBytes(src.resolve("f3")));
        assertThat(run("verify", "r", "--data-dir", data().toString()))
                .as(err())
                .isEqualTo(ExitCodes.INTEGRITY);
        byte[] record;
        try (LocalObjectStore store = LocalObjectStore.open(storeRoot());
                ObjectRead read = store.get(DamagedVersions.key("r"), ReadOptions.latest())) {
            record = read.readAllBytes();
        }
        // Then a byte of that record flips.
        flipInPacks(record);

        assertThat(run("backup", src.toString(), "--name", "r", "--data-dir", data().toString()))
                .as(err())
                .isZero();
        assertThat(err())
                .contains("record of damaged versions", "every file is read and stored again")
                .doesNotContain("it is ignored");
        assertThat(out()).contains("20 files stored, 0 unchanged");
        restoresIntact(src);
    }

    /** Flips one byte in the middle of {@code bytes} where a pack file holds them. */
    void flipInPacks(byte[] bytes) throws IOException {
        for (Path pack : packs()) {
            byte[] all = Files.readAllBytes(pack);
            int at = indexOf(all, bytes);
            if (at >= 0) {
                all[at + bytes.length / 2] ^= 0x01;
                Files.write(pack, all);
                return;
            }
        }
        throw new AssertionError("no pack file holds the bytes");
    }

    static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
