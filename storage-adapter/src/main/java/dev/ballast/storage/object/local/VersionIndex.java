package dev.ballast.storage.object.local;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.sqlite.SQLiteConfig;

/**
 * The version index of a {@link LocalObjectStore}: one SQLite database in WAL mode holding every
 * version (and delete marker) of every key, the current version of each key, and the content rows
 * that versions point at. Every write runs in one transaction, so a crash leaves either the old or
 * the new state; {@code synchronous=FULL} syncs the write-ahead log at every commit, so a committed
 * write survives a power cut (<a href="https://www.sqlite.org/wal.html">Write-Ahead Logging</a>,
 * <a href="https://www.sqlite.org/pragma.html#pragma_synchronous">PRAGMA synchronous</a>).
 *
 * <p>Keys are stored as their UTF-8 bytes in {@code BLOB} columns, which SQLite compares with
 * {@code memcmp}: index order is S3's UTF-8 binary order, and a prefix is a range.
 *
 * <p>One instance wraps one JDBC connection and is not thread-safe; callers serialise its use.
 */
final class VersionIndex implements AutoCloseable, Packs.Catalogue {

    /** The schema this code writes and reads, kept in {@code PRAGMA user_version}. */
    static final int SCHEMA_VERSION = 2;

    /** The first schema: small contents inline in {@code blobs.data}, no pack files. Read, and migrated by a writer. */
    static final int SCHEMA_VERSION_INLINE_ONLY = 1;

    private static final String VERSION_COLUMNS =
            "v.seq, v.version_id, v.delete_marker, v.size, v.content, v.sha256, v.generation, v.modified_ms";

    private final Connection connection;
    private final boolean readOnly;
    /** The schema of the database this connection reads: {@link #SCHEMA_VERSION}, or 1 for a reader of an unmigrated store. */
    private int schema;

    private @Nullable PreparedStatement currentOf;
    private @Nullable PreparedStatement currentWithContent;
    private @Nullable PreparedStatement byVersionId;
    private @Nullable PreparedStatement historyOf;
    private @Nullable PreparedStatement insertVersion;
    private @Nullable PreparedStatement newestGenerations;
    private @Nullable PreparedStatement locationOf;
    private @Nullable PreparedStatement addReference;
    private @Nullable PreparedStatement setCurrent;
    private @Nullable PreparedStatement upsertBlob;
    private @Nullable Statement transactions;
    private boolean inTransaction;
    /** Whether the tables of {@link IndexAttributes} exist; rechecked while they do not. */
    private boolean attributesPresent;

    private VersionIndex(Connection connection, boolean readOnly) {
        this.connection = connection;
        this.readOnly = readOnly;
    }

    /** The connection, for {@link IndexAttributes}. */
    Connection connection() {
        return connection;
    }

    /** Whether the tables of {@link IndexAttributes} exist in this database. */
    boolean attributesPresent() throws SQLException {
        if (!attributesPresent) {
            attributesPresent = IndexAttributes.present(connection);
        }
        return attributesPresent;
    }

    /** One version row, content included when it is stored inline and was asked for. */
    record Row(
            long seq,
            String key,
            String versionId,
            boolean deleteMarker,
            long size,
            byte[] content,
            byte[] sha256,
            long generation,
            long modifiedMillis,
            byte @Nullable [] inlineData,
            long pack,
            long packOffset,
            boolean latest) {
        /** Whether the content lives in a pack file ({@link #pack()}, at {@link #packOffset()}). */
        boolean packed() {
            return pack != 0;
        }
    }

    /**
     * Opens {@code database} for writing, creating the schema when it is new.
     *
     * @param inlineThresholdIfNew recorded as the store's inline threshold when the schema is created
     * @param smallLog whether the write-ahead log is checkpointed every 128 pages (512 KiB) and
     *     truncated to that size, so that a writer removing versions on a full disk needs little
     *     space (see {@link LocalStoreConfig#forRemoval()}); else every 4096 pages
     */
    static VersionIndex openWriter(Path database, int inlineThresholdIfNew, boolean smallLog) throws SQLException {
        SQLiteConfig config = baseConfig();
        config.setJournalMode(SQLiteConfig.JournalMode.WAL);
        config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
        Connection c = config.createConnection("jdbc:sqlite:" + database);
        VersionIndex index = new VersionIndex(c, false);
        try {
            index.createOrCheckSchema(inlineThresholdIfNew);
            if (smallLog) {
                try (Statement s = c.createStatement()) {
                    s.execute("PRAGMA wal_autocheckpoint = 128");
                    s.execute("PRAGMA journal_size_limit = 524288");
                }
            }
            index.prepare();
            return index;
        } catch (SQLException | RuntimeException e) {
            index.closeQuietly();
            throw e;
        }
    }

