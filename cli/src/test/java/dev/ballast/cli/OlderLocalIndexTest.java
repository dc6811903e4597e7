package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A day-old copy of the local store's {@code index.db} put in place of the current one (a tester's).
 * Before, nothing noticed: {@code list} and {@code restore} showed the older state as the current one,
 * {@code check} said OK, and {@code prune} deleted a pack the newest snapshot needed (a chunk an
 * earlier, forgotten snapshot had stored and the newest reused), reporting success; after {@code repair
 * index} the newest snapshot could not be restored. Every command now refuses such an index in one
 * sentence naming {@code ballast repair index}, which brings it up to date.
 */
class OlderLocalIndexTest extends InProcessCli {

    Path storeRoot() {
        return data().resolve("ballast-backups");
    }

    List<Path> storedFiles() throws Exception {
        try (Stream<Path> all = Files.walk(storeRoot().resolve("blobs"))) {
            return all.filter(Files::isRegularFile).sorted().toList();
        }
    }

    static byte[] random(int seed) {
        byte[] b = new byte[300_000];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void anOlderIndexIsRefusedPruneDeletesNothingAndRepairIndexBringsTheNewestSnapshotBack() throws Exception {
        Path src = Files.createDirectories(home.resolve("src"));
        Path file = src.resolve("x");
        Files.write(file, random(1));
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        Files.write(file, random(2));
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        // The first snapshot is forgotten (not pruned): its pack is unused when the index is copied...
        assertThat(run(at("forget", "src", "--keep-last", "1"))).as(err()).isZero();
        Path index = storeRoot().resolve("index.db");
        Path copy = home.resolve("index.db.copy");
        Files.copy(index, copy);
        // ... and the newest snapshot uses it again.
        Files.write(file, random(1));
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        String newest = savedSnapshot();
        Files.copy(copy, index, StandardCopyOption.REPLACE_EXISTING);
        List<Path> stored = storedFiles();

        for (String[] command : List.of(
                at("check"),
                at("list"),
                at("prune", "--grace", "0s"),
                at("restore", "src", home.resolve("out").toString()))) {
            assertThat(run(command))
                    .as(String.join(" ", command) + ": " + out() + err())
                    .isEqualTo(ExitCodes.INTEGRITY);
            assertThat(err())
                    .startsWith(
                            "Error: The index of the local store " + storeRoot() + " is older than the store's journal")
                    .contains(
                            "run 'ballast repair index' to bring it up to date from the journal (nothing was changed).")
                    .doesNotContain("\tat ");
        }
        assertThat(storedFiles()).isEqualTo(stored);
        assertThat(home.resolve("out")).doesNotExist();

        assertThat(run(at("repair", "index"))).as(out() + err()).isZero();
        assertThat(run(at("prune", "--grace", "0s"))).as(out() + err()).isZero();
        assertThat(run(at("check"))).as(out() + err()).isZero();
        assertThat(run(at("restore", "src", home.resolve("out").toString())))
                .as(out() + err())
                .isZero();
        assertThat(out()).contains("(" + newest + ")");
        assertThat(home.resolve("out/x")).hasBinaryContent(random(1));
    }
}
