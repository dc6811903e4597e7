package dev.ballast.storage.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * The measurement behind the choice of the local object store's version index: SQLite (through
 * {@code org.xerial:sqlite-jdbc}, WAL mode) against H2 (MVStore), both embedded, both running the
 * same schema and statements the store needs: one write is a version row, an upsert of the key's
 * current version and an upsert of a 2.5 KiB content row, committed.
 *
 * <p>Not a test: run it by hand (see docs/cli.md, "The local object store"). Argument: a directory
 * on the disk to measure (default {@code java.io.tmpdir}). Prints a Markdown table.
 */
public final class IndexDatabaseBenchmark {

    private static final int SERIAL_WRITES = 1000;
    private static final int BATCH = 100;
    private static final int BATCHED_WRITES = 20_000;
    private static final int PRELOAD = 200_000;
    private static final int LOOKUPS = 20_000;
    private static final int CONTENT_BYTES = 2560;

    private IndexDatabaseBenchmark() {}

    /** One database engine under test: how to connect and how to say "upsert". */
    private record Engine(
            String name, String url, String ddlBlob, String upsertCurrent, String upsertBlob, String syncAfterCommit) {}

    public static void main(String[] args) throws Exception {
        Path dir = Files.createTempDirectory(
                Path.of(args.length > 0 ? args[0] : System.getProperty("java.io.tmpdir")), "index-bench-");
        Engine sqlite = new Engine(
                "SQLite 3 (WAL, synchronous=FULL)",
                "jdbc:sqlite:" + dir.resolve("sqlite.db"),
                "BLOB",
                "INSERT INTO current(k, seq, deleted) VALUES (?, ?, 0) ON CONFLICT(k) DO UPDATE SET seq = excluded.seq, deleted = 0",
                "INSERT OR REPLACE INTO blobs(sha256, size, data) VALUES (?, ?, ?)",
                null);
        Engine h2 = new Engine(
                "H2 2 (MVStore, default)",
                "jdbc:h2:file:" + dir.resolve("h2"),
                "VARBINARY",
                "MERGE INTO current(k, seq, deleted) KEY(k) VALUES (?, ?, 0)",
                "MERGE INTO blobs(sha256, size, data) KEY(sha256) VALUES (?, ?, ?)",
                null);
        Engine h2Sync = new Engine(
                "H2 2 (MVStore, CHECKPOINT SYNC after each commit)",
                "jdbc:h2:file:" + dir.resolve("h2sync"),
                "VARBINARY",
                h2.upsertCurrent(),
                h2.upsertBlob(),
                "CHECKPOINT SYNC");

        System.out.println("| engine | durable commit (1 write) p50 / p99 | writes/s, 1 per commit | writes/s, "
                + BATCH + " per commit | 1 write per commit at " + PRELOAD / 1000 + "k versions, p50 | reopen at "
                + PRELOAD / 1000 + "k versions + first lookup | lookup p50 | size on disk |");
        System.out.println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
        for (Engine engine : new Engine[] {sqlite, h2, h2Sync}) {
            System.out.println(run(engine, dir));
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private static String run(Engine e, Path dir) throws Exception {
        SplittableRandom random = new SplittableRandom(1);
        long seq = 0;
        double[] serial;
        double batchedRate;
        double[] serialLarge;
        try (Connection c = open(e)) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE versions (seq BIGINT PRIMARY KEY, k " + e.ddlBlob()
                        + " NOT NULL, version_id VARCHAR(40) NOT NULL," + " size BIGINT NOT NULL, sha256 " + e.ddlBlob()
                        + ", generation BIGINT NOT NULL, modified BIGINT NOT NULL)");
                s.execute("CREATE INDEX versions_by_key ON versions(k, seq)");
                s.execute("CREATE TABLE current (k " + e.ddlBlob()
                        + " PRIMARY KEY, seq BIGINT NOT NULL, deleted INT NOT NULL)");
                s.execute("CREATE TABLE blobs (sha256 " + e.ddlBlob() + " PRIMARY KEY, size BIGINT NOT NULL, data "
                        + e.ddlBlob() + ")");
            }
            c.setAutoCommit(false);
            serial = new double[SERIAL_WRITES];
            for (int i = 0; i < SERIAL_WRITES; i++) {
                long t = System.nanoTime();
                write(c, e, ++seq, random);
                commit(c, e);
                serial[i] = (System.nanoTime() - t) / 1000.0;
            }
            long t = System.nanoTime();
            for (int i = 0; i < BATCHED_WRITES; i += BATCH) {
                for (int j = 0; j < BATCH; j++) {
                    write(c, e, ++seq, random);
                }
                commit(c, e);
            }
            batchedRate = BATCHED_WRITES / ((System.nanoTime() - t) / 1e9);
            while (seq < PRELOAD) {
                for (int j = 0; j < 1000; j++) {
                    write(c, e, ++seq, random);
                }
                c.commit();
            }
            serialLarge = new double[SERIAL_WRITES];
            for (int i = 0; i < SERIAL_WRITES; i++) {
                long t0 = System.nanoTime();
                write(c, e, ++seq, random);
                commit(c, e);
                serialLarge[i] = (System.nanoTime() - t0) / 1000.0;
            }
        }
        long t = System.nanoTime();
        double[] lookups = new double[LOOKUPS];
        double reopenMillis;
        try (Connection c = open(e);
                PreparedStatement q = c.prepareStatement(
                        "SELECT v.version_id, v.size, v.sha256 FROM current c JOIN versions v ON v.seq = c.seq WHERE c.k = ?")) {
            lookup(q, key(7));
            reopenMillis = (System.nanoTime() - t) / 1e6;
            for (int i = 0; i < LOOKUPS; i++) {
                long t0 = System.nanoTime();
                lookup(q, key(random.nextInt(PRELOAD)));
                lookups[i] = (System.nanoTime() - t0) / 1000.0;
            }
        }
        long bytes;
        try (Stream<Path> files = Files.list(dir)) {
            String prefix = e.url().substring(e.url().lastIndexOf('/') + 1);
            bytes = files.filter(p -> p.getFileName().toString().startsWith(prefix))
                    .mapToLong(IndexDatabaseBenchmark::size)
                    .sum();
        }
        return String.format(
                Locale.ROOT,
                "| %s | %.0f / %.0f µs | %.0f | %.0f | %.0f µs | %.1f ms | %.0f µs | %.0f MiB |",
                e.name(),
                percentile(serial, 50),
                percentile(serial, 99),
                SERIAL_WRITES / (Arrays.stream(serial).sum() / 1e6),
                batchedRate,
                percentile(serialLarge, 50),
                reopenMillis,
                percentile(lookups, 50),
                bytes / 1048576.0);
    }

