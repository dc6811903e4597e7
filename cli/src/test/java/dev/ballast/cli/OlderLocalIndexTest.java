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
        assertTheNewestBackupIsListedAndRestored();
    }

    void assertTheNewestBackupIsListedAndRestored() {
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

    Path newestJournalFile() throws Exception {
        try (Stream<Path> files = Files.list(storeRoot().resolve("journal"))) {
            return files.filter(f -> f.getFileName().toString().endsWith(".log"))
                    .sorted()
                    .reduce((a, b) -> b)
                    .orElseThrow();
        }
    }

    /**
     * journal/ deleted, or its files, after a backup: every command said the journal ends before the index and
     * to run 'repair index', which said the store had no journal, changed nothing and exited 4.
     */
    @Test
    void aDeletedJournalIsSaidAndRepairIndexWritesItAnew() throws Exception {
        Path src = prunedStore();
        forgetAndPrune();
        Path journal = storeRoot().resolve("journal");
        try (Stream<Path> files = Files.list(journal)) {
            for (Path f : files.toList()) {
                Files.delete(f);
            }
        }
        Files.delete(journal);

        assertAShorterJournalIsSaidAndRepaired();
        assertThat(err()).doesNotContain("has no journal");
        assertThat(run(at("backup", src.toString()))).as(out() + err()).isZero();
        assertThat(run(at("prune", "--grace", "0s"))).as(out() + err()).isZero();
    }

    @Test
    void anEmptiedJournalIsSaidAndRepairIndexWritesItAnew() throws Exception {
        prunedStore();
        forgetAndPrune();
        try (Stream<Path> files = Files.list(storeRoot().resolve("journal"))) {
            for (Path f : files.toList()) {
                Files.delete(f);
            }
        }

        assertAShorterJournalIsSaidAndRepaired();
    }

    /**
     * A directory, FIFO or dangling symbolic link in place of the newest journal file, or of one numbered after
     * it: the store opened (a backup wrote a new journal file past it), and 'repair index' exited 3 advising to
     * check permissions. Now it is a journal ending there, and 'repair index' moves it aside (never opening a
     * FIFO, whose open would wait forever).
     */
    @Test
    void somethingOtherThanAFileInAJournalFilesPlaceIsSaidAndMovedAside() throws Exception {
        Path src = prunedStore();
        forgetAndPrune();
        Path newest = newestJournalFile();
        Path next = newest.resolveSibling(String.format(
                "%08x.log", Long.parseLong(newest.getFileName().toString().substring(0, 8), 16) + 1));
        String[][] cases = {{"directory", "a directory"}, {"fifo", "a FIFO"}, {"dangling", "a symbolic link"}};
        int round = 0;
        for (String[] c : cases) {
            for (Path in : List.of(newest, next)) {
                round++;
                newest = newestJournalFile();
                Path at = in == next
                        ? next.resolveSibling(String.format(
                                "%08x.log",
                                Long.parseLong(newest.getFileName().toString().substring(0, 8), 16) + 1))
                        : newest;
                Files.deleteIfExists(at);
                switch (c[0]) {
                    case "directory" -> Files.createDirectories(at.resolve("inside"));
                    case "fifo" ->
                        assertThat(new ProcessBuilder("mkfifo", at.toString())
                                        .start()
                                        .waitFor())
                                .isZero();
                    default -> Files.createSymbolicLink(at, home.resolve("nowhere-" + round));
                }
                String what = c[0] + " as " + at.getFileName();
                assertThat(run(at("list"))).as(what + ": " + out() + err()).isEqualTo(ExitCodes.INTEGRITY);
                assertThat(err())
                        .as(what)
                        .startsWith("Error: The journal of the local store " + storeRoot() + " ends before its index")
                        .contains("something other than a file stands in one's place");
                assertThat(run(at("backup", src.toString()))).as(what).isEqualTo(ExitCodes.INTEGRITY);

                assertThat(run(at("repair", "index")))
                        .as(what + ": " + out() + err())
                        .isZero();
                assertThat(out())
                        .as(what)
                        .contains("journal/" + at.getFileName() + " was " + c[1])
                        .contains("not a journal file: moved aside to journal/" + at.getFileName()
                                + ".not-a-journal-file-")
                        .contains("ended before its index");
                // the journal written anew may take its number, as a regular file
                assertThat(!Files.exists(at, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                                || Files.isRegularFile(at, java.nio.file.LinkOption.NOFOLLOW_LINKS))
                        .as(what)
                        .isTrue();
                assertThat(run(at("backup", src.toString())))
                        .as(what + ": " + out() + err())
                        .isZero();
                assertThat(run(at("restore", "src", home.resolve("out-" + round).toString())))
                        .as(what + ": " + out() + err())
                        .isZero();
                assertThat(home.resolve("out-" + round + "/x")).hasBinaryContent(random(3));
            }
        }
    }

    /**
     * Zeros appended to the newest journal file after its last commit: 'repair index' exited 1 on every run,
     * saying at once that nothing was changed, that the journal added what the index lacked, and that the
     * journal was damaged. Now it writes the journal anew from the index, says so once, and a second run has
     * nothing to repair.
     */
    @Test
    void bytesAppendedAfterTheLastCommitAreRepairedOnce() throws Exception {
        prunedStore();
        forgetAndPrune();
        Path newest = newestJournalFile();
        long length = Files.size(newest);
        Files.write(newest, new byte[4096], java.nio.file.StandardOpenOption.APPEND);

        assertThat(run(at("repair", "index"))).as(out() + err()).isZero();
        assertThat(out())
                .contains("was damaged only after the last change its index records")
                .contains("bytes " + length + " to its end (4,096 bytes)".replace(",", ""))
                .contains("the journal was written anew from it; nothing was lost")
                .doesNotContain("nothing was changed")
                .doesNotContain("added what it lacked");
        assertThat(err()).doesNotContain("Journal damaged");

        assertThat(run(at("repair", "index"))).as(out() + err()).isZero();
        assertThat(out()).contains("nothing was changed").doesNotContain("damaged");
        assertThat(err()).isEmpty();
        assertTheNewestBackupIsListedAndRestored();
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
