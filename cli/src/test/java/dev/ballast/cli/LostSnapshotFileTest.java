package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.storage.object.local.LocalObjectStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A snapshot whose file is gone from the local store (a tester's {@code rm} of the newest snapshot's
 * file under {@code blobs/}): it was left out of every listing, so {@code list} showed the one before
 * it as the latest, {@code check --read-data} said OK, {@code restore} restored the older snapshot with
 * exit 0, and {@code prune --grace 0s} deleted the chunks only the lost snapshot used. The store's index
 * still records it: it is damaged, and every command says so.
 */
class LostSnapshotFileTest extends EncryptedStoreCli {

    @Test
    void aSnapshotWhoseFileIsDeletedIsDamagedNotGone() throws Exception {
        Path src = backedUp();
        writeFiles(src, 0, 1, 100); // f0.bin changed: a new chunk only the second snapshot uses
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        String snapshots;
        try (LocalObjectStore store = store()) {
            snapshots = store.list("snapshots/").get(0);
            assertThat(store.versions(snapshots)).hasSize(2);
        }
        Path lost = contentFile(snapshots);
        Files.delete(lost);
        List<String> dataBefore = storeFiles();

        assertThat(run(at("list"))).as(err()).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(out()).contains("DAMAGED");
        assertThat(run(at("check", "--read-data"))).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(out() + err()).contains("Damaged");

        assertThat(run(at("ls", "src"))).isEqualTo(ExitCodes.OLDER_BACKUP_USED);
        assertThat(err()).contains("Listed an older backup of 'src'");
        Path target = home.resolve("r");
        assertThat(run(at("restore", "src", target.toString()))).isEqualTo(ExitCodes.OLDER_BACKUP_USED);
        assertThat(err()).contains("Restored an older backup of 'src'");
        assertThat(target.resolve("f1.bin")).exists();

        assertThat(run(at("prune", "--grace", "0s"))).isNotZero();
        assertThat(storeFiles()).as("prune deleted nothing").containsAll(dataBefore);
    }

    /**
     * A tester's: the damaged manifest of an encrypted repository was named by the earlier format's
     * object, "The manifest 'src/.ballast-manifest.json' version ... is damaged", which the store does not have.
     */
    @Test
    void aDamagedSnapshotIsNamedByTheObjectThatHoldsIt() throws Exception {
        backedUp();
        String first = firstSnapshot();
        String snapshots;
        try (LocalObjectStore store = store()) {
            snapshots = store.list("snapshots/").get(0);
        }
        Path file = contentFile(snapshots);
        byte[] b = Files.readAllBytes(file);
        b[60] ^= 0x01;
        Files.write(file, b);

        assertThat(run(at("restore", "src", home.resolve("r").toString(), "--manifest-version", first)))
                .isEqualTo(ExitCodes.INTEGRITY);
        assertThat(err())
                .startsWith("Error: The manifest of 'src' (stored as '" + snapshots + "') version " + first
                        + " is damaged (")
                .doesNotContain(".ballast-manifest.json");
    }

    private List<String> storeFiles() throws Exception {
        try (var files = Files.walk(data().resolve("ballast-backups"))) {
            return files.filter(Files::isRegularFile)
                    .map(Path::toString)
                    .filter(p -> p.contains("/blobs/") || p.endsWith(".pack"))
                    .sorted()
                    .toList();
        }
    }

    @Test
    void pruneRefusesWhileAPackTheIndexNamesIsMissingAsResticsDoes() throws Exception {
        // A tester's: with a data pack's file deleted, check failed (exit 4) but prune said "Prune done", exit 0,
        // and counted the missing pack's bytes as unused space.
        Path src = backedUp();
        Path pack;
        try (LocalObjectStore store = store()) {
            pack = contentFile(store.list("data/").get(0));
        }
        Files.delete(pack);
        List<String> before = storeFiles();

        assertThat(run(at("prune", "--grace", "0s"))).isEqualTo(ExitCodes.INCOMPLETE);
        assertThat(err())
                .contains("the index names is missing from the store with chunks no other pack holds")
                .contains("nothing is pruned until 'ballast repair index'");
        assertThat(out()).doesNotContain("Prune done");
        assertThat(storeFiles()).isEqualTo(before);

        assertThat(run(at("repair", "index"))).isEqualTo(ExitCodes.INTEGRITY); // chunks were lost
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        assertThat(run(at("prune", "--grace", "0s"))).as(err()).isZero();
        assertThat(out()).contains("Prune done");
    }
}
