package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.snapshot.Manifests;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.VersionEntry;
import dev.ballast.storage.object.local.LocalObjectStore;
import dev.ballast.testkit.LeakCheck;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Damage to an encrypted repository as a user meets it through the commands: a deleted pack healed by
 * the next backup, a damaged pack found by verify and healed by {@code verify --repair} or
 * {@code repair packs} and a backup, a damaged index file that stops nothing and that
 * {@code repair index} replaces; each with its documented exit code and no stack trace. And
 * {@code prune}: {@code --dry-run}, which writes nothing, and the unused space it leaves in packs
 * ({@code --max-unused}).
 */
@ExtendWith(LeakCheck.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PackDamageCliTest extends EncryptedStoreCli {
    @Test
    void aDeletedPackIsStoredAgainByTheNextBackupAndTheOlderBackupRestores() throws Exception {
        Path src = backedUp();
        String first = firstSnapshot();
        try (LocalObjectStore store = store()) {
            for (String pack : store.list("data/")) {
                for (VersionEntry v : store.versions(pack)) {
                    store.deleteVersion(pack, v.versionId());
                }
            }
        }
        assertThat(run(at("verify", "src"))).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(err()).contains("Damaged: f0.bin (its chunk ").contains(", which is missing from the store)");
        assertThat(err()).contains("1 pack(s) the repository's index names are missing from the store");
        assertNoStackTrace();

        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        assertThat(err())
                .contains("1 pack(s) the repository's index names are missing from the store")
                .contains("Note: 3 chunk(s) of 1 missing pack(s) were stored again from the source");
        Path older = home.resolve("older");
        assertThat(run(at("restore", "src", older.toString(), "--manifest-version", first)))
                .as(err())
                .isZero();
        for (int i = 0; i < 3; i++) {
            assertThat(older.resolve("f" + i + ".bin")).hasSameBinaryContentAs(src.resolve("f" + i + ".bin"));
        }
        assertThat(run(at("repair", "index"))).as(err()).isZero();
        assertThat(out()).contains("1 missing pack(s) dropped");
        assertThat(run(at("verify", "src", "--manifest-version", first)))
                .as(err())
                .isZero();
    }

    /** The content file under the local store's {@code blobs/} that holds the only pack's bytes. */
    private Path packFile() {
        try (LocalObjectStore store = store()) {
            List<String> packs = store.list("data/");
            assertThat(packs).hasSize(1);
            return contentFile(packs.get(0));
        }
    }

    /**
     * Field input: 50 bytes cut off a pack's file under the local store's {@code blobs/} (its header)
     * left every chunk readable, and {@code verify} said OK (exit 0); the chunks could not have been
     * found again from the pack had an index file been lost. The store itself knows the file is short:
     * verify now says so, exits 4 and names {@code repair packs}, which keeps the intact chunks.
     */
    @Test
    void aPackWhoseHeaderIsCutFailsVerifyThoughEveryChunkStillReads() throws Exception {
        Path src = backedUp();
        Path file = packFile();
        try (java.nio.channels.FileChannel ch =
                java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.WRITE)) {
            ch.truncate(ch.size() - 50);
        }

        assertThat(run(at("verify", "src"))).as(err()).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(out()).contains("FAILED: 3 of 3 files verified");
        assertThat(err())
                .contains("Damaged: 1 pack(s) the index names are not held in full by the store (data/")
                .contains("but")
                .contains("'ballast repair packs' keeps every intact chunk of the damaged packs");
        assertNoStackTrace();

        assertThat(run(at("repair", "packs"))).as(err()).isZero();
        assertThat(run(at("verify", "src"))).as(err()).isZero();
        Path back = home.resolve("back");
        assertThat(run(at("restore", "src", back.toString()))).as(err()).isZero();
        for (int i = 0; i < 3; i++) {
            assertThat(back.resolve("f" + i + ".bin")).hasSameBinaryContentAs(src.resolve("f" + i + ".bin"));
        }
    }

    /**
     * Field case: {@code rm} (or {@code truncate -s}) of a pack's file under the local store's
     * {@code blobs/}. The store's index still named the pack, so the next backup said "Nothing to
     * upload" and the restore failed; the pack now counts as missing (the local store lists it at the 0
     * bytes it holds, which no pack has), so the backup warns and stores its chunks again, the older backup restores, and {@code repair index}
     * reports the lost file.
     */
    @Test
    void aPackFileRemovedFromTheLocalStoreIsStoredAgainByTheNextBackup() throws Exception {
        Path src = backedUp();
        String first = firstSnapshot();
        Path file = packFile();
        String pack = "data/" + file.getFileName().toString().substring(0, 2) + "/";
        Files.delete(file);

        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        assertThat(out()).doesNotContain("Nothing to upload").contains("3 files stored");
        assertThat(err())
                .contains("1 pack(s) the repository's index names are missing from the store")
                .contains("Note: 3 chunk(s) of 1 missing pack(s) were stored again from the source");
        assertRestores(src, first, "older");

        assertThat(run(at("repair", "index"))).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(err()).contains("Content lost/damaged: " + pack).contains("1 version(s) have no intact content");
        assertThat(out()).contains("1 missing pack(s) dropped").doesNotContain("brought back");
        assertNoStackTrace();
        assertRestores(src, first, "again");
        assertThat(run(at("verify", "src", "--manifest-version", first)))
                .as(err())
                .isZero();
    }

    private void assertRestores(Path src, String snapshot, String into) throws Exception {
        Path target = home.resolve(into);
        assertThat(run(at("restore", "src", target.toString(), "--manifest-version", snapshot)))
                .as(err())
                .isZero();
        for (int i = 0; i < 3; i++) {
            assertThat(target.resolve("f" + i + ".bin")).hasSameBinaryContentAs(src.resolve("f" + i + ".bin"));
        }
    }

    /**
     * A backup of another source after a pack was cut: it said "0 chunk(s) of 0 missing or cut pack(s) were
     * stored again ... 11 chunk(s) of the 1 missing or cut pack(s) were not in this source". One count of
     * packs, and none stored again said once.
     */
    @Test
    void aBackupOfAnotherSourceAfterAPackWasCutSaysNoneOfItsChunksWasStoredAgain() throws Exception {
        backedUp();
        Path file = packFile();
        try (java.io.RandomAccessFile raf = new java.io.RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(Files.size(file) / 2);
        }
        Path other = Files.createDirectories(home.resolve("other"));
        writeFiles(other, 0, 1, 500);

        assertThat(run(at("backup", other.toString()))).as(err()).isZero();
        assertThat(err())
                .containsPattern(
                        "Note: none of the [1-9][0-9]* chunk\\(s\\) of 1 missing or cut pack\\(s\\) was in this"
                                + " source, so none was stored again: the backups that need them stay damaged \\('ballast"
                                + " verify NAME' names their files\\)\\.\n")
                .doesNotContain("0 chunk(s) of 0")
                .doesNotContain("of the 1 missing");
    }

    /**
     * The same with {@code truncate -s} of the pack's file: listed at its real size, so the backup
     * stores the chunks past its end again; a pack of one digest block (up to 1 MiB) cannot serve its
     * intact chunks checked, so {@code repair index} reports it and the next backup stores them too.
     */
    @Test
    void aPackFileCutShortInTheLocalStoreIsStoredAgainByTheNextBackups() throws Exception {
        Path src = backedUp();
        String first = firstSnapshot();
        Path file = packFile();
        String pack = "data/" + file.getFileName().toString().substring(0, 2) + "/";
        try (java.io.RandomAccessFile raf = new java.io.RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(Files.size(file) / 2);
        }

        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        assertThat(out()).doesNotContain("Nothing to upload");
        assertThat(err())
                .contains("1 pack(s) in the store are shorter than the index says (cut: " + pack)
                .contains("chunk(s) of 1 missing or cut pack(s) were stored again from the source");

        assertThat(run(at("repair", "index"))).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(err()).contains("Content lost/damaged: " + pack).contains("bytes; its index entry implies");
        assertNoStackTrace();
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        assertRestores(src, first, "older");
    }

    /**
     * Field case: {@code aws s3 rm} of a pack on a versioned bucket leaves a delete marker over the intact
     * pack; verify called its chunks lost and the advice led to dropping them. {@code repair index}
     * brings the pack back from its earlier version instead, and every backup reads again.
     */
    @Test
    void aPackDeletedByHandIsBroughtBackByRepairIndexFromItsEarlierVersion() throws Exception {
        Path src = backedUp();
        try (LocalObjectStore store = store()) {
            for (String pack : store.list("data/")) {
                store.delete(pack); // a delete marker: the pack's version stays in the store
            }
        }
        assertThat(run(at("verify", "src"))).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(err()).contains("1 pack(s) the repository's index names are missing from the store");

        assertThat(run(at("repair", "index"))).as(err()).isZero();
        assertThat(out())
                .contains("1 deleted pack(s) brought back from their earlier version")
                .doesNotContain("dropped");
        assertThat(run(at("verify", "src"))).as(err()).isZero();
        assertThat(err()).doesNotContain("missing");
        Path restored = home.resolve("restored");
        assertThat(run(at("restore", "src", restored.toString()))).as(err()).isZero();
        for (int i = 0; i < 3; i++) {
            assertThat(restored.resolve("f" + i + ".bin")).hasSameBinaryContentAs(src.resolve("f" + i + ".bin"));
        }
        assertNoStackTrace();
    }

    /**
     * Field case: verify found a damaged chunk, and the next backup deduplicated against it and said
     * "Nothing to upload … complete" (exit 0) for a snapshot that could not be restored. verify now
     * drops the damaged chunks from the index (the pack's intact chunks kept), so the backup stores the
     * file again.
     */
    /** Field case: with a damaged config, 'repair packs' said the store was of the earlier format (exit 2). */
    @Test
    void repairPacksWithADamagedConfigNamesTheConfigNotTheEarlierFormat() throws Exception {
        backedUp();
        flipByte("config", 100);
        assertThat(run(at("repair", "packs"))).as(err()).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(err()).contains("config").doesNotContain("earlier format");
        assertNoStackTrace();
    }

    @Test
    void aDamagedChunkFoundByVerifyIsNotReusedByTheNextBackup() throws Exception {
        Path src = backedUp();
        String first = firstSnapshot();
        flipByte("data/", 100);
        assertThat(run(at("verify", "src"))).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(err())
                .contains("Damaged: f")
                .contains("Dropped the damaged chunks from the repository's index (1 pack(s) replaced by their"
                        + " intact chunks, 1 chunk(s) lost)")
                .contains("back the source up again");
        assertNoStackTrace();

        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        assertThat(out()).contains("1 file stored");
        assertThat(run(at("verify", "src"))).as(err()).isZero();
        assertThat(run(at("verify", "src", "--manifest-version", first)))
                .as("the older backup names the same chunk IDs: it reads again")
                .isZero();
        Path back = home.resolve("back");
        assertThat(run(at("restore", "src", back.toString()))).as(err()).isZero();
        for (int i = 0; i < 3; i++) {
            assertThat(back.resolve("f" + i + ".bin")).hasSameBinaryContentAs(src.resolve("f" + i + ".bin"));
        }
    }

    @Test
    void aDamagedPackIsHealedByVerifyRepair() throws Exception {
        Path src = backedUp();
        flipByte("data/", 100);
        assertThat(run(at("verify", "src", "--repair", src.toString())))
                .as(err())
                .isZero();
        assertThat(err()).contains("Repaired: f");
        assertThat(run(at("verify", "src"))).as(err()).isZero();
        Path back = home.resolve("back");
        assertThat(run(at("restore", "src", back.toString()))).as(err()).isZero();
        assertNoStackTrace();
    }

    /**
     * Field input: once {@code verify --repair} had dropped a damaged chunk that the source no longer
     * held, a plain verify still advised {@code verify --repair} or {@code repair packs}, which had
     * nothing left to do; it now says the next backup stores the missing chunks again.
     */
    @Test
    void aChunkDroppedByVerifyRepairIsAdvisedToBeStoredAgainByTheNextBackup() throws Exception {
        Path src = backedUp();
        flipByte("data/", 100);
        Path elsewhere = Files.createDirectories(home.resolve("elsewhere"));
        assertThat(run(at("verify", "src", "--repair", elsewhere.toString()))).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(err()).contains("Not repaired: f");

        assertThat(run(at("verify", "src"))).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(err())
                .contains("Damaged: f")
                .contains("a chunk of it is missing from the repository")
                .contains("; back the source up again: the backup stores the missing chunks again wherever the"
                        + " source still holds the files, and every backup that uses them reads again.")
                .doesNotContain("--repair")
                .doesNotContain("repair packs");
        assertNoStackTrace();
        assertThat(run(at("restore", "src", home.resolve("back").toString()))).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(err())
                .as("a restore of it gives the same advice, not the dropping it no longer needs")
                .contains("1 stored copy is damaged or missing (back the source up again: the backup stores the"
                        + " missing chunks again wherever the source still holds the files, and every backup that"
                        + " uses them reads again)")
                .doesNotContain("--repair")
                .doesNotContain("repair packs");

        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        assertThat(run(at("verify", "src"))).as(err()).isZero();
    }

    /**
     * A tester's: after a lost pack, restore offered "an older --manifest-version" though every snapshot
     * lacked the chunk. It is offered only when an older snapshot holds the file in other chunks, in a pack
     * the store still holds, and then by its ID.
     */
    @Test
    void anOlderSnapshotIsOfferedOnlyWhenItHoldsAnotherCopyOfTheFile() throws Exception {
        Path src = backedUp();
        String first = firstSnapshot();
        List<String> firstPacks;
        try (LocalObjectStore store = store()) {
            firstPacks = store.list("data/");
        }
        writeFiles(src, 0, 1, 100); // f0.bin changes; its new chunk goes to a pack of its own
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        try (LocalObjectStore store = store()) {
            for (String pack : store.list("data/")) {
                if (!firstPacks.contains(pack)) {
                    deleteEveryVersion(store, pack);
                }
            }
        }

        assertThat(run(at("restore", "src", home.resolve("one").toString()))).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(err())
                .contains("reads again; or restore the older --manifest-version " + Manifests.label(first) + " of ")
                .contains(", which holds another copy of that file): 1 file not restored (first: f0.bin)");

        try (LocalObjectStore store = store()) {
            firstPacks.forEach(pack -> deleteEveryVersion(store, pack));
        }
        assertThat(run(at("restore", "src", home.resolve("none").toString()))).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(err())
                .contains("every backup that uses them reads again): 3 files not restored")
                .doesNotContain("--manifest-version");
        assertNoStackTrace();
    }

    private static void deleteEveryVersion(LocalObjectStore store, String key) {
        for (VersionEntry v : store.versions(key)) {
            store.deleteVersion(key, v.versionId());
        }
    }

    @Test
    void aDamagedPackIsSalvagedByRepairPacksAndTheNextBackupHealsTheOlderBackup() throws Exception {
        Path src = backedUp();
        String first = firstSnapshot();
        flipByte("data/", 100);
        assertThat(run(at("repair", "index"))).as(err()).isZero();
        assertThat(out()).contains("nothing to repair");

        assertThat(run(at("repair", "packs"))).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(out()).contains("1 pack read whole").contains("1 damaged pack(s) replaced by their intact chunks");
        assertThat(err()).contains("1 chunk(s) are lost").contains("'ballast backup'");
        assertNoStackTrace();

        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        Path older = home.resolve("older");
        assertThat(run(at("restore", "src", older.toString(), "--manifest-version", first)))
                .as(err())
                .isZero();
        assertThat(run(at("repair", "packs"))).as(err()).isZero();
    }

    /**
     * A second {@code repair packs} after the first dropped a damaged pack's chunk said "nothing to repair"
     * (exit 0) while the backup still lacked the chunk; it now names the snapshot and its file and says
     * that a backup of the source stores the chunk again, as {@code verify} does (exit 4).
     */
    @Test
    void aSecondRepairPacksNamesTheBackupsThatStillLackChunksAndAdvisesABackup() throws Exception {
        Path src = backedUp();
        String first = firstSnapshot();
        flipByte("data/", 100);
        assertThat(run(at("repair", "packs"))).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(err()).contains("Lacking chunks: backup 'src', snapshot " + Manifests.label(first));

        assertThat(run(at("repair", "packs"))).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(out()).doesNotContain("nothing to repair").contains("backups still lack chunks");
        assertThat(err())
                .containsPattern("Lacking chunks: backup 'src', snapshot "
                        + java.util.regex.Pattern.quote(Manifests.label(first))
                        + " of .* UTC: 1 file \\(f[0-2]\\.bin\\)")
                .contains("1 snapshot(s) of 1 backup(s) name chunks no pack in the repository holds")
                .contains("back the source up again: the backup stores the missing chunks again");
        assertNoStackTrace();

        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        assertThat(run(at("repair", "packs"))).as(err()).isZero();
        assertThat(out()).contains("nothing to repair");
    }

    @Test
    void aDamagedIndexFileStopsNoBackupOrRestoreAndRepairIndexReplacesIt() throws Exception {
        Path src = backedUp();
        flipByte("index/", -20);
        Path back = home.resolve("back");
        assertThat(run(at("restore", "src", back.toString()))).as(err()).isZero();
        assertThat(err())
                .contains("index file(s) of the repository are damaged")
                .contains("'ballast repair index'");
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        assertThat(err())
                .contains("index file(s) of the repository are damaged")
                .contains("'ballast repair index'");
        assertThat(run(at("prune", "--grace", "0s"))).isEqualTo(ExitCodes.INCOMPLETE);
        assertThat(err()).contains("'ballast repair index'");
        assertNoStackTrace();

        assertThat(run(at("repair", "index"))).as(err()).isZero();
        // the local store's own index.db first, as for every local store, then the repository's index
        assertThat(out())
                .contains("The index of " + data().resolve("ballast-backups") + " is intact")
                .contains("1 damaged index file(s) replaced");
        assertThat(run(at("prune", "--grace", "0s"))).as(err()).isZero();
        assertThat(run(at("verify", "src"))).as(err()).isZero();
    }

    /**
     * Field case (two testers): {@code rm} of an index file's content under {@code blobs/}. Restore read the
     * chunks from the packs' headers and warned; prune refused; {@code repair index} indexed the packs but
     * the store's own rebuild named the lost index file at every run, exit 4 for good. It now removes the
     * lost file once its packs are indexed, and a second run finds nothing to repair.
     */
    @Test
    void anIndexFileRemovedFromTheLocalStoreIsReadAroundAndRepairIndexSettles() throws Exception {
        Path src = backedUp();
        String index;
        String sha256;
        try (LocalObjectStore store = store()) {
            index = store.list("index/").get(0);
            sha256 = store.head(index, store.versions(index).get(0).versionId()).sha256();
        }
        Files.delete(data().resolve("ballast-backups/blobs")
                .resolve(sha256.substring(0, 2))
                .resolve(sha256));

        assertRestores(src, firstSnapshot(), "read-around");
        // the index file is lost, not gone: the store still records it (listed at 0 bytes, read as damaged)
        assertThat(err())
                .contains("1 index file(s) of the repository are damaged")
                .contains("is missing")
                .contains("the packs they named were found from their own headers")
                .contains("repair index");
        assertThat(run(at("prune", "--grace", "0s"))).isEqualTo(ExitCodes.INCOMPLETE);
        assertThat(err()).contains("index/").contains("is damaged").contains("'ballast repair index'");

        assertThat(run(at("repair", "index"))).as(err()).isZero();
        assertThat(out())
                .contains("1 pack(s) indexed from their headers")
                .contains("Removed 1 index file(s) whose content the store had lost");
        assertThat(run(at("repair", "index"))).as(err()).isZero();
        assertThat(out()).contains("nothing to repair");
        assertThat(err()).doesNotContain("Content lost");
        assertThat(run(at("prune", "--grace", "0s"))).as(err()).isZero();
        assertRestores(src, firstSnapshot(), "after-repair");
        assertNoStackTrace();
    }

    @Test
    void aPackNoIndexNamesWhoseHeaderDoesNotOpenIsNamedNotCountedAsZeroLostChunks() throws Exception {
        Path src = backedUp();
        String stray;
        try (LocalObjectStore store = store()) {
            stray = "data/ab/" + "ab".repeat(32);
            byte[] junk = new byte[5_000];
            new Random(7).nextBytes(junk);
            store.put(stray, ObjectContent.ofBytes(junk));
        }

        assertThat(run(at("repair", "index"))).as(out() + err()).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(out() + err())
                .contains("1 pack(s) that no index file names have a header that does not open")
                .doesNotContain("0 chunk(s)")
                .doesNotContain("nothing to repair")
                .doesNotContain("names every pack in the store and nothing else");
        assertRestores(src, firstSnapshot(), "stray");

        // With something repaired beside it (a pack indexed from its header), the same: no "0 chunk(s)".
        String sha256;
        try (LocalObjectStore store = store()) {
            String index = store.list("index/").get(0);
            sha256 = store.head(index, store.versions(index).get(0).versionId()).sha256();
        }
        Files.delete(data().resolve("ballast-backups/blobs")
                .resolve(sha256.substring(0, 2))
                .resolve(sha256));
        assertThat(run(at("repair", "index"))).as(out() + err()).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(out()).contains("1 pack(s) indexed from their headers");
        assertThat(err())
                .contains("1 pack(s) that no index file names have a header that does not open")
                .doesNotContain("0 chunk(s)");
        assertRestores(src, firstSnapshot(), "stray-after-repair");

        // Every chunk the snapshots need has a home: the pack whose header does not open goes, as the advice says.
        assertThat(run(at("prune", "--grace", "0s"))).as(out() + err()).isZero();
        assertThat(out()).contains("Prune done: deleted 1 pack");
        try (LocalObjectStore store = store()) {
            assertThat(store.list("data/")).doesNotContain(stray);
        }
        assertThat(run(at("repair", "index"))).as(out() + err()).isZero();
        assertRestores(src, firstSnapshot(), "after-prune");
        assertNoStackTrace();
    }

    @Test
    void pruneDryRunOnAnEncryptedRepositorySaysWhatItWouldDeleteAndWritesNothing() throws Exception {
        Path src = backedUp();
        writeFiles(src, 0, 3, 10);
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        assertThat(run(at("forget", "src", "--keep-last", "1"))).as(err()).isZero();
        List<VersionEntry> before;
        try (LocalObjectStore store = store()) {
            before = store.listVersions("");
        }
        assertThat(run(at("prune", "--dry-run", "--grace", "0s"))).as(err()).isZero();
        assertThat(out()).contains("Prune dry run: would delete 1 pack").contains("nothing was written or deleted");
        try (LocalObjectStore store = store()) {
            assertThat(store.listVersions("")).isEqualTo(before);
        }
        assertThat(run(at("prune", "--grace", "0s"))).as(err()).isZero();
        assertThat(out()).contains("Prune done: deleted 1 pack");
    }

    /**
     * Field input (a new user, README only): a prune right after forget said "0 bytes given back (packs
     * written within --grace 1h are kept...)" whatever kept them, and a prune that deleted no pack said
     * "given back" for the manifest parts it deleted, as if packs had been freed. Then (another README user)
     * the first prune after a forget deleted nothing and said nothing of the manifest parts the grace kept.
     */
    @Test
    void pruneSaysWhatKindOfObjectItDeletedAndNamesTheGraceOnlyWhenItKeptPacks() throws Exception {
        Path src = withAForgottenManifestPart();
        assertThat(run(at("prune"))).as(err()).isZero();
        assertThat(out().strip())
                .matches("Prune done: deleted 0 packs, wrote 0 packs of repacked chunks, 0 bytes"
                        + " given back by packs; 1 manifest part no snapshot uses, written within --grace 1h, is"
                        + " kept until older than that \\(--grace 0s deletes it when no backup is running\\)\\."
                        + "\\RUnused space left in packs: 0 bytes, 0\\.0% of"
                        + " their 586\\.\\d KiB \\([\\d,]+ bytes\\)\\."
                        + "\\RSpace given back: .* \\(content, pack and manifest files: .*\\.");
        assertThat(run(at("prune", "--grace", "0s"))).as(err()).isZero();
        assertThat(out())
                .containsPattern("Prune done: deleted 0 packs, wrote 0 packs of repacked chunks, 0 bytes"
                        + " given back by packs; deleted 1 manifest part no snapshot uses, holding ([\\d.]+ KiB"
                        + " \\([\\d,]+ bytes\\)|\\d{1,4} bytes)\\.")
                .doesNotContain("--grace");

        // new contents: the first backup's pack holds only chunks no snapshot uses once it is forgotten
        writeFiles(src, 0, 3, 10);
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        assertThat(run(at("forget", "src", "--keep-last", "1"))).as(err()).isZero();
        assertThat(run(at("prune", "--dry-run"))).as(err()).isZero();
        assertThat(out())
                .contains("Prune dry run: would delete 0 packs, write about 0 packs of repacked chunks, about 0 bytes"
                        + " would be given back by packs (1 pack written within --grace 1h that no snapshot"
                        + " needs would be kept until it is older than that: a backup running now may need it)")
                .contains("(nothing was written or deleted).")
                .containsPattern(
                        "Unused space that would be left in packs: 5\\d\\d\\.\\d KiB \\([\\d,]+ bytes\\), 50\\.0% of"
                                + " their 1\\.1 MiB \\([\\d,]+ bytes\\); over --max-unused 5% because packs written within"
                                + " --grace 1h hold unused space too: they would be kept until they are older than that\\.");
        assertThat(run(at("prune"))).as(err()).isZero();
        assertThat(out())
                .contains("Prune done: deleted 0 packs, wrote 0 packs of repacked chunks, 0 bytes given back"
                        + " by packs (1 pack written within --grace 1h that no snapshot needs is kept until it is older"
                        + " than that: a backup running now may need it); 1 manifest part no snapshot uses, written"
                        + " within --grace 1h, is kept until older than that (--grace 0s deletes it when no backup is"
                        + " running).")
                .contains("; over --max-unused 5% because packs written within --grace 1h hold unused space too: they"
                        + " are kept until they are older than that.");
        assertThat(run(at("prune", "--grace", "0s"))).as(err()).isZero();
        assertThat(out()).contains("Prune done: deleted 1 pack, ").doesNotContain("--grace");
    }

    /** The names of the local store's files that are old copies of its index kept by a repair. */
    private List<String> keptIndexCopies() throws Exception {
        try (java.util.stream.Stream<Path> files = Files.list(data().resolve("ballast-backups"))) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> n.startsWith("index.db.before-repair-"))
                    .toList();
        }
    }

    /**
     * Field input: every {@code repair index} of the local store kept the old index as
     * {@code index.db.before-repair-MILLIS}, also when it was intact and nothing changed. An index the
     * rebuild changes is still kept aside.
     */
    @Test
    void repairIndexOfAnIntactLocalStoreChangesNothingAndKeepsNoCopyOfTheIndex() throws Exception {
        backedUp();
        Path store = data().resolve("ballast-backups");
        for (int run = 0; run < 2; run++) {
            assertThat(run(at("repair", "index"))).as(err()).isZero();
            assertThat(out())
                    .contains("The index of " + store + " is intact and already holds what its journal (")
                    .contains(" records, ")
                    .contains(": nothing was changed.")
                    .doesNotContain("Rebuilt the index of")
                    .doesNotContain("before-repair");
            assertThat(keptIndexCopies()).isEmpty();
        }
        assertThat(run(at("verify", "src"))).as(err()).isZero();

        Files.writeString(store.resolve("index.db"), "not a database");
        assertThat(run(at("repair", "index"))).as(err()).isZero();
        assertThat(out()).contains("Rebuilt the index of " + store).contains("The previous index was kept as ");
        assertThat(keptIndexCopies())
                .filteredOn(n -> n.matches("index\\.db\\.before-repair-\\d+"))
                .hasSize(1);
        assertThat(run(at("verify", "src"))).as(err()).isZero();
    }

    /** The stored bytes of every pack in the store. */
    private long packBytes() {
        try (LocalObjectStore store = store()) {
            return store.listVersions("data/").stream()
                    .mapToLong(VersionEntry::size)
                    .sum();
        }
    }

    /** Restores the newest snapshot of 'src' into {@code into} and checks it holds the source's files, byte for byte. */
    private void assertNewestRestoresAs(Path src, String into) throws Exception {
        Path target = home.resolve(into);
        assertThat(run(at("restore", "src", target.toString()))).as(err()).isZero();
        assertThat(FieldCasesTest.files(target)).isEqualTo(FieldCasesTest.files(src));
        for (String f : FieldCasesTest.files(src)) {
            assertThat(target.resolve(f)).hasSameBinaryContentAs(src.resolve(f));
        }
    }

    /** Twenty files of one chunk each backed up, then again with the first {@code changed} of them changed. */
    private Path backedUpTwiceWithAChange(int changed) throws Exception {
        Path src = Files.createDirectories(home.resolve("src"));
        writeFiles(src, 0, 20, 0);
        assertThat(run(at("init"))).as(err()).isZero();
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        writeFiles(src, 0, changed, 100);
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        return src;
    }

    /**
     * {@link #backedUpTwiceWithAChange}, then the first backup forgotten: its pack holds {@code changed}
     * chunks no snapshot needs.
     */
    private Path forgottenAfterAChange(int changed) throws Exception {
        Path src = backedUpTwiceWithAChange(changed);
        assertThat(run(at("forget", "src", "--keep-last", "1"))).as(err()).isZero();
        return src;
    }

    /**
     * Field case (a restic user): a backup, a second one changing two files of twenty, forget of the
     * first, then {@code prune --grace 0s} deleted nothing and said nothing of why: the two forgotten
     * chunks were a tenth of their pack, under the fifth at which it was repacked. Now a prune repacks
     * the packs with the most unused space until what is left is within {@code --max-unused} (5 %, as
     * restic's), and says what is left.
     */
    @Test
    void pruneAfterForgetRepacksUnusedSpaceOverTheLimitAndSaysWhatIsLeft() throws Exception {
        Path src = forgottenAfterAChange(2);
        long before = packBytes();
        assertThat(run(at("prune", "--dry-run", "--grace", "0s"))).as(err()).isZero();
        assertThat(out())
                .containsPattern("Prune dry run: would delete 1 pack, write about 1 pack of repacked chunks, about"
                        + " 39\\d\\.\\d KiB \\([\\d,]+ bytes\\) would be given back by packs; ")
                .containsPattern("Unused space that would be left in packs: 0 bytes, 0\\.0% of their"
                        + " 3\\.8 MiB \\([\\d,]+ bytes\\)\\.");
        assertThat(packBytes()).isEqualTo(before);

        assertThat(run(at("prune", "--grace", "0s"))).as(err()).isZero();
        assertThat(out())
                .containsPattern(
                        "Prune done: deleted 1 pack, wrote 1 pack of repacked chunks, 39\\d\\.\\d KiB \\([\\d,]+"
                                + " bytes\\) given back by packs; ")
                .containsPattern(
                        "Unused space left in packs: 0 bytes, 0\\.0% of their 3\\.8 MiB \\([\\d,]+" + " bytes\\)\\.");
        // the two forgotten chunks' bytes are gone from the store
        assertThat(before - packBytes()).isGreaterThan(2 * 200_000L);
        assertNewestRestoresAs(src, "after-prune");
        assertThat(run(at("verify", "src"))).as(err()).isZero();
        assertNoStackTrace();
    }

    /**
     * One changed file of twenty: its forgotten chunk is 4.8 % of the packs' chunks, within the default
     * 5 %: nothing is repacked and the line says why; {@code --max-unused 0} then repacks it away.
     */
    @Test
    void unusedSpaceWithinTheLimitIsLeftAndTheLineSaysWhyUntilMaxUnusedZero() throws Exception {
        Path src = forgottenAfterAChange(1);
        long before = packBytes();
        assertThat(run(at("prune", "--grace", "0s"))).as(err()).isZero();
        assertThat(out())
                .contains("Prune done: deleted 0 packs, wrote 0 packs of repacked chunks, 0 bytes given back"
                        + " by packs; ")
                .containsPattern(
                        "Unused space left in packs: 19\\d\\.\\d KiB \\(200,\\d{3} bytes\\), 4\\.8% of their 4\\.0"
                                + " MiB \\([\\d,]+ bytes\\); --max-unused 5% allows it \\(--max-unused 0 repacks until none is"
                                + " left\\)\\.");
        assertThat(packBytes()).isEqualTo(before);

        assertThat(run(at("prune", "--grace", "0s", "--max-unused", "0")))
                .as(err())
                .isZero();
        assertThat(out())
                .contains("Prune done: deleted 1 pack, wrote 1 pack of repacked chunks, 19")
                .containsPattern("Unused space left in packs: 0 bytes, 0\\.0% of their 3\\.8 MiB");
        assertThat(before - packBytes()).isGreaterThan(200_000L);
        assertNewestRestoresAs(src, "after-prune");
    }

    /** {@code --max-unused unlimited}, on {@code forget --prune}: no pack that holds a chunk a snapshot needs is repacked. */
    @Test
    void maxUnusedUnlimitedRepacksNoPackThatHoldsANeededChunk() throws Exception {
        Path src = backedUpTwiceWithAChange(10);
        long before = packBytes();
        assertThat(run(at(
                        "forget", "src", "--keep-last", "1", "--prune", "--grace", "0s", "--max-unused", "unlimited")))
                .as(err())
                .isZero();
        // half of the first backup's pack is forgotten: only the limit keeps it
        assertThat(out())
                .contains("Prune done: deleted 0 packs, wrote 0 packs of repacked chunks, 0 bytes given back"
                        + " by packs; ")
                .containsPattern("Unused space left in packs: 1\\.9 MiB \\([\\d,]+ bytes\\), 33\\.3% of their 5\\.7 MiB"
                        + " \\([\\d,]+ bytes\\); --max-unused unlimited allows it");
        assertThat(packBytes()).isEqualTo(before);
        assertNewestRestoresAs(src, "after-prune");
    }

    /** A store of the earlier format has no packs: the limit is checked, then changes nothing, and a note says so. */
    @Test
    void maxUnusedOnAStoreOfTheEarlierFormatChangesNothingAndSaysSo() throws Exception {
        Path src = Files.createDirectories(home.resolve("src"));
        writeFiles(src, 0, 2, 0);
        assertThat(run(at("backup", src.toString(), "--insecure-no-encryption")))
                .as(err())
                .isZero();
        assertThat(run(at("prune", "--grace", "0s", "--max-unused", "0")))
                .as(err())
                .isZero();
        assertThat(err())
                .contains("Note: --max-unused applies to the packs of an encrypted repository (ballast init); this"
                        + " store of the earlier format has none, so it changes nothing here.");
        assertThat(run(at("prune", "--grace", "0s"))).as(err()).isZero();
        assertThat(err()).doesNotContain("--max-unused");
    }

    /**
     * Field input: a verify of a subset said "the other N checked present" while one of those N was
     * reported damaged.
     */
    @Test
    void aSubsetVerifyCountsADamagedFileAmongThoseNotReadAsDamagedNotPresent() throws Exception {
        Path src = Files.createDirectories(home.resolve("src"));
        writeFiles(src, 0, 1, 0);
        assertThat(run(at("init"))).as(err()).isZero();
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        List<String> firstPacks;
        try (LocalObjectStore store = store()) {
            firstPacks = store.list("data/");
        }
        writeFiles(src, 1, 3, 0);
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        // f0.bin's only pack gone; f1.bin and f2.bin are in the second backup's pack
        try (LocalObjectStore store = store()) {
            assertThat(store.list("data/")).hasSize(firstPacks.size() + 1);
            for (String pack : firstPacks) {
                for (VersionEntry v : store.versions(pack)) {
                    store.deleteVersion(pack, v.versionId());
                }
            }
        }
        // a group holding f1.bin and not f0.bin: f0.bin is among the files not read
        int groups = 2;
        while (dev.ballast.backup.verify.DataSubset.groupOf("f1.bin", groups)
                == dev.ballast.backup.verify.DataSubset.groupOf("f0.bin", groups)) {
            groups++;
        }
        int group = dev.ballast.backup.verify.DataSubset.groupOf("f1.bin", groups);
        int read = dev.ballast.backup.verify.DataSubset.groupOf("f2.bin", groups) == group ? 2 : 1;
        String subset = (group + 1) + "/" + groups;

        assertThat(run(at("verify", "src", "--read-data-subset", subset))).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(err()).contains("Damaged: f0.bin");
        assertThat(out())
                .contains("FAILED: " + read + " of 3 files read and verified (subset " + subset + "), ")
                .contains("; the other " + (3 - read) + " checked for presence with their size: " + (2 - read)
                        + " present, 1 damaged.")
                .doesNotContain("checked present");
        assertNoStackTrace();
    }

    /**
     * Field input: a verify of a subset that read one file of three said "3 of 3 files verified"; it now
     * says how many it read and verified, and that the others were only checked to be present.
     */
    @Test
    void aSubsetVerifySaysHowManyFilesItReadAndThatTheOthersWereOnlyCheckedPresent() throws Exception {
        backedUp();
        // a number of groups whose first holds some of the three files but not all
        int groups = 2;
        int read;
        while (true) {
            int t = groups;
            read = (int) java.util.stream.IntStream.range(0, 3)
                    .filter(i -> dev.ballast.backup.verify.DataSubset.groupOf("f" + i + ".bin", t) == 0)
                    .count();
            if (read > 0 && read < 3) {
                break;
            }
            groups++;
        }
        String subset = "1/" + groups;

        assertThat(run(at("verify", "src", "--read-data-subset", subset)))
                .as(err())
                .isZero();
        assertThat(out())
                .contains(") OK: " + read + " of 3 files read and verified (subset " + subset + "), ")
                .endsWith("; the other " + (3 - read) + " checked present with their size.\n")
                .doesNotContain("3 of 3 files verified");

        assertThat(run(at("verify", "src"))).as(err()).isZero();
        assertThat(out())
                .contains(") OK: 3 of 3 files verified, ")
                .doesNotContain("subset")
                .doesNotContain("other");
    }
}
