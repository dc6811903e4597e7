package dev.ballast.storage.object.local;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.internal.Sha256;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Small contents in pack files: where their bytes go, what a crash or damage leaves, how
 * {@link LocalObjectStore#compact()} gives space back, and a store of the earlier layout (small
 * contents inside the index) read and upgraded.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@ExtendWith(LeakCheck.class)
class PackFilesTest {

    @TempDir
    Path dir;

    Path root() {
        return dir.resolve("store");
    }

    static byte[] random(long seed, int size) {
        return LocalObjectStoreTest.random(seed, size);
    }

    List<Path> packFiles() throws IOException {
        Path packs = root().resolve("packs");
        if (!Files.isDirectory(packs)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(packs)) {
            return files.sorted().toList();
        }
    }

    long packBytes() throws IOException {
        long total = 0;
        for (Path p : packFiles()) {
            total += Files.size(p);
        }
        return total;
    }

    static long filesUnder(Path d) throws IOException {
        if (!Files.isDirectory(d)) {
            return 0;
        }
        try (Stream<Path> files = Files.walk(d)) {
            return files.filter(Files::isRegularFile).count();
        }
    }

    Connection index() throws SQLException {
        return DriverManager.getConnection("jdbc:sqlite:" + root().resolve("index.db"));
    }

