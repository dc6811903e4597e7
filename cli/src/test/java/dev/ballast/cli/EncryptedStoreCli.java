package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.VersionEntry;
import dev.ballast.storage.object.local.LocalObjectStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

/**
 * An encrypted repository in the local store under {@link #data()}, made and damaged through the
 * commands and the store: what the tests of damage, repair and check start from.
 */
abstract class EncryptedStoreCli extends InProcessCli {
    LocalObjectStore store() {
        return LocalObjectStore.open(data().resolve("ballast-backups"));
    }

    /** Three files of one chunk each, backed up as 'src' into a new encrypted repository. */
    Path backedUp() throws Exception {
        Path src = Files.createDirectories(home.resolve("src"));
        writeFiles(src, 0, 3, 0);
        assertThat(run(at("init"))).as(err()).isZero();
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        return src;
    }

    /**
     * {@link #backedUp()}, then a second backup after a mode change (a new files part of the manifest, no new
     * chunk) and a forget of the first: the first snapshot's manifest part is left for a prune.
     */
    Path withAForgottenManifestPart() throws Exception {
        Path src = backedUp();
        Files.setPosixFilePermissions(
                src.resolve("f0.bin"), java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        assertThat(run(at("forget", "src", "--keep-last", "1"))).as(err()).isZero();
        return src;
    }

    /** Writes {@code f<i>.bin} for {@code from <= i < to} into {@code src}: 200,000 random bytes seeded {@code seed + i}. */
    static void writeFiles(Path src, int from, int to, int seed) throws java.io.IOException {
        for (int i = from; i < to; i++) {
            byte[] b = new byte[200_000];
            new Random(seed + i).nextBytes(b);
            Files.write(src.resolve("f" + i + ".bin"), b);
        }
    }

    /** The manifest version ID of the first backup of the only name. */
    String firstSnapshot() {
        try (LocalObjectStore store = store()) {
            String key = store.list("snapshots/").get(0);
            return store.versions(key).stream()
                    .min(Comparator.comparing(VersionEntry::lastModified))
                    .orElseThrow()
                    .versionId();
        }
    }

    static byte[] bytes(LocalObjectStore store, String key) throws Exception {
        try (ObjectRead r = store.get(key, ReadOptions.latest().withAllowCache(false))) {
            return r.readAllBytes();
        }
    }

    void flipByte(String prefix, int at) throws Exception {
        try (LocalObjectStore store = store()) {
            List<String> keys = store.list(prefix);
            assertThat(keys).hasSize(1);
            byte[] b = bytes(store, keys.get(0));
            b[at < 0 ? b.length + at : at] ^= 0x01;
            store.put(keys.get(0), ObjectContent.ofBytes(b));
        }
    }

    void assertNoStackTrace() {
        assertThat(err()).doesNotContain("\tat ").doesNotContain("Exception");
    }

    /** The file under the local store's {@code blobs/} that holds the bytes of {@code key}'s newest version. */
    Path contentFile(String key) {
        try (LocalObjectStore store = store()) {
            VersionEntry v = store.versions(key).get(0);
            String sha256 = store.head(key, v.versionId()).sha256();
            return data().resolve("ballast-backups")
                    .resolve("blobs")
                    .resolve(sha256.substring(0, 2))
                    .resolve(sha256);
        }
    }
}
