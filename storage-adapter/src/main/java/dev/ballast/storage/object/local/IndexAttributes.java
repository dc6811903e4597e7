package dev.ballast.storage.object.local;

import dev.ballast.storage.internal.BlockDigests;
import dev.ballast.storage.internal.ReservedMetadata;
import dev.ballast.storage.object.ObjectMetadata;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What the index keeps of a version besides its row, in two tables a writer adds to any store it
 * opens ({@code CREATE TABLE IF NOT EXISTS}: the schema version stays 2, and a Ballast that does not
 * know them ignores them):
 *
 * <ul>
 *   <li>{@code attributes (version_id, metadata)}: the version's {@link ObjectMetadata}, encoded by
 *       {@link #encode}; only versions written with metadata have a row;</li>
 *   <li>{@code block_digests (address, digests)}: the per-block SHA-256 table ({@link BlockDigests})
 *       of a content larger than one block, by content address, so one table serves every version of
 *       the same bytes. Contents of one block need none: their SHA-256 is their one digest.</li>
 * </ul>
 *
 * A store whose writer predates them reads as having neither: no metadata, and ranges of contents
 * larger than one block served unverified. Static; each call runs on the connection given.
 */
final class IndexAttributes {
    private IndexAttributes() {}

    /** Creates the tables if absent (writer only). */
    static void create(Statement s) throws SQLException {
        s.execute("CREATE TABLE IF NOT EXISTS attributes (version_id TEXT PRIMARY KEY, metadata BLOB NOT NULL)"
                + " WITHOUT ROWID");
        s.execute("CREATE TABLE IF NOT EXISTS block_digests (address BLOB PRIMARY KEY, digests BLOB NOT NULL)"
                + " WITHOUT ROWID");
    }

    /** Whether the tables exist (a reader of a store no writer of this version opened sees none). */
    static boolean present(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'attributes'")) {
            return rs.next() && rs.getInt(1) > 0;
        }
    }

    static void putMetadata(Connection c, String versionId, ObjectMetadata metadata) throws SQLException {
        if (metadata.isEmpty()) {
            return;
        }
        try (PreparedStatement p = c.prepareStatement("INSERT OR REPLACE INTO attributes VALUES (?, ?)")) {
            p.setString(1, versionId);
            p.setBytes(2, encode(metadata));
            p.executeUpdate();
        }
    }

    static ObjectMetadata metadata(Connection c, String versionId) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("SELECT metadata FROM attributes WHERE version_id = ?")) {
            p.setString(1, versionId);
            try (ResultSet rs = p.executeQuery()) {
                return rs.next() ? decode(rs.getBytes(1)) : ObjectMetadata.NONE;
            }
        }
    }

    /** Whether any version has metadata: when none has, a listing asks nothing more. */
    static boolean anyMetadata(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT EXISTS (SELECT 1 FROM attributes)")) {
            return rs.next() && rs.getInt(1) == 1;
        }
    }

    static void putBlockDigests(Connection c, byte[] address, byte[] table) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("INSERT OR IGNORE INTO block_digests VALUES (?, ?)")) {
            p.setBytes(1, address);
            p.setBytes(2, table);
            p.executeUpdate();
        }
    }

    static byte @Nullable [] blockDigests(Connection c, byte[] address) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("SELECT digests FROM block_digests WHERE address = ?")) {
            p.setBytes(1, address);
            try (ResultSet rs = p.executeQuery()) {
                return rs.next() ? rs.getBytes(1) : null;
            }
        }
    }

    /** Drops what a removed version had, and the digests of its content when no version holds that any more. */
    static void removed(Connection c, String versionId, byte @Nullable [] droppedContent) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("DELETE FROM attributes WHERE version_id = ?")) {
            p.setString(1, versionId);
            p.executeUpdate();
        }
        if (droppedContent != null) {
            try (PreparedStatement p = c.prepareStatement("DELETE FROM block_digests WHERE address = ?")) {
                p.setBytes(1, droppedContent);
                p.executeUpdate();
            }
        }
    }

    /**
     * Copies the metadata and block digests an intact previous index ({@code previous}) holds into the
     * rebuilt one on {@code c}, for the versions and contents the rebuilt one holds: a rebuild that
     * keeps the previous index's rows keeps what it kept beside them. Nothing when the previous index
     * has no such tables.
     */
    static void copyFrom(Connection c, java.nio.file.Path previous) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("ATTACH DATABASE '" + previous.toString().replace("'", "''") + "' AS previous");
            try {
                boolean present;
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM previous.sqlite_master"
                        + " WHERE type = 'table' AND name IN ('attributes', 'block_digests')")) {
                    present = rs.next() && rs.getInt(1) == 2;
                }
                if (present) {
                    s.execute(
                            "INSERT OR IGNORE INTO attributes SELECT a.version_id, a.metadata FROM previous.attributes a"
                                    + " WHERE a.version_id IN (SELECT version_id FROM versions)");
                    s.execute(
                            "INSERT OR IGNORE INTO block_digests SELECT d.address, d.digests FROM previous.block_digests d"
                                    + " WHERE d.address IN (SELECT address FROM blobs)");
                }
            } finally {
                s.execute("DETACH DATABASE previous");
            }
        }
    }

    /**
     * The metadata as bytes: a format byte (1), a count, then each name and value as
     * {@link DataOutputStream#writeUTF}; the headers are named {@code content-type},
     * {@code cache-control}, {@code content-encoding}, {@code content-disposition}, user keys
     * {@code x-} and the key.
     */
    static byte[] encode(ObjectMetadata m) {
        Map<String, String> all = new LinkedHashMap<>();
        put(all, "content-type", m.contentType());
        put(all, "cache-control", m.cacheControl());
        put(all, "content-encoding", m.contentEncoding());
        put(all, "content-disposition", m.contentDisposition());
        m.user().forEach((k, v) -> all.put("x-" + k, v));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(1);
            out.writeInt(all.size());
            for (Map.Entry<String, String> e : all.entrySet()) {
                out.writeUTF(e.getKey());
                out.writeUTF(e.getValue());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static ObjectMetadata decode(byte[] encoded) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(encoded))) {
            if (in.readByte() != 1) {
                throw new IllegalStateException("unknown metadata format");
            }
            int n = in.readInt();
            ObjectMetadata.Builder b = ObjectMetadata.builder();
            Map<String, String> reserved = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                String name = in.readUTF();
                String value = in.readUTF();
                switch (name) {
                    case "content-type" -> b.contentType(value);
                    case "cache-control" -> b.cacheControl(value);
                    case "content-encoding" -> b.contentEncoding(value);
                    case "content-disposition" -> b.contentDisposition(value);
                    default -> {
                        String key = name.substring(2);
                        if (key.startsWith(ObjectMetadata.RESERVED_PREFIX)) {
                            reserved.put(key, value); // Ballast's own, such as the client-side encryption mark
                        } else {
                            b.user(key, value);
                        }
                    }
                }
            }
            return ReservedMetadata.withAll(b.build(), reserved);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void put(Map<String, String> all, String name, @Nullable String value) {
        if (value != null) {
            all.put(name, value);
        }
    }
}