    /**
     * Opens the database at {@code url} (a JDBC URL: {@code jdbc:sqlite:PATH}, or an SQLite URI
     * filename such as {@code jdbc:sqlite:file:/PATH?immutable=1}; see {@link IndexReaders}), which
     * must exist with a known schema, for reading only. The first query runs here, so a database
     * that cannot be read (its {@code -shm} cannot be created, say) fails here, not later.
     */
    static VersionIndex openReader(String url) throws SQLException {
        SQLiteConfig config = baseConfig();
        config.setReadOnly(true);
        Connection c = config.createConnection(url);
        VersionIndex index = new VersionIndex(c, true);
        try {
            index.checkSchemaVersion();
            index.prepare();
            return index;
        } catch (SQLException | RuntimeException e) {
            index.closeQuietly();
            throw e;
        }
    }

    /** Initialises the driver (its configuration sets up date formats and locale data) and loads its native library. */
    static void preload() throws Exception {
        baseConfig();
        org.sqlite.SQLiteJDBCLoader.initialize();
    }

    private static SQLiteConfig baseConfig() {
        SQLiteConfig config = new SQLiteConfig();
        // Another connection's commit or checkpoint holds the lock for milliseconds; wait rather than fail.
        config.setBusyTimeout(30_000);
        // Otherwise the driver prepares and runs "SELECT last_insert_rowid()" after every INSERT.
        config.setGetGeneratedKeys(false);
        return config;
    }

    private void createOrCheckSchema(int inlineThreshold) throws SQLException {
        try (Statement s = connection.createStatement()) {
            // Checkpoints copy the log into the database and sync it; every 16 MiB of log instead of 4 MiB
            // lets a burst of small writes reach the disk in fewer, larger syncs.
            s.execute("PRAGMA wal_autocheckpoint = 4096");
            s.execute("PRAGMA cache_size = -16384"); // 16 MiB of pages: the indexes of a large store stay in memory
            int version = userVersion(s);
            if (version == SCHEMA_VERSION) {
                IndexAttributes.create(s);
                attributesPresent = true;
                schema = version;
                return;
            }
            if (version != 0 && version != SCHEMA_VERSION_INLINE_ONLY) {
                throw schemaMismatch(version);
            }
            s.execute("BEGIN IMMEDIATE");
            try {
                version = userVersion(s);
                if (version == 0) {
                    s.execute("CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)");
                    s.execute("CREATE TABLE versions (seq INTEGER PRIMARY KEY AUTOINCREMENT, k BLOB NOT NULL,"
                            + " version_id TEXT NOT NULL UNIQUE, delete_marker INTEGER NOT NULL, size INTEGER NOT NULL,"
                            + " content BLOB, sha256 BLOB, generation INTEGER NOT NULL, modified_ms INTEGER NOT NULL)");
                    s.execute("CREATE INDEX versions_by_key ON versions (k, seq)");
                    s.execute("CREATE TABLE current (k BLOB PRIMARY KEY, seq INTEGER NOT NULL,"
                            + " delete_marker INTEGER NOT NULL, generation INTEGER NOT NULL) WITHOUT ROWID");
                    // Every appended version becomes its key's current one inside SQLite, without another
                    // statement (and JNI round trip) per write.
                    s.execute("CREATE TRIGGER versions_become_current AFTER INSERT ON versions BEGIN"
                            + " INSERT INTO current (k, seq, delete_marker, generation)"
                            + " VALUES (new.k, new.seq, new.delete_marker, new.generation)"
                            + " ON CONFLICT (k) DO UPDATE SET seq = excluded.seq, delete_marker = excluded.delete_marker,"
                            + " generation = excluded.generation; END");
                    // refs: how many versions hold the content; a counter rather than an index on versions.content,
                    // whose random keys would dirty a page of its own for nearly every write. The bytes are in
                    // data (schema 1's small contents), in pack file pack at pack_offset, or in a content file.
                    s.execute("CREATE TABLE blobs (address BLOB PRIMARY KEY, size INTEGER NOT NULL, data BLOB,"
                            + " refs INTEGER NOT NULL, pack INTEGER, pack_offset INTEGER)");
                    // AUTOINCREMENT: an ID is never given twice, so a reader holding a row read before a
                    // compaction deleted its pack never reads another pack by that name.
                    s.execute("CREATE TABLE packs (id INTEGER PRIMARY KEY AUTOINCREMENT)");
                    s.execute("INSERT INTO meta VALUES ('inline_threshold', '" + inlineThreshold + "')");
                    // Every version of a new store is in its journal from the first.
                    s.execute("INSERT INTO meta VALUES ('" + JOURNALLED + "', '1')");
                    s.execute("PRAGMA user_version = " + SCHEMA_VERSION);
                } else if (version == SCHEMA_VERSION_INLINE_ONLY) {
                    // Adding nullable columns rewrites no row: schema 1's inline contents stay where they are.
                    s.execute("ALTER TABLE blobs ADD COLUMN pack INTEGER");
                    s.execute("ALTER TABLE blobs ADD COLUMN pack_offset INTEGER");
                    s.execute("CREATE TABLE packs (id INTEGER PRIMARY KEY AUTOINCREMENT)");
                    s.execute("PRAGMA user_version = " + SCHEMA_VERSION);
                } else if (version != SCHEMA_VERSION) {
                    throw schemaMismatch(version);
                }
                IndexAttributes.create(s);
                s.execute("COMMIT");
            } catch (SQLException e) {
                s.execute("ROLLBACK");
                throw e;
            }
            attributesPresent = true;
            schema = SCHEMA_VERSION;
        }
    }

