package dev.ballast.storage.object.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.storage.internal.Sha256;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.test.ObjectStoreContract;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The object store contract against {@link LocalObjectStore}, with every case run: damage at rest
 * and objects without Ballast metadata are staged by changing the index behind the store's back,
 * and a second writer is a second store opened on the same directory in this process.
 */
@ExtendWith(LeakCheck.class)
class LocalObjectStoreContractTest extends ObjectStoreContract {
    @TempDir
    Path dir;

    private Path root;

    @Override
    protected ObjectStore newStore() {
        root = dir.resolve("store");
        return LocalObjectStore.open(root);
    }

    @Override
    protected String storeName() {
        return "LocalObjectStore";
    }

    /** Stores {@code bytes}, then records another SHA-256 for that version, as damage at rest would leave it. */
    @Override
    protected void plantObject(String key, byte[] bytes, String recordedSha256Hex) {
        ObjectVersion v = store.put(key, ObjectContent.ofBytes(bytes));
        rewrite(v, Sha256.fromHex(recordedSha256Hex), 1);
    }

    /** Stores {@code bytes}, then removes the version's recorded SHA-256, generation and block digests. */
    @Override
    protected void plantForeignObject(String key, byte[] bytes) {
        ObjectVersion v = store.put(key, ObjectContent.ofBytes(bytes));
        rewrite(v, null, 0);
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + root.resolve(LocalObjectStore.INDEX_FILE));
                PreparedStatement drop = c.prepareStatement("DELETE FROM block_digests WHERE address = ?")) {
            drop.setBytes(1, Sha256.of(bytes));
            drop.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Flips a bit of the byte at {@code offset} in the content file of the key's current version. */
    @Override
    protected void damageStoredByte(String key, long offset) {
        String sha;
        try (var read = store.get(key)) {
            sha = read.version().sha256();
        }
        Path file = root.resolve("blobs").resolve(sha.substring(0, 2)).resolve(sha);
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(
                file, java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE)) {
            java.nio.ByteBuffer one = java.nio.ByteBuffer.allocate(1);
            ch.read(one, offset);
            one.put(0, (byte) (one.get(0) ^ 1)).rewind();
            ch.write(one, offset);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    protected ObjectStore openAnotherWriter(Clock clock) {
        return LocalObjectStore.open(
                root, LocalStoreConfig.builder().clock(clock).build());
    }

    @Override
    protected void assertNoIncompleteWrites() {
        try (Stream<Path> temporary = Files.list(root.resolve("tmp"))) {
            assertThat(temporary)
                    .as("temporary files left in " + root.resolve("tmp"))
                    .isEmpty();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void rewrite(ObjectVersion v, byte[] sha256, long generation) {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + root.resolve(LocalObjectStore.INDEX_FILE));
                PreparedStatement version =
                        c.prepareStatement("UPDATE versions SET sha256 = ?, generation = ? WHERE version_id = ?");
                PreparedStatement current = c.prepareStatement("UPDATE current SET generation = ? WHERE seq ="
                        + " (SELECT seq FROM versions WHERE version_id = ?)")) {
            version.setBytes(1, sha256);
            version.setLong(2, generation);
            version.setString(3, v.versionId());
            assertThat(version.executeUpdate()).isEqualTo(1);
            current.setLong(1, generation);
            current.setString(2, v.versionId());
            current.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
