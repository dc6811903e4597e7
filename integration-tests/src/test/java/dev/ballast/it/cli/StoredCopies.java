package dev.ballast.it.cli;

import dev.ballast.storage.object.local.LocalObjectStore;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * Damages one stored object version behind the store's back, as a failing disk or a careless hand
 * would: in the local store's pack file, content file or index row, or in the file S3Mock keeps the version's
 * bytes in. Nothing else (recorded SHA-256, length, version ID) is touched.
 */
final class StoredCopies {
    private StoredCopies() {}

    /** Flips one bit of the byte in the middle. */
    static byte[] flipOneByte(byte[] bytes) {
        byte[] damaged = bytes.clone();
        damaged[damaged.length / 2] ^= 0x20;
        return damaged;
    }

    /** The first half. */
    static byte[] truncateToHalf(byte[] bytes) {
        return Arrays.copyOf(bytes, bytes.length / 2);
    }

    /** Ten bytes more. */
    static byte[] appendTen(byte[] bytes) {
        return Arrays.copyOf(bytes, bytes.length + 10);
    }

    /**
     * Rewrites the bytes of {@code versionId} in the local store under {@code storeDir} (the CLI's
     * {@code DATA-DIR/ballast-backups}): in its pack file (the same length, or cut short when it is the pack's last), its row of inline
     * content in the index (a store of the earlier layout), or its content file.
     */
    static void damageLocal(Path storeDir, String versionId, UnaryOperator<byte[]> damage) {
        String url = "jdbc:sqlite:" + storeDir.resolve(LocalObjectStore.INDEX_FILE);
        try (Connection c = DriverManager.getConnection(url)) {
            byte[] address;
            try (PreparedStatement s = c.prepareStatement("SELECT content FROM versions WHERE version_id = ?")) {
                s.setString(1, versionId);
                try (ResultSet rs = s.executeQuery()) {
                    if (!rs.next()) {
                        throw new IllegalArgumentException("no version " + versionId + " in " + storeDir);
                    }
                    address = rs.getBytes(1);
                }
            }
            byte[] inline = null;
            long pack = 0;
            long offset = 0;
            int size = 0;
            try (PreparedStatement s =
                    c.prepareStatement("SELECT data, pack, pack_offset, size FROM blobs WHERE address = ?")) {
                s.setBytes(1, address);
                try (ResultSet rs = s.executeQuery()) {
                    if (rs.next()) {
                        inline = rs.getBytes(1);
                        pack = rs.getLong(2);
                        offset = rs.getLong(3);
                        size = rs.getInt(4);
                    }
                }
            }
            if (pack != 0) {
                // A small content in a pack file: its length is the index's, so only its bytes can change.
                Path file = storeDir.resolve("packs").resolve(String.format("%08x.pack", pack));
                byte[] bytes = new byte[size];
                try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
                    raf.seek(offset);
                    raf.readFully(bytes);
                    byte[] damaged = damage.apply(bytes);
                    boolean last = offset + size == raf.length();
                    if (damaged.length > size || (damaged.length < size && !last)) {
                        throw new IllegalArgumentException("the length of a content in a pack file is recorded in the"
                                + " index: only the last one can come up short (the pack cut); damage a larger"
                                + " (file) content to change a length");
                    }
                    raf.seek(offset);
                    raf.write(damaged);
                    if (damaged.length < size) {
                        raf.setLength(offset + damaged.length);
                    }
                }
                return;
            }
            if (inline != null) {
                try (PreparedStatement s = c.prepareStatement("UPDATE blobs SET data = ? WHERE address = ?")) {
                    s.setBytes(1, damage.apply(inline));
                    s.setBytes(2, address);
                    s.executeUpdate();
                }
                return;
            }
            String hex = java.util.HexFormat.of().formatHex(address);
            Path file = storeDir.resolve("blobs").resolve(hex.substring(0, 2)).resolve(hex);
            Files.write(file, damage.apply(Files.readAllBytes(file)));
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Deletes the content file holding {@code versionId}'s bytes in the local store under
     * {@code storeDir}, as a careless hand or a failing disk would, leaving its index row; returns the
     * file deleted.
     */
    static Path deleteLocalContentFile(Path storeDir, String versionId) {
        String url = "jdbc:sqlite:" + storeDir.resolve(LocalObjectStore.INDEX_FILE);
        try (Connection c = DriverManager.getConnection(url);
                PreparedStatement s = c.prepareStatement("SELECT content FROM versions WHERE version_id = ?")) {
            s.setString(1, versionId);
            byte[] address;
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalArgumentException("no version " + versionId + " in " + storeDir);
                }
                address = rs.getBytes(1);
            }
            String hex = java.util.HexFormat.of().formatHex(address);
            Path file = storeDir.resolve("blobs").resolve(hex.substring(0, 2)).resolve(hex);
            Files.delete(file);
            return file;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Rewrites the file in which S3Mock, with its store under {@code s3Root}, keeps {@code versionId}'s bytes. */
    static void damageS3Mock(Path s3Root, String versionId, UnaryOperator<byte[]> damage) {
        try (Stream<Path> files = Files.walk(s3Root)) {
            List<Path> matches = files.filter(Files::isRegularFile)
                    .filter(p -> p.getFileName().toString().startsWith(versionId)
                            && p.getFileName().toString().endsWith("binaryData"))
                    .toList();
            if (matches.size() != 1) {
                throw new IllegalStateException("expected one data file of version " + versionId + " under " + s3Root
                        + " but found " + matches);
            }
            Path file = matches.get(0);
            Files.write(file, damage.apply(Files.readAllBytes(file)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