    private void checkSchemaVersion() throws SQLException {
        try (Statement s = connection.createStatement()) {
            int version = userVersion(s);
            if (version != SCHEMA_VERSION && version != SCHEMA_VERSION_INLINE_ONLY) {
                throw schemaMismatch(version);
            }
            schema = version;
        }
    }

    private static int userVersion(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery("PRAGMA user_version")) {
            return rs.next() ? rs.getInt(1) : 0;
        }
    }

    private static SQLException schemaMismatch(int version) {
        return new SQLException(
                version == 0
                        ? "the index has no schema"
                        : "the index has schema version " + version + " but this Ballast reads version "
                                + SCHEMA_VERSION);
    }

    private void prepare() throws SQLException {
        currentOf = connection.prepareStatement(
                "SELECT " + VERSION_COLUMNS + " FROM current c JOIN versions v ON v.seq = c.seq WHERE c.k = ?");
        // Schema 1 has no pack columns: its contents are inline or in files.
        String location = location();
        currentWithContent = connection.prepareStatement("SELECT " + VERSION_COLUMNS
                + location
                + " FROM current c JOIN versions v ON v.seq = c.seq LEFT JOIN blobs b ON b.address = v.content"
                + " WHERE c.k = ?");
        byVersionId = connection.prepareStatement("SELECT " + VERSION_COLUMNS
                + location + ", (SELECT c.seq FROM current c WHERE c.k = v.k) = v.seq FROM versions v"
                + " LEFT JOIN blobs b ON b.address = v.content WHERE v.version_id = ? AND v.k = ?");
        historyOf = connection.prepareStatement("SELECT " + VERSION_COLUMNS + location
                + ", (SELECT c.seq FROM current c WHERE c.k = v.k) = v.seq FROM versions v"
                + " LEFT JOIN blobs b ON b.address = v.content WHERE v.k = ? ORDER BY v.seq DESC");
        locationOf = connection.prepareStatement(
                schema == SCHEMA_VERSION_INLINE_ONLY
                        ? "SELECT data, 0, 0 FROM blobs WHERE address = ?"
                        : "SELECT data, pack, pack_offset FROM blobs WHERE address = ?");
        if (!readOnly) {
            addReference = connection.prepareStatement("UPDATE blobs SET refs = refs + 1 WHERE address = ?"
                    + " AND coalesce(pack, 0) = ? AND coalesce(pack_offset, 0) = ?");
            // The generation is the key's previous one plus one, or the wall clock when that is higher (a
            // hybrid logical clock: never backwards, even with a clock set back).
            insertVersion =
                    connection.prepareStatement("INSERT INTO versions (k, version_id, delete_marker, size, content,"
                            + " sha256, generation, modified_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6,"
                            + " max(?7, coalesce((SELECT generation + 1 FROM current WHERE k = ?1), 1)), ?7)");
            // The generations a batch's inserts were given, read back in one query rather than one
            // RETURNING result set per insert (a third of an insert's cost through JDBC).
            newestGenerations =
                    connection.prepareStatement("SELECT generation FROM versions ORDER BY seq DESC LIMIT ?");
            setCurrent = connection.prepareStatement("INSERT INTO current (k, seq, delete_marker, generation)"
                    + " VALUES (?, ?, ?, ?) ON CONFLICT (k) DO UPDATE SET seq = excluded.seq,"
                    + " delete_marker = excluded.delete_marker, generation = excluded.generation");
            // Content written again (a repair among them) takes its new place: the old bytes may be damaged.
            upsertBlob = connection.prepareStatement(
                    "INSERT INTO blobs (address, size, data, refs, pack, pack_offset) VALUES (?, ?, ?, 1, ?, ?)"
                            + " ON CONFLICT (address) DO UPDATE SET data = excluded.data, pack = excluded.pack,"
                            + " pack_offset = excluded.pack_offset, refs = refs + 1");
            transactions = connection.createStatement();
        }
    }

    /**
     * Whether this connection was opened on a store of the earlier schema that a writer has upgraded
     * since: its statements do not see the pack columns, so it must be replaced before its next query.
     */
    boolean outdated() throws SQLException {
        if (schema != SCHEMA_VERSION_INLINE_ONLY) {
            return false;
        }
        try (Statement s = connection.createStatement()) {
            return userVersion(s) != SCHEMA_VERSION_INLINE_ONLY;
        }
    }

    /** Whether the store holds no content at all (a new store, or one whose every version was removed). */
    boolean holdsNoContent() throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT NOT EXISTS (SELECT 1 FROM blobs)")) {
            return rs.next() && rs.getBoolean(1);
        }
    }

    /** The meta row saying that every version of the index is in the store's journal too. */
    static final String JOURNALLED = "journalled";

    /** Whether every version of the index is in the store's journal (a store written before journals is not, until its first writer of this version has written them there). */
    boolean journalled() throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("SELECT 1 FROM meta WHERE name = ?")) {
            ps.setString(1, JOURNALLED);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    /** Records that every version of the index is in the journal; the caller commits. */
    void markJournalled() throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("INSERT OR REPLACE INTO meta VALUES (?, '1')")) {
            ps.setString(1, JOURNALLED);
            ps.executeUpdate();
        }
    }

    /** The meta row holding the journal position the index has reached ({@link Journal.Position}). */
    static final String JOURNAL_POSITION = "journal_position";

    private @Nullable PreparedStatement recordPosition;

    /**
     * The journal position whose every change the index holds, recorded by its newest commit that wrote
     * to the journal; null for an index written before positions were recorded.
     */
    Journal.@Nullable Position journalPosition() throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("SELECT value FROM meta WHERE name = ?")) {
            ps.setString(1, JOURNAL_POSITION);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Journal.Position.parse(rs.getString(1)) : null;
            }
        }
    }

    /** Records that the index holds every change of the journal up to {@code at}; the caller commits. */
    void recordJournalPosition(Journal.Position at) throws SQLException {
        if (recordPosition == null) {
            recordPosition = connection.prepareStatement("INSERT OR REPLACE INTO meta VALUES (?, ?)");
        }
        recordPosition.setString(1, JOURNAL_POSITION);
        recordPosition.setString(2, at.toString());
        recordPosition.executeUpdate();
    }

    /** Records the store's inline threshold (a rebuilt index); the caller commits. */
    void setInlineThreshold(int threshold) throws SQLException {
        try (PreparedStatement ps =
                connection.prepareStatement("INSERT OR REPLACE INTO meta VALUES ('inline_threshold', ?)")) {
            ps.setString(1, Integer.toString(threshold));
            ps.executeUpdate();
        }
    }

    /** Receives versions one at a time. */
    @FunctionalInterface
    interface VersionSink {
        void accept(Journal.Version v) throws java.io.IOException;
    }

    /**
     * Every version and delete marker, in the order they were written, with where its content is
     * (pack and offset; 0 for a content file or content kept in the index).
     *
     * @return how many versions have content kept inside the index (schema 1), which no journal holds
     */
    long forEachVersion(VersionSink sink) throws SQLException, java.io.IOException {
        String location =
                schema == SCHEMA_VERSION_INLINE_ONLY ? "0, 0" : "coalesce(b.pack, 0), coalesce(b.pack_offset, 0)";
        long inline = 0;
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT v.k, v.version_id, v.delete_marker, v.size, v.content, v.sha256,"
                        + " v.generation, v.modified_ms, " + location + ", b.data IS NOT NULL AND v.size > 0"
                        + " FROM versions v LEFT JOIN blobs b ON b.address = v.content ORDER BY v.seq")) {
            while (rs.next()) {
                if (rs.getBoolean(11)) {
                    inline++;
                }
                sink.accept(new Journal.Version(
                        new String(rs.getBytes(1), StandardCharsets.UTF_8),
                        rs.getString(2),
                        rs.getInt(3) != 0,
                        rs.getLong(4),
                        rs.getBytes(5),
                        rs.getBytes(6),
                        rs.getLong(7),
                        rs.getLong(8),
                        rs.getLong(9),
                        rs.getLong(10)));
            }
        }
        return inline;
    }

    /**
     * Inserts a version exactly as the journal recorded it, its generation included, making it its
     * key's current one (a rebuild replays versions in the order they were written); the caller
     * records its content with {@link #putContent} and commits.
     */
    void insertRecorded(Journal.Version v) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("INSERT INTO versions (k, version_id, delete_marker,"
                + " size, content, sha256, generation, modified_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
            ps.setBytes(1, utf8(v.key()));
            ps.setString(2, v.versionId());
            ps.setInt(3, v.deleteMarker() ? 1 : 0);
            ps.setLong(4, v.size());
            ps.setBytes(5, v.address());
            ps.setBytes(6, v.sha256());
            ps.setLong(7, v.generation());
            ps.setLong(8, v.modifiedMillis());
            ps.executeUpdate();
        }
    }

    /** Whether SQLite's {@code PRAGMA quick_check} finds the database intact (its answer is "ok"). */
    boolean quickCheck() throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("PRAGMA quick_check")) {
            return rs.next() && "ok".equals(rs.getString(1)) && !rs.next();
        }
    }

    /** The inline threshold recorded when the store was created. */
    int inlineThreshold() throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT value FROM meta WHERE name = 'inline_threshold'")) {
            if (!rs.next()) {
                throw new SQLException("the index records no inline threshold");
            }
            return Integer.parseInt(rs.getString(1));
        }
    }

    /** The current version (or delete marker) of {@code key}, without content; null if it never existed. */
    @Nullable
    Row current(String key) throws SQLException {
        currentOf.setBytes(1, utf8(key));
        try (ResultSet rs = currentOf.executeQuery()) {
            return rs.next() ? row(key, rs, false, true) : null;
        }
    }

    /** The current version of {@code key} with its inline bytes; null if the key never existed. */
    @Nullable
    Row currentWithContent(String key) throws SQLException {
        currentWithContent.setBytes(1, utf8(key));
        try (ResultSet rs = currentWithContent.executeQuery()) {
            return rs.next() ? row(key, rs, true, true) : null;
        }
    }

    /** Version {@code versionId} of {@code key} with its inline bytes; null if there is none. */
    @Nullable
    Row version(String key, String versionId) throws SQLException {
        byVersionId.setString(1, versionId);
        byVersionId.setBytes(2, utf8(key));
        try (ResultSet rs = byVersionId.executeQuery()) {
            return rs.next() ? row(key, rs, true, rs.getBoolean(12)) : null;
        }
    }

    /** Every version and delete marker of {@code key}, newest first. */
    List<Row> history(String key) throws SQLException {
        historyOf.setBytes(1, utf8(key));
        List<Row> rows = new ArrayList<>();
        try (ResultSet rs = historyOf.executeQuery()) {
            while (rs.next()) {
                rows.add(row(key, rs, true, rs.getBoolean(12)));
            }
        }
        return rows;
    }

    /** Every version and delete marker of the keys starting with {@code prefix}: by key in UTF-8 binary order, newest first. */
    List<Row> historyUnder(String prefix) throws SQLException {
        return underPrefix(
                "SELECT " + VERSION_COLUMNS + location()
                        + ", (SELECT c.seq FROM current c WHERE c.k = v.k) = v.seq, v.k"
                        + " FROM versions v LEFT JOIN blobs b ON b.address = v.content WHERE v.k >= ?",
                "v.k",
                " ORDER BY v.k, v.seq DESC",
                prefix,
                rs -> row(new String(rs.getBytes(13), StandardCharsets.UTF_8), rs, true, rs.getBoolean(12)));
    }

    /** Reads one row of a result set. */
    @FunctionalInterface
    private interface RowReader<T> {
        T read(ResultSet rs) throws SQLException;
    }

    /**
     * Runs {@code select} (ending in {@code column >= ?}) limited to the keys starting with
     * {@code prefix}: a range of the key index.
     */
    private <T> List<T> underPrefix(String select, String column, String orderBy, String prefix, RowReader<T> reader)
            throws SQLException {
        byte[] from = utf8(prefix);
        byte[] to = successor(from);
        String sql = select + (to == null ? "" : " AND " + column + " < ?") + orderBy;
        List<T> out = new ArrayList<>();
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            ps.setBytes(1, from);
            if (to != null) {
                ps.setBytes(2, to);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(reader.read(rs));
                }
            }
        }
        return out;
    }

    /** Current, non-deleted keys starting with {@code prefix}, in UTF-8 binary order. */
    List<String> list(String prefix) throws SQLException {
        return underPrefix(
                "SELECT k FROM current WHERE delete_marker = 0 AND k >= ?",
                "k",
                " ORDER BY k",
                prefix,
                rs -> new String(rs.getBytes(1), StandardCharsets.UTF_8));
    }

    /** One current version as a listing page shows it. */
    record Listed(
            String key,
            String versionId,
            long size,
            long modifiedMillis,
            byte[] content,
            boolean inline,
            long pack,
            long packOffset) {}

    /**
     * At most {@code limit} current, non-deleted keys whose UTF-8 bytes are {@code >= from} and, when
     * {@code to} is not null, {@code < to}, in UTF-8 binary order: one page of a streaming listing
     * ({@link LocalListing}), read through the primary key of {@code current}.
     */
    List<Listed> currentPage(byte[] from, byte @Nullable [] to, int limit) throws SQLException {
        String sql = "SELECT c.k, v.version_id, v.size, v.modified_ms, v.content, " + listedLocation()
                + " FROM current c JOIN versions v ON v.seq = c.seq LEFT JOIN blobs b ON b.address = v.content"
                + " WHERE c.delete_marker = 0 AND c.k >= ?" + (to == null ? "" : " AND c.k < ?")
                + " ORDER BY c.k LIMIT ?";
        List<Listed> out = new ArrayList<>(Math.min(limit, 1024));
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            int i = 1;
            ps.setBytes(i++, from);
            if (to != null) {
                ps.setBytes(i++, to);
            }
            ps.setInt(i, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Listed(
                            new String(rs.getBytes(1), StandardCharsets.UTF_8),
                            rs.getString(2),
                            rs.getLong(3),
                            rs.getLong(4),
                            rs.getBytes(5),
                            rs.getBoolean(6),
                            rs.getLong(7),
                            rs.getLong(8)));
                }
            }
        }
        return out;
    }

    /** The columns of a content's place (inline data, pack, offset), after a version's. */
    private String location() {
        // Schema 1 has no pack columns: its contents are inline or in files.
        return schema == SCHEMA_VERSION_INLINE_ONLY ? ", b.data, 0, 0" : ", b.data, b.pack, b.pack_offset";
    }

    /** Whether a content is inline, its pack and offset: the columns a listing reads to look at its file. */
    private String listedLocation() {
        return schema == SCHEMA_VERSION_INLINE_ONLY
                ? "b.data IS NOT NULL, 0, 0"
                : "b.data IS NOT NULL, b.pack, b.pack_offset";
    }

    /** Where a content's bytes are: inline ({@code data}), or in pack {@code pack} at {@code offset}. */
    record Location(byte @Nullable [] data, long pack, long offset) {}

    /** Where the content {@code address} is kept, when it is kept in the index or a pack; else null. */
    @Nullable
    Location location(byte[] address) throws SQLException {
        locationOf.setBytes(1, address);
        try (ResultSet rs = locationOf.executeQuery()) {
            if (!rs.next()) {
                return null;
            }
            Location l = new Location(rs.getBytes(1), rs.getLong(2), rs.getLong(3));
            return l.data() == null && l.pack() == 0 ? null : l;
        }
    }

    /**
     * Counts one more version holding the content {@code address}, if it is still at {@code at}; the
     * caller commits, then appends the version with {@code content} already counted.
     *
     * @return false if the content row is gone or has moved since {@code at} was read
     */
    boolean addReference(byte[] address, Location at) throws SQLException {
        addReference.setBytes(1, address);
        addReference.setLong(2, at.pack());
        addReference.setLong(3, at.offset());
        return addReference.executeUpdate() > 0;
    }

    /**
     * Records the content {@code address} (or one more version holding it) at its new place; the
     * caller commits. {@link #append} does this itself unless told the content is already counted.
     */
    void putContent(byte[] address, long size, byte @Nullable [] inlineData, long pack, long packOffset)
            throws SQLException {
        upsertBlob.setBytes(1, address);
        upsertBlob.setLong(2, size);
        upsertBlob.setBytes(3, inlineData);
        if (pack != 0) {
            upsertBlob.setLong(4, pack);
            upsertBlob.setLong(5, packOffset);
        } else {
            upsertBlob.setNull(4, java.sql.Types.INTEGER);
            upsertBlob.setNull(5, java.sql.Types.INTEGER);
        }
        upsertBlob.executeUpdate();
    }

    /**
     * Appends a version (or delete marker) of {@code key} and makes it current; the caller commits,
     * and reads the generations it was given with {@link #generationsOfNewest}.
     *
     * @param content the stored bytes' SHA-256 (their address), null for a delete marker
     * @param sha256 the SHA-256 to record, null when none is known
     * @param nowMillis the wall clock: the last-modified time, and the least generation
     * @param inlineData the bytes when they are kept in the index, else null
     * @param pack the pack file holding the bytes, 0 when they are not in one
     * @param packOffset where in that pack file they start
     * @param contentCounted whether {@link #addReference} (or {@link #putContent}) already counted this
     *     version's content
     */
    void append(
            String key,
            String versionId,
            boolean deleteMarker,
            long size,
            byte @Nullable [] content,
            byte @Nullable [] sha256,
            long nowMillis,
            byte @Nullable [] inlineData,
            long pack,
            long packOffset,
            boolean contentCounted)
            throws SQLException {
        if (content != null && !contentCounted) {
            putContent(content, size, inlineData, pack, packOffset);
        }
        insertVersion.setBytes(1, utf8(key));
        insertVersion.setString(2, versionId);
        insertVersion.setInt(3, deleteMarker ? 1 : 0);
        insertVersion.setLong(4, size);
        insertVersion.setBytes(5, content);
        insertVersion.setBytes(6, sha256);
        insertVersion.setLong(7, nowMillis);
        insertVersion.executeUpdate();
    }

    /**
     * The generations of the newest {@code count} versions, oldest first: after {@code count}
     * {@link #append}s in one transaction, theirs in the order they were appended (sequence numbers
     * only grow, and the writer is the only one appending).
     */
    long[] generationsOfNewest(int count) throws SQLException {
        long[] generations = new long[count];
        newestGenerations.setInt(1, count);
        int i = count;
        try (ResultSet rs = newestGenerations.executeQuery()) {
            while (rs.next() && i > 0) {
                generations[--i] = rs.getLong(1);
            }
        }
        if (i != 0) {
            throw new SQLException(
                    "the index returned " + (count - i) + " of the " + count + " versions just appended");
        }
        return generations;
    }

    /**
     * Removes one version row; when it was current, the newest remaining version becomes current (or
     * the key disappears). The caller commits.
     *
     * @return the removed row's content address when no other version refers to it any more (its
     *     content row is removed too), else null
     */
    byte @Nullable [] removeVersion(Row row) throws SQLException {
        byte[] k = utf8(row.key());
        try (PreparedStatement del = connection.prepareStatement("DELETE FROM versions WHERE seq = ?")) {
            del.setLong(1, row.seq());
            del.executeUpdate();
        }
        try (PreparedStatement newest = connection.prepareStatement(
                "SELECT seq, delete_marker, generation FROM versions WHERE k = ? ORDER BY seq DESC LIMIT 1")) {
            newest.setBytes(1, k);
            try (ResultSet rs = newest.executeQuery()) {
                if (rs.next()) {
                    setCurrent.setBytes(1, k);
                    setCurrent.setLong(2, rs.getLong(1));
                    setCurrent.setInt(3, rs.getInt(2));
                    setCurrent.setLong(4, rs.getLong(3));
                    setCurrent.executeUpdate();
                } else {
                    try (PreparedStatement gone = connection.prepareStatement("DELETE FROM current WHERE k = ?")) {
                        gone.setBytes(1, k);
                        gone.executeUpdate();
                    }
                }
            }
        }
        if (row.content() == null) {
            if (attributesPresent()) {
                IndexAttributes.removed(connection, row.versionId(), null);
            }
            return null;
        }
        try (PreparedStatement release =
                        connection.prepareStatement("UPDATE blobs SET refs = refs - 1 WHERE address = ?");
                PreparedStatement drop =
                        connection.prepareStatement("DELETE FROM blobs WHERE address = ? AND refs <= 0")) {
            release.setBytes(1, row.content());
            release.executeUpdate();
            drop.setBytes(1, row.content());
            byte[] dropped = drop.executeUpdate() > 0 ? row.content() : null;
            if (attributesPresent()) {
                IndexAttributes.removed(connection, row.versionId(), dropped);
            }
            return dropped;
        }
    }

    /**
     * Whether {@code address} is stored in the index or a pack file (true), as a content file (false),
     * or not at all (null).
     */
    @Nullable
    Boolean inline(byte[] address) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(
                "SELECT data IS NOT NULL OR pack IS NOT NULL FROM blobs WHERE address = ?")) {
            ps.setBytes(1, address);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getBoolean(1) : null;
            }
        }
    }

    /** The ID of the newest pack file, 0 when there is none. */
    @Override
    public long newestPack() throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT coalesce(max(id), 0) FROM packs")) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }

    /** An ID no pack file ever had: one above the highest ever recorded, removed ones included. */
    @Override
    public long nextPackId() throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'packs'),"
                                + " 0), coalesce((SELECT max(id) FROM packs), 0)) + 1")) {
            return rs.next() ? rs.getLong(1) : 1;
        }
    }

    /** Records pack file {@code id}; the caller commits. */
    @Override
    public void addPack(long id) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("INSERT INTO packs (id) VALUES (?)")) {
            ps.setLong(1, id);
            ps.executeUpdate();
        }
    }

    /** The IDs of the recorded pack files. */
    java.util.Set<Long> packs() throws SQLException {
        java.util.Set<Long> ids = new java.util.HashSet<>();
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT id FROM packs")) {
            while (rs.next()) {
                ids.add(rs.getLong(1));
            }
        }
        return ids;
    }

    /** How many bytes of content rows still refer to in each pack file (a pack no row refers to is absent). */
    java.util.Map<Long, Long> liveBytesByPack() throws SQLException {
        java.util.Map<Long, Long> live = new java.util.HashMap<>();
        try (Statement s = connection.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT pack, sum(size) FROM blobs WHERE pack IS NOT NULL GROUP BY pack")) {
            while (rs.next()) {
                live.put(rs.getLong(1), rs.getLong(2));
            }
        }
        return live;
    }

    /** A content row located in a pack file. */
    record Packed(byte[] address, long size, long pack, long offset) {}

    /** The content rows located in the packs {@code ids}, by pack and offset. */
    List<Packed> packedIn(java.util.Set<Long> ids) throws SQLException {
        List<Packed> rows = new ArrayList<>();
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT address, size, pack, pack_offset FROM blobs WHERE pack IN ("
                        + String.join(",", ids.stream().map(String::valueOf).toList())
                        + ") ORDER BY pack, pack_offset")) {
            while (rs.next()) {
                rows.add(new Packed(rs.getBytes(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)));
            }
        }
        return rows;
    }

    /** Points the content row {@code from} at its copy in {@code pack} at {@code offset}; the caller commits. */
    void movePacked(Packed from, long pack, long offset) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(
                "UPDATE blobs SET pack = ?, pack_offset = ? WHERE address = ? AND pack = ? AND pack_offset = ?")) {
            ps.setLong(1, pack);
            ps.setLong(2, offset);
            ps.setBytes(3, from.address());
            ps.setLong(4, from.pack());
            ps.setLong(5, from.offset());
            ps.executeUpdate();
        }
    }

    /** Forgets pack file {@code id}; the caller commits, then deletes the file. */
    void removePack(long id) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("DELETE FROM packs WHERE id = ?")) {
            ps.setLong(1, id);
            ps.executeUpdate();
        }
    }

    /**
     * Starts a write transaction, taking SQLite's write lock (waiting for another connection's
     * commit). The connection stays in autocommit mode between transactions, so an idle writer holds
     * no lock: JDBC's own transaction mode would begin the next transaction the moment one commits.
     */
    void begin() throws SQLException {
        transactions.execute("BEGIN IMMEDIATE");
        inTransaction = true;
    }

    void commit() throws SQLException {
        transactions.execute("COMMIT");
        inTransaction = false;
    }

    /**
     * Rolls back the transaction begun, if any. SQLite may have rolled it back itself already: a statement or
     * COMMIT that fails for a full disk or an I/O error can end the transaction
     * (<a href="https://www.sqlite.org/lang_transaction.html">Response To Errors Within A Transaction</a>),
     * and a ROLLBACK then fails with "no transaction is active", which would hide the failure that ended it.
     */
    void rollback() throws SQLException {
        if (inTransaction) {
            inTransaction = false;
            try {
                transactions.execute("ROLLBACK");
            } catch (SQLException e) {
                if (e.getMessage() == null || !e.getMessage().contains("no transaction is active")) {
                    throw e;
                }
            }
        }
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }

    /**
     * Closes the writer's connection after copying the write-ahead log into the database and
     * emptying it ({@code PRAGMA wal_checkpoint(TRUNCATE)}), so that between commands the versions
     * live in the database file, where damage is reported as corruption, rather than in the log, whose
     * frames SQLite silently ignores from the first damaged one on
     * (<a href="https://www.sqlite.org/wal.html#checkpointing">Checkpointing</a>). A reader in another
     * process may hold the log for up to two seconds; after that the checkpoint is left to the next
     * writer. Never throws: a failure only leaves the log as it was.
     */
    void checkpointAndClose() {
        try (Statement s = connection.createStatement()) {
            s.execute("PRAGMA busy_timeout = 2000");
            s.execute("PRAGMA wal_checkpoint(TRUNCATE)");
        } catch (SQLException ignored) {
            // busy or failed: the log stays valid and the next writer's checkpoint copies it
        }
        closeQuietly();
    }

    void closeQuietly() {
        try {
            connection.close();
        } catch (SQLException ignored) {
            // closing after a failure: the first failure is the one reported
        }
    }

    private static Row row(String key, ResultSet rs, boolean withData, boolean latest) throws SQLException {
        return new Row(
                rs.getLong(1),
                key,
                rs.getString(2),
                rs.getInt(3) != 0,
                rs.getLong(4),
                rs.getBytes(5),
                rs.getBytes(6),
                rs.getLong(7),
                rs.getLong(8),
                withData ? rs.getBytes(9) : null,
                withData ? rs.getLong(10) : 0,
                withData ? rs.getLong(11) : 0,
                latest);
    }

    static byte[] utf8(String key) {
        return key.getBytes(StandardCharsets.UTF_8);
    }

    /** The smallest byte string greater than every string starting with {@code prefix}; null if none. */
    static byte @Nullable [] successor(byte[] prefix) {
        byte[] s = Arrays.copyOf(prefix, prefix.length);
        for (int i = s.length - 1; i >= 0; i--) {
            if (s[i] != (byte) 0xff) {
                s[i]++;
                return Arrays.copyOf(s, i + 1);
            }
        }
        return null;
    }
}