    private static Connection open(Engine e) throws SQLException {
        Connection c = DriverManager.getConnection(e.url());
        if (e.url().startsWith("jdbc:sqlite:")) {
            try (Statement s = c.createStatement()) {
                s.execute("PRAGMA journal_mode=WAL");
                s.execute("PRAGMA synchronous=FULL");
            }
        }
        return c;
    }

    private static void write(Connection c, Engine e, long seq, SplittableRandom random) throws Exception {
        byte[] content = new byte[CONTENT_BYTES];
        random.nextBytes(content);
        byte[] sha = MessageDigest.getInstance("SHA-256").digest(content);
        byte[] key = key(seq % PRELOAD);
        try (PreparedStatement v = c.prepareStatement("INSERT INTO versions VALUES (?, ?, ?, ?, ?, ?, ?)");
                PreparedStatement cur = c.prepareStatement(e.upsertCurrent());
                PreparedStatement b = c.prepareStatement(e.upsertBlob())) {
            v.setLong(1, seq);
            v.setBytes(2, key);
            v.setString(3, Long.toHexString(random.nextLong()) + Long.toHexString(random.nextLong()));
            v.setLong(4, content.length);
            v.setBytes(5, sha);
            v.setLong(6, seq);
            v.setLong(7, System.currentTimeMillis());
            v.executeUpdate();
            cur.setBytes(1, key);
            cur.setLong(2, seq);
            cur.executeUpdate();
            b.setBytes(1, sha);
            b.setLong(2, content.length);
            b.setBytes(3, content);
            b.executeUpdate();
        }
    }

    private static void commit(Connection c, Engine e) throws SQLException {
        c.commit();
        if (e.syncAfterCommit() != null) {
            try (Statement s = c.createStatement()) {
                s.execute(e.syncAfterCommit());
            }
        }
    }

    private static void lookup(PreparedStatement q, byte[] key) throws SQLException {
        q.setBytes(1, key);
        try (ResultSet rs = q.executeQuery()) {
            if (!rs.next()) {
                throw new IllegalStateException("missing key");
            }
        }
    }

    private static byte[] key(long n) {
        return String.format(Locale.ROOT, "backup/dir%03d/file-%06d.txt", n % 200, n)
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    private static long size(Path p) {
        try {
            return Files.size(p);
        } catch (IOException ex) {
            return 0;
        }
    }

    private static double percentile(double[] values, int p) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100.0 * sorted.length) - 1)];
    }
}