    @Test
    void smallContentsGoToOnePackFileNotIntoTheIndexOrFilesOfTheirOwn() throws Exception {
        long written = 0;
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            for (int i = 0; i < 300; i++) {
                byte[] b = random(i, 1000 + i * 7);
                store.putAsync("small/" + i, ObjectContent.ofBytes(b));
                written += b.length;
            }
            store.put("big", ObjectContent.ofBytes(random(1, 200_000)));
            for (int i = 0; i < 300; i++) {
                assertThat(store.get("small/" + i).readAllBytes()).isEqualTo(random(i, 1000 + i * 7));
            }
        }
        assertThat(packFiles()).hasSize(1);
        assertThat(packBytes())
                .as("the pack holds each small content once, nothing else")
                .isEqualTo(written);
        assertThat(filesUnder(root().resolve("blobs")))
                .as("only the 200 KB content has a file")
                .isEqualTo(1);
        try (Connection c = index();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT count(*) FROM blobs WHERE data IS NOT NULL AND length(data) > 0")) {
            rs.next();
            assertThat(rs.getInt(1)).as("content bytes kept inside the index").isZero();
        }
    }

    @Test
    void identicalSmallContentsAreStoredOnceWhateverTheirKeysAndLastAsLongAsAVersionHoldsThem() throws IOException {
        byte[] content = random(11, 3000);
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            ObjectVersion a = store.put("a", ObjectContent.ofBytes(content));
            store.put("moved/a", ObjectContent.ofBytes(content.clone()));
            ObjectVersion copy = store.put("copy-of-a", ObjectContent.ofBytes(content.clone()));
            assertThat(packBytes()).as("one copy of the bytes").isEqualTo(3000);

            store.deleteVersion("a", a.versionId());
            store.deleteVersion("copy-of-a", copy.versionId());
            assertThat(store.compact().packsRemoved())
                    .as("still held by 'moved/a'")
                    .isZero();
            assertThat(store.get("moved/a").readAllBytes()).isEqualTo(content);
        }
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            assertThat(store.get("moved/a").readAllBytes()).isEqualTo(content);
            // A later writer finds the stored copy through the index (a file moved since the last backup).
            ObjectVersion again = store.put("moved-again/a", ObjectContent.ofBytes(content.clone()));
            assertThat(packBytes()).isEqualTo(3000);
            store.deleteVersion("moved-again/a", again.versionId());
            store.deleteVersion("moved/a", store.versions("moved/a").get(0).versionId());
            assertThat(store.compact().packsRemoved()).isEqualTo(1);
            assertThat(packBytes()).isZero();
        }
    }

    @Test
    void bytesAKilledWriterLeftPastTheLastCommitAreSkippedAndLaterWritesFollowThem() throws IOException {
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            store.put("a", ObjectContent.ofBytes(random(1, 3000)));
        }
        Path pack = packFiles().get(0);
        // A batch written to the pack whose transaction never committed.
        Files.write(pack, random(99, 5000), StandardOpenOption.APPEND);

        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            store.put("b", ObjectContent.ofBytes(random(2, 4000)));
            assertThat(store.get("a").readAllBytes()).isEqualTo(random(1, 3000));
            assertThat(store.get("b").readAllBytes()).isEqualTo(random(2, 4000));
        }
        assertThat(Files.size(pack)).isEqualTo(3000 + 5000 + 4000);
    }

    @Test
    void aPackFileNoIndexRowNamesIsRemovedByTheNextWriterNotByAReader() throws IOException {
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            store.put("a", ObjectContent.ofBytes(random(1, 3000)));
        }
        // A pack created by a batch that never committed: its row went with the transaction.
        Path orphan = root().resolve("packs").resolve("000000ff.pack");
        Files.write(orphan, random(5, 2000));

        try (LocalObjectStore reader = LocalObjectStore.open(
                root(), LocalStoreConfig.builder().readOnly(true).build())) {
            assertThat(reader.get("a").readAllBytes()).isEqualTo(random(1, 3000));
        }
        assertThat(orphan).exists();
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            assertThat(orphan).doesNotExist();
            assertThat(store.get("a").readAllBytes()).isEqualTo(random(1, 3000));
        }
    }

    @Test
    void aStoreOfOnlySmallContentsWhoseIndexWasLostIsRefusedRatherThanStartedAgainEmpty() throws IOException {
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            store.put("a", ObjectContent.ofBytes(random(1, 3000)));
        }
        try (Stream<Path> files = Files.list(root())) {
            for (Path f : files.filter(p -> p.getFileName().toString().startsWith("index.db"))
                    .toList()) {
                Files.delete(f);
            }
        }
        assertThat(LocalObjectStore.holdsContentWithoutIndex(root())).isTrue();
        assertThatThrownBy(() -> LocalObjectStore.open(root()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("holds stored content but no index");
        assertThat(packFiles()).as("the pack is not taken for a leftover").hasSize(1);
    }

    @Test
    void aDamagedCutShortOrMissingPackIsReportedAsDamageAndAPutOfTheSameContentHealsIt() throws IOException {
        byte[] content = random(4, 5000);
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            store.put("first", ObjectContent.ofBytes(random(3, 2000)));
            ObjectVersion v = store.put("note.txt", ObjectContent.ofBytes(content));
            Path pack = packFiles().get(0);
            try (RandomAccessFile raf = new RandomAccessFile(pack.toFile(), "rw")) {
                raf.seek(2000 + 1234);
                raf.write(content[1234] ^ 0x40);
            }
            assertThatThrownBy(() -> store.get("note.txt").readAllBytes())
                    .isInstanceOf(IntegrityException.class)
                    .hasMessageContaining("note.txt");

            store.put("note-copy.txt", ObjectContent.ofBytes(content));
            assertThat(store.get("note.txt", ReadOptions.version(v.versionId())).readAllBytes())
                    .as("the damaged version reads the healed copy")
                    .isEqualTo(content);
            assertThat(store.get("first").readAllBytes()).isEqualTo(random(3, 2000));

            try (RandomAccessFile raf = new RandomAccessFile(pack.toFile(), "rw")) {
                raf.setLength(2000 + 100);
            }
            assertThatThrownBy(() -> store.get("note.txt"))
                    .isInstanceOf(IntegrityException.class)
                    .hasMessageContaining("pack file")
                    .hasMessageContaining("ends at byte 2100");
        }
        // A store opened after the pack went (one already reading it keeps its open file).
        Files.delete(packFiles().get(0));
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            assertThatThrownBy(() -> store.get("first"))
                    .isInstanceOf(IntegrityException.class)
                    .hasMessageContaining("pack file")
                    .hasMessageContaining("missing");
        }
    }

    @Test
    void compactGivesBackTheSpaceOfRemovedVersionsAndKeepsEveryReferencedContent() throws IOException {
        LocalStoreConfig config = LocalStoreConfig.builder().packSize(16 * 1024).build();
        int n = 60;
        List<ObjectVersion> versions = new ArrayList<>();
        try (LocalObjectStore store = LocalObjectStore.open(root(), config)) {
            for (int i = 0; i < n; i++) {
                versions.add(store.put("f/" + i, ObjectContent.ofBytes(random(i, 3000))));
            }
            assertThat(packFiles()).as("a pack closes at its size").hasSizeGreaterThan(5);
            long before = packBytes();
            assertThat(store.compact().packsRemoved())
                    .as("nothing to give back yet")
                    .isZero();

            // Remove every version but one in four: most packs are then less than half referenced.
            for (int i = 0; i < n; i++) {
                if (i % 4 != 0) {
                    store.deleteVersion("f/" + i, versions.get(i).versionId());
                }
            }
            LocalObjectStore.Compaction c = store.compact();

            assertThat(c.packsRemoved()).isPositive();
            assertThat(c.contentsMoved()).isPositive();
            assertThat(packBytes()).isLessThan(before / 2);
            assertThat(c.bytesReclaimed()).isEqualTo(before - packBytes());
            for (int i = 0; i < n; i += 4) {
                assertThat(store.get("f/" + i).readAllBytes()).isEqualTo(random(i, 3000));
            }
            assertThat(store.compact().packsRemoved())
                    .as("a second compaction finds nothing")
                    .isZero();
            store.put("after", ObjectContent.ofBytes(random(1000, 3000)));
        }
        try (LocalObjectStore store = LocalObjectStore.open(root(), config)) {
            for (int i = 0; i < n; i += 4) {
                assertThat(store.get("f/" + i).readAllBytes()).isEqualTo(random(i, 3000));
            }
            assertThat(store.get("after").readAllBytes()).isEqualTo(random(1000, 3000));
        }
    }

    /**
     * Two writers of one directory in one process (a backup paused while a prune ran): the second
     * removes the first's versions and compacts its pack away. The first writer's next puts, of the
     * same bytes again and of new ones, must land in a pack file the index names, not in the deleted
     * one it still has open.
     */
    @Test
    void aWriteAfterAnotherWriterCompactedItsPackAwayIsStoredInAPackThatExists() throws IOException {
        byte[] first = random(1, 3000);
        byte[] other = random(2, 3000);
        try (LocalObjectStore paused = LocalObjectStore.open(root())) {
            ObjectVersion v = paused.put("f/a", ObjectContent.ofBytes(first));
            try (LocalObjectStore prune = LocalObjectStore.open(root())) {
                assertThat(prune.deleteVersion("f/a", v.versionId())).isTrue();
                assertThat(prune.compact().packsRemoved()).isEqualTo(1);
            }
            assertThat(packFiles()).isEmpty();

            paused.put("f/a", ObjectContent.ofBytes(first)); // stored again: the session's copy is gone
            paused.put("f/b", ObjectContent.ofBytes(other));
            assertThat(paused.get("f/a").readAllBytes()).isEqualTo(first);
        }
        assertThat(packFiles()).hasSize(1);
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            assertThat(store.get("f/a").readAllBytes()).isEqualTo(first);
            assertThat(store.get("f/b").readAllBytes()).isEqualTo(other);
        }
    }

    @Test
    void aContentCompactCannotReadStaysWhereItIsWithItsPack() throws IOException {
        LocalStoreConfig config = LocalStoreConfig.builder().packSize(8 * 1024).build();
        try (LocalObjectStore store = LocalObjectStore.open(root(), config)) {
            ObjectVersion gone = store.put("gone", ObjectContent.ofBytes(random(1, 3000)));
            store.put("kept", ObjectContent.ofBytes(random(2, 1000)));
            store.put("tail", ObjectContent.ofBytes(random(3, 5000))); // fills the first pack
            store.put("next", ObjectContent.ofBytes(random(4, 3000))); // in a second pack
            Path first = packFiles().get(0);
            store.deleteVersion("gone", gone.versionId());
            store.deleteVersion("tail", store.versions("tail").get(0).versionId());
            // 'kept' is referenced but its bytes are cut off.
            try (RandomAccessFile raf = new RandomAccessFile(first.toFile(), "rw")) {
                raf.setLength(3500);
            }

            store.compact();

            assertThat(first).exists();
            assertThatThrownBy(() -> store.get("kept"))
                    .isInstanceOf(IntegrityException.class)
                    .hasMessageContaining("ends at byte");
            assertThat(store.get("next").readAllBytes()).isEqualTo(random(4, 3000));
        }
    }

    /** The schema of the earlier layout, as its writer created it: small contents in {@code blobs.data}. */
    private void createSchemaOneStore(byte[] small, String key) throws Exception {
        Files.createDirectories(root().resolve("blobs"));
        Files.createDirectories(root().resolve("tmp"));
        try (Connection c = index();
                Statement s = c.createStatement()) {
            s.execute("PRAGMA journal_mode=WAL");
            s.execute("CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)");
            s.execute("CREATE TABLE versions (seq INTEGER PRIMARY KEY AUTOINCREMENT, k BLOB NOT NULL,"
                    + " version_id TEXT NOT NULL UNIQUE, delete_marker INTEGER NOT NULL, size INTEGER NOT NULL,"
                    + " content BLOB, sha256 BLOB, generation INTEGER NOT NULL, modified_ms INTEGER NOT NULL)");
            s.execute("CREATE INDEX versions_by_key ON versions (k, seq)");
            s.execute("CREATE TABLE current (k BLOB PRIMARY KEY, seq INTEGER NOT NULL,"
                    + " delete_marker INTEGER NOT NULL, generation INTEGER NOT NULL) WITHOUT ROWID");
            s.execute("CREATE TRIGGER versions_become_current AFTER INSERT ON versions BEGIN"
                    + " INSERT INTO current (k, seq, delete_marker, generation)"
                    + " VALUES (new.k, new.seq, new.delete_marker, new.generation)"
                    + " ON CONFLICT (k) DO UPDATE SET seq = excluded.seq, delete_marker = excluded.delete_marker,"
                    + " generation = excluded.generation; END");
            s.execute("CREATE TABLE blobs (address BLOB PRIMARY KEY, size INTEGER NOT NULL, data BLOB,"
                    + " refs INTEGER NOT NULL)");
            s.execute("INSERT INTO meta VALUES ('inline_threshold', '65536')");
            byte[] address = Sha256.of(small);
            try (PreparedStatement blob = c.prepareStatement("INSERT INTO blobs VALUES (?, ?, ?, 1)");
                    PreparedStatement version = c.prepareStatement(
                            "INSERT INTO versions (k, version_id, delete_marker, size, content, sha256, generation,"
                                    + " modified_ms) VALUES (?, '0000000000000001', 0, ?, ?, ?, 5, 1700000000000)")) {
                blob.setBytes(1, address);
                blob.setLong(2, small.length);
                blob.setBytes(3, small);
                blob.executeUpdate();
                version.setBytes(1, key.getBytes(UTF_8));
                version.setLong(2, small.length);
                version.setBytes(3, address);
                version.setBytes(4, address);
                version.executeUpdate();
            }
            s.execute("PRAGMA user_version = 1");
        }
    }

    @Test
    void aStoreOfTheEarlierLayoutIsReadAsItIsAndUpgradedByItsNextWriter() throws Exception {
        byte[] old = "written when small contents lived in the index".getBytes(UTF_8);
        createSchemaOneStore(old, "old.txt");

        try (LocalObjectStore reader = LocalObjectStore.open(
                root(), LocalStoreConfig.builder().readOnly(true).build())) {
            assertThat(reader.get("old.txt").readAllBytes()).isEqualTo(old);
        }
        try (Connection c = index();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("PRAGMA user_version")) {
            rs.next();
            assertThat(rs.getInt(1)).as("a reader changes nothing").isEqualTo(1);
        }

        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            assertThat(store.get("old.txt").readAllBytes()).isEqualTo(old);
            store.put("new.txt", ObjectContent.ofBytes(random(7, 2000)));
            store.put("old.txt", ObjectContent.ofBytes(random(8, 2000)));
        }
        try (LocalObjectStore reader = LocalObjectStore.open(
                root(), LocalStoreConfig.builder().readOnly(true).build())) {
            assertThat(reader.get("new.txt").readAllBytes()).isEqualTo(random(7, 2000));
            assertThat(reader.get("old.txt").readAllBytes()).isEqualTo(random(8, 2000));
            assertThat(reader.get("old.txt", ReadOptions.version("0000000000000001"))
                            .readAllBytes())
                    .isEqualTo(old);
        }
        assertThat(packBytes()).isEqualTo(4000);
    }

    @Test
    void aReaderOpenedOnTheEarlierLayoutReadsOnAfterAWriterUpgradesItAndMovesAContentIntoAPack() throws Exception {
        byte[] old = "written when small contents lived in the index".getBytes(UTF_8);
        createSchemaOneStore(old, "old.txt");
        // The inline copy goes bad: the next put of the same bytes writes a good copy to a pack.
        try (Connection c = index();
                Statement s = c.createStatement()) {
            s.execute("UPDATE blobs SET data = x'00'");
        }
        try (LocalObjectStore reader = LocalObjectStore.open(
                root(), LocalStoreConfig.builder().readOnly(true).build())) {
            assertThatThrownBy(() -> reader.get("old.txt").readAllBytes()).isInstanceOf(IntegrityException.class);

            try (LocalObjectStore writer = LocalObjectStore.open(root())) {
                writer.put("copy.txt", ObjectContent.ofBytes(old));
            }

            assertThat(reader.get("old.txt").readAllBytes())
                    .as("read through a connection that sees the pack columns")
                    .isEqualTo(old);
        }
    }

    @Test
    void aNewestPackReplacedByAFifoADirectoryOrALinkIsNotWrittenToTheNextWriteStartsANewPack() throws Exception {
        String[] kinds = {"fifo", "directory", "link"};
        for (String kind : kinds) {
            Path store = dir.resolve("store-" + kind);
            try (LocalObjectStore s = LocalObjectStore.open(store)) {
                s.put("before", ObjectContent.ofBytes(random(1, 2000)));
            }
            Path pack = store.resolve("packs").resolve("00000001.pack");
            Path moved = Files.move(pack, dir.resolve("moved-" + kind + ".pack"));
            switch (kind) {
                case "fifo" ->
                    new ProcessBuilder("mkfifo", pack.toString())
                            .inheritIO()
                            .start()
                            .waitFor();
                case "directory" -> Files.createDirectory(pack);
                default -> Files.createSymbolicLink(pack, moved);
            }

            try (LocalObjectStore s = LocalObjectStore.open(store)) {
                s.put("after", ObjectContent.ofBytes(random(2, 2000)));
                assertThat(s.get("after").readAllBytes()).isEqualTo(random(2, 2000));
                assertThatThrownBy(() -> s.get("before"))
                        .as(kind)
                        .isInstanceOf(IntegrityException.class)
                        .hasMessageContaining("not a regular file");
            }
            assertThat(Files.size(moved))
                    .as("nothing was written through the " + kind)
                    .isEqualTo(2000);
        }
    }
}
