package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.RandomAccessFile;
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

    /** Three backups of one file, the first forgotten and pruned: what each test below starts from. */
    Path prunedStore() throws Exception {
        Path src = Files.createDirectories(home.resolve("src"));
        for (int i = 1; i <= 3; i++) {
            Files.write(src.resolve("x"), random(i));
            assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        }
        return src;
    }

    void forgetAndPrune() {
        assertThat(run(at("forget", "src", "--keep-last", "2"))).as(err()).isZero();
        assertThat(run(at("prune", "--grace", "0s"))).as(err()).isZero();
    }

    /**
     * A journal shorter than the index (a tester's, twice: the newest journal file cut short inside a committed
     * frame, and journal/ alone restored from an older copy): it was called an older index, and 'repair index'
     * brought back the pruned snapshot as DAMAGED, its content reported lost. Now every command says in one
     * sentence that the journal ends before the index, and 'repair index' keeps the index as it is.
     */
    void assertAShorterJournalIsSaidAndRepaired() throws Exception {
        assertThat(run(at("list"))).as(out() + err()).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(err())
                .startsWith("Error: The journal of the local store " + storeRoot() + " ends before its index")
                .contains("run 'ballast repair index' to keep the index as it is and write the journal anew from it")
                .doesNotContain("older than")
                .doesNotContain("\tat ");

        assertThat(run(at("repair", "index"))).as(out() + err()).isZero();
        assertThat(out()).contains("ended before its index").contains("removed on purpose, not lost");
        assertThat(err()).doesNotContain("lost/damaged").doesNotContain("Journal damaged");
        assertThat(run(at("check"))).as(out() + err()).isZero();
        assertThat(run(at("list"))).as(out() + err()).isZero();
        assertThat(out()).doesNotContain("DAMAGED");
        assertThat(run(at("restore", "src", home.resolve("out").toString())))
                .as(out() + err())
                .isZero();
        assertThat(home.resolve("out/x")).hasBinaryContent(random(3));
    }

    @Test
    void aNewestJournalFileCutInsideACommittedFrameIsSaidAndRepairIndexLosesNothing() throws Exception {
        prunedStore();
        forgetAndPrune();
        Path journal = storeRoot().resolve("journal");
        Path newest;
        try (Stream<Path> files = Files.list(journal)) {
            newest = files.sorted().reduce((a, b) -> b).orElseThrow();
        }
        try (RandomAccessFile f = new RandomAccessFile(newest.toFile(), "rw")) {
            f.setLength(f.length() / 2);
        }

        assertAShorterJournalIsSaidAndRepaired();
    }

    @Test
    void aJournalRestoredFromAnOlderCopyIsSaidAndRepairIndexBringsNoPrunedSnapshotBack() throws Exception {
        prunedStore();
        Path journal = storeRoot().resolve("journal");
        Path copy = Files.createDirectories(home.resolve("journal-copy"));
        try (Stream<Path> files = Files.list(journal)) {
            for (Path f : files.toList()) {
                Files.copy(f, copy.resolve(f.getFileName()));
            }
        }
        forgetAndPrune();
        try (Stream<Path> files = Files.list(journal)) {
            for (Path f : files.toList()) {
                Files.delete(f);
            }
        }
        try (Stream<Path> files = Files.list(copy)) {
            for (Path f : files.toList()) {
                Files.copy(f, journal.resolve(f.getFileName()));
            }
        }

        assertAShorterJournalIsSaidAndRepaired();
        assertThat(run(at("list"))).as(out() + err()).isZero();
        // the two snapshots kept; the one forgotten and pruned is not brought back
        assertThat(out().lines().filter(l -> l.contains(home.resolve("src").toString())))
                .hasSize(2);
    }

    /** Every command opens the store and used to leave a journal file behind (173 in a tester's store). */
    @Test
    void journalFilesDoNotAccumulate() throws Exception {
        Path src = prunedStore();
        for (int i = 0; i < 12; i++) {
            assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        }
        forgetAndPrune();
        try (Stream<Path> files = Files.list(storeRoot().resolve("journal"))) {
            assertThat(files.count()).isLessThanOrEqualTo(10);
        }
        Files.delete(storeRoot().resolve("index.db"));
        assertThat(run(at("repair", "index"))).as(out() + err()).isZero();
        assertThat(run(at("check"))).as(out() + err()).isZero();
    }
}
