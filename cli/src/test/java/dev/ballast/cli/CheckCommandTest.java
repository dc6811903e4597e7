package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.snapshot.Manifests;
import dev.ballast.storage.object.VersionEntry;
import dev.ballast.storage.object.local.LocalObjectStore;
import dev.ballast.testkit.LeakCheck;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code ballast check}: the whole encrypted repository checked as {@code restic check} does, with
 * nothing written, each finding named with what to run, and the documented exit codes.
 */
@ExtendWith(LeakCheck.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CheckCommandTest extends EncryptedStoreCli {
    /**
     * Every file under the store's directory with its size and modification time, but SQLite's shared
     * memory and write-ahead log beside the store's index, which any reader of it opens.
     */
    private TreeMap<String, String> storeFiles() throws Exception {
        TreeMap<String, String> files = new TreeMap<>();
        Path root = data().resolve("ballast-backups");
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : (Iterable<Path>) all.filter(Files::isRegularFile)
                    .filter(p -> !p.getFileName().toString().matches("index\\.db-(shm|wal)"))::iterator) {
                files.put(root.relativize(p).toString(), Files.size(p) + " " + Files.getLastModifiedTime(p));
            }
        }
        return files;
    }

    /** Flips byte {@code at} of the first object under {@code prefix} in its content file, as a disk would; returns its key. */
    private String flipByteOnDisk(String prefix, int at) throws Exception {
        String key;
        try (LocalObjectStore store = store()) {
            key = store.list(prefix).get(0);
        }
        Path file = contentFile(key);
        byte[] b = Files.readAllBytes(file);
        b[at] ^= 0x01;
        Files.write(file, b);
        return key;
    }

    /** Cuts the first pack's content file to {@code newSize} of its size, as {@code truncate -s} would; returns its key. */
    private String cutPack(java.util.function.LongUnaryOperator newSize) throws Exception {
        String pack;
        try (LocalObjectStore store = store()) {
            pack = store.list("data/").get(0);
        }
        try (java.nio.channels.FileChannel ch =
                java.nio.channels.FileChannel.open(contentFile(pack), java.nio.file.StandardOpenOption.WRITE)) {
            ch.truncate(newSize.applyAsLong(ch.size()));
        }
        return pack;
    }

    @Test
    void anIntactRepositoryIsOkWithAndWithoutReadingItsPacksAndNothingIsWritten() throws Exception {
        backedUp();
        TreeMap<String, String> before = storeFiles();

        assertThat(run(at("check"))).as(err()).isEqualTo(ExitCodes.OK);
        assertThat(out())
                .startsWith("Check OK: checked ")
                .contains("1 snapshot of 1 backup name")
                .contains("(no pack read: --read-data reads them)");
        assertThat(run(at("check", "--read-data"))).as(err()).isEqualTo(ExitCodes.OK);
        assertThat(out()).contains("read ").contains(" whole, 3 chunks matched against their IDs");
        assertThat(storeFiles()).as("a check writes nothing").isEqualTo(before);
    }

    @Test
    void aDamagedChunkIsFoundByReadingNamedWithItsFileAndLeftForRepairPacks() throws Exception {
        backedUp();
        flipByte("data/", 30);

        assertThat(run(at("check"))).as("sizes only: %s", err()).isEqualTo(ExitCodes.OK);
        assertThat(run(at("check", "--read-data"))).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(out()).startsWith("Check FAILED: ");
        assertThat(err())
                .containsPattern("Damaged: data/[0-9a-f]{2}/[0-9a-f]{64} \\(blob [0-9a-f]+\\): ")
                .containsPattern("Damaged snapshot: src [0-9a-f]{8} \\(20[0-9-]+ [0-9:]+ UTC\\): 1 file lacks a chunk"
                        + " that no pack holds intact: f[0-2]\\.bin\n")
                .contains("The repository has 1 damaged object and 1 snapshot that cannot be restored in full;"
                        + " 'ballast repair packs' keeps every intact chunk of the damaged packs");
        assertNoStackTrace();
        // check dropped nothing, unlike verify: the damage is still there to be found
        assertThat(run(at("check", "--read-data"))).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(run(at("repair", "packs"))).as(err()).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(run(at("check", "--read-data"))).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(err())
                .as("the chunk is gone, not damaged: a new backup stores it")
                .doesNotContain("Damaged: data/");
        assertThat(run(at("backup", home.resolve("src").toString()))).as(err()).isZero();
        assertThat(run(at("check", "--read-data"))).as(err()).isEqualTo(ExitCodes.OK);
    }

    /** A tester's: the only snapshot damaged was "1 snapshot of 0 backup names". */
    @Test
    void aNameWhoseOnlySnapshotDoesNotOpenIsCounted() throws Exception {
        backedUp();
        flipByteOnDisk("snapshots/", 60);

        assertThat(run(at("check"))).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(out()).startsWith("Check FAILED: ").contains(" 1 snapshot of 1 backup name against the chunks");
        assertThat(err()).contains("Damaged snapshot: of a backup name no version of which opens");
    }

    /**
     * The only snapshot's file with a byte flipped: check said "0 damaged objects", and advised 'ballast
     * forget NAME --manifest-version ID' though no name can be read from it. The snapshot's manifest is the
     * damaged object, and the command advised removes it.
     */
    @Test
    void aSnapshotThatDoesNotOpenIsADamagedObjectAndTheAdvisedCommandRemovesIt() throws Exception {
        backedUp();
        String version = firstSnapshot();
        String key = flipByteOnDisk("snapshots/", 60);
        String shortId = Manifests.shortId(version);

        assertThat(run(at("check"))).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(err())
                .contains("Damaged snapshot: of a backup name no version of which opens (stored as " + key + ") "
                        + shortId + " (")
                .contains("The repository has 1 damaged object and 1 snapshot that cannot be restored in full; a"
                        + " snapshot whose manifest does not open stays unreadable: 'ballast forget " + key
                        + " --manifest-version " + shortId + "' removes it, and the other snapshots restore as they"
                        + " are.")
                .doesNotContain("forget NAME");
        assertThat(run(at("list"))).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(out())
                .contains(key + "\n")
                .contains(shortId + "  " + version)
                .contains(" DAMAGED (");
        assertThat(err()).contains("'ballast check' names it with the command that removes it.");

        assertThat(run(at("forget", key, "--manifest-version", shortId)))
                .as(err())
                .isZero();
        assertThat(out()).contains("Removed 1 manifest version stored as '" + key + "'");
        assertThat(run(at("check"))).as(err()).isEqualTo(ExitCodes.OK);
    }

    /** The newest snapshot of a name that still opens in an older one: named, and removed after a new backup. */
    @Test
    void theNewestSnapshotOfANameThatDoesNotOpenIsRemovedAfterANewBackupAsAdvised() throws Exception {
        Path src = backedUp();
        writeFiles(src, 0, 1, 100);
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        String newest = savedSnapshot();
        flipByteOnDisk("snapshots/", 60); // its newest version's file
        String shortId = Manifests.shortId(newest);

        assertThat(run(at("check"))).isEqualTo(ExitCodes.INTEGRITY);
        String forget = "'ballast forget src --manifest-version " + shortId + "'";
        assertThat(err())
                .contains("The repository has 1 damaged object and 1 snapshot that cannot be restored in full; a"
                        + " snapshot whose manifest does not open stays unreadable: a new backup of 'src', then "
                        + forget + " removes it");

        assertThat(run(at("forget", "src", "--manifest-version", shortId))).isEqualTo(ExitCodes.USAGE);
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        assertThat(run(at("forget", "src", "--manifest-version", shortId)))
                .as(err())
                .isZero();
        assertThat(run(at("check"))).as(err()).isEqualTo(ExitCodes.OK);
    }

    /**
     * A tester's: a FIFO in place of a snapshot's content file was "not a regular file" in list but "its
     * content is missing from the store" in check. Both now say what the store found.
     */
    @Test
    void aSnapshotWhoseContentFileIsAFifoIsNamedSoByCheckAsByList() throws Exception {
        Path src = backedUp();
        Files.writeString(src.resolve("more.txt"), "more");
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        String snapshot;
        try (LocalObjectStore store = store()) {
            snapshot = store.list("snapshots/").get(0);
        }
        Path file = contentFile(snapshot); // of its newest version
        Files.delete(file);
        org.junit.jupiter.api.Assumptions.assumeTrue(
                new ProcessBuilder("mkfifo", file.toString()).start().waitFor() == 0, "needs mkfifo");
        String why = "its content file " + file + " is not a regular file";

        assertThat(run(at("list"))).as(err()).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(out()).contains("DAMAGED (").contains(why);
        assertThat(run(at("check"))).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(err())
                .containsPattern("Damaged snapshot: src [0-9a-f]{8} \\([^)]*\\): its manifest is listed but "
                        + java.util.regex.Pattern.quote(why) + "\n");
    }

    @Test
    void aSubsetThatHoldsNoPackSaysSoInsteadOfAPlainOk() throws Exception {
        // field input: 'check --read-data-subset 1/5' of 7 packs read nothing and said "Check OK ... read 0 packs"
        backedUp();
        int empty = 0;
        for (int g = 1; g <= 20; g++) {
            assertThat(run(at("check", "--read-data-subset", g + "/20")))
                    .as(err())
                    .isZero();
            if (out().contains("read 0 packs whole")) {
                assertThat(out())
                        .contains(" falls in subset " + g + "/20: another subset, or --read-data, reads them)");
                empty++;
            }
        }
        assertThat(empty).as("subsets of 20 that hold none of the few packs").isPositive();
    }

    @Test
    void aLostPackIsFoundWithoutReadingAnyPack() throws Exception {
        backedUp();
        String lost;
        try (LocalObjectStore store = store()) {
            lost = store.list("data/").get(0);
            for (VersionEntry v : store.versions(lost)) {
                store.deleteVersion(lost, v.versionId());
            }
        }

        assertThat(run(at("check"))).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(err())
                .contains("Damaged: " + lost + ": it is missing; the index names 3 blobs in it")
                .contains("3 files lack a chunk that no pack holds intact: f0.bin, f1.bin, f2.bin");
        assertNoStackTrace();
    }

    @Test
    void aStoreOfTheEarlierFormatAndConflictingOptionsAreRefusedInOneSentence() throws Exception {
        Path src = Files.createDirectories(home.resolve("plain"));
        Files.writeString(src.resolve("a.txt"), "a");
        assertThat(run(at("backup", src.toString(), "--insecure-no-encryption")))
                .as(err())
                .isZero();

        assertThat(run(at("check"))).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .contains("'ballast check' checks an encrypted repository (ballast init), and the local store ")
                .contains(" is a store of the earlier format: run 'ballast verify NAME' for each backup name");
        assertThat(run(at("check", "--read-data", "--read-data-subset", "1/2"))).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .isEqualTo("Error: --read-data and --read-data-subset 1/2 both say what to read; pass one"
                        + " (--read-data reads every pack).\n");
    }

    /**
     * Field input: ten bytes cut off a pack's file (its header, after the last chunk); check said the
     * file in it could not be restored, though a restore wrote it whole. The pack is damaged; no
     * snapshot is.
     */
    @Test
    void aPackCutOnlyInItsHeaderIsNamedButNoSnapshotIsSaidToLackIt() throws Exception {
        backedUp();
        String pack = cutPack(size -> size - 10);

        assertThat(run(at("check"))).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(err())
                .contains("Damaged: " + pack + ": ")
                .doesNotContain("Damaged snapshot")
                .contains("'ballast repair packs' keeps every intact chunk");
        Path restored = home.resolve("restored");
        assertThat(run(at("restore", "src", restored.toString()))).as(err()).isZero();
        assertThat(restored.resolve("f0.bin")).hasSameBinaryContentAs(home.resolve("src/f0.bin"));
    }

    /**
     * A pack cut in the middle of its chunks: check advised 'ballast repair packs', restore 'ballast repair
     * index'. Both now give the one that fixes it cleanly ('repair index' also replaced the pack, but first
     * reported its file as lost content of the local store and ended with exit 4), in the same words.
     */
    @Test
    void aCutPackGetsTheSameAdviceFromCheckAndRestoreAndTheAdviceWorks() throws Exception {
        Path src = backedUp();
        String pack = cutPack(size -> size / 2);
        String advice = "'ballast repair packs' keeps every intact chunk of the damaged packs and drops the others"
                + " from the index";

        assertThat(run(at("check"))).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(err()).contains("Damaged: " + pack + ": ").contains(advice);
        assertThat(run(at("restore", "src", home.resolve("r").toString()))).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(err())
                .contains("pack(s) in the store are shorter than the index says (cut: " + pack)
                .contains(advice)
                .doesNotContain("repair index");

        assertThat(run(at("repair", "packs"))).as(err()).isEqualTo(ExitCodes.INTEGRITY); // chunks past the cut
        assertThat(out()).contains("1 damaged pack(s) replaced by their intact chunks");
        assertThat(run(at("check"))).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(err())
                .as("the pack is repaired; the chunks past the cut are gone")
                .doesNotContain("Damaged: data/");
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        assertThat(run(at("check", "--read-data"))).as(err()).isEqualTo(ExitCodes.OK);
    }

    /**
     * Field input: the only index file deleted; check said every snapshot could not be restored in
     * full, though a restore reads the chunks from the packs' own headers. The index is what is
     * damaged, and 'repair index' what to run.
     */
    @Test
    void aLostIndexFileIsTheIndexsDamageNotTheSnapshots() throws Exception {
        backedUp();
        try (LocalObjectStore store = store()) {
            for (String index : store.list("index/")) {
                for (VersionEntry v : store.versions(index)) {
                    store.deleteVersion(index, v.versionId());
                }
            }
        }

        assertThat(run(at("check"))).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(err())
                .contains("Damaged: index: 3 chunks the snapshots need are only in packs no index file names")
                .contains("'ballast repair index' indexes them")
                .doesNotContain("Damaged snapshot")
                .contains("'ballast repair index' writes the index again from the packs")
                .doesNotContain("a new backup of each source");
        assertThat(run(at("repair", "index"))).as(err()).isZero();
        assertThat(run(at("check", "--read-data"))).as(err()).isEqualTo(ExitCodes.OK);
    }

    /**
     * Field input: four bytes overwritten in a pack's file on the local store; the store's check of the
     * whole pack failed, and check named every file with a chunk in the pack (25) as lacking one, the
     * damaged one buried among them. Each chunk of such a pack is now read by itself.
     */
    @Test
    void aPackWhoseFileIsDamagedOnDiskNamesOnlyTheFileWhoseChunkIsDamaged() throws Exception {
        backedUp();
        String pack = flipByteOnDisk("data/", 100); // inside the first chunk

        assertThat(run(at("check", "--read-data"))).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(err())
                .contains("Damaged: " + pack + ": its bytes are damaged: ")
                .containsPattern("Damaged: " + pack + " \\(blob [0-9a-f]+\\): ")
                .containsPattern("Damaged snapshot: src [0-9a-f]{8} \\([^)]*\\): 1 file lacks a chunk that no pack"
                        + " holds intact: f[0-2]\\.bin\n");
    }
}
