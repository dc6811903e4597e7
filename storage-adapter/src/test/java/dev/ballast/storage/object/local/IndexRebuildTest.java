package dev.ballast.storage.object.local;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.internal.Sha256;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.VersionEntry;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The index is no single point of failure (issue 20, item 8): one flipped byte in its header, the
 * file cut short or deleted, or rows missing, and {@link LocalObjectStore#rebuildIndex(Path)} puts
 * back every version from the store's journal — version IDs, generations, delete markers, removals
 * and contents moved by a compaction included — while a lost pack costs only the versions whose
 * content was in it, each named.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@ExtendWith(LeakCheck.class)
class IndexRebuildTest {

    @TempDir
    Path dir;

    Path root() {
        return dir.resolve("store");
    }

    static byte[] random(long seed, int size) {
        byte[] b = new byte[size];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    /** One version as a reader sees it: entry fields, generation and the SHA-256 of its bytes. */
    record Seen(
            String key,
            String versionId,
            boolean deleteMarker,
            long size,
            boolean latest,
            long generation,
            String sha) {}

    static List<Seen> everything(LocalObjectStore store) throws IOException {
        List<Seen> seen = new ArrayList<>();
        for (VersionEntry e : store.listVersions("")) {
            if (e.deleteMarker()) {
                seen.add(new Seen(e.key(), e.versionId(), true, 0, e.latest(), 0, ""));
                continue;
            }
            try (ObjectRead r = store.get(e.key(), ReadOptions.version(e.versionId()))) {
                byte[] bytes = r.readAllBytes();
                seen.add(new Seen(
                        e.key(),
                        e.versionId(),
                        false,
                        e.size(),
                        e.latest(),
                        r.version().generation(),
                        Sha256.hex(Sha256.of(bytes))));
            }
        }
        return seen;
    }

    static LocalObjectStore reader(Path root) {
        return LocalObjectStore.open(
                root, LocalStoreConfig.builder().readOnly(true).build());
    }

    /**
     * A store of small contents (in packs), large ones (content files), several versions of a key, a
     * delete marker, versions removed for good, a content shared by two keys, and a compaction that
     * moved contents to a new pack.
     */
    List<Seen> populated() throws IOException {
        LocalStoreConfig config = LocalStoreConfig.builder().packSize(64 * 1024).build();
        try (LocalObjectStore store = LocalObjectStore.open(root(), config)) {
            for (int i = 0; i < 40; i++) {
                store.put("small/" + i, ObjectContent.ofBytes(random(i, 3000)));
            }
            store.put("large/a", ObjectContent.ofBytes(random(100, 300_000)));
            store.put("large/a", ObjectContent.ofBytes(random(101, 300_000)));
            store.put("copy/of-small-3", ObjectContent.ofBytes(random(3, 3000)));
            store.put("gone", ObjectContent.ofBytes("x".getBytes(UTF_8)));
            store.delete("gone");
            store.put("empty", ObjectContent.ofBytes(new byte[0]));
            store.put("manifest.json", ObjectContent.ofBytes("{\"files\": 42}".getBytes(UTF_8)));
            // Remove most small versions for good, so their packs are rewritten by the compaction.
            for (int i = 0; i < 40; i++) {
                if (i % 5 != 0) {
                    String id = store.versions("small/" + i).get(0).versionId();
                    assertThat(store.deleteVersion("small/" + i, id)).isTrue();
                }
            }
            assertThat(store.compact().contentsMoved()).isPositive();
            return everything(store);
        }
    }

    enum Damage {
        HEADER_BYTE_FLIPPED,
        TRUNCATED_TO_HALF,
        DELETED,
        ROWS_MISSING
    }

    void damage(Damage damage) throws Exception {
        Path index = root().resolve(LocalObjectStore.INDEX_FILE);
        switch (damage) {
            case HEADER_BYTE_FLIPPED -> {
                try (RandomAccessFile f = new RandomAccessFile(index.toFile(), "rw")) {
                    f.seek(3);
                    int b = f.read();
                    f.seek(3);
                    f.write(b ^ 0x01);
                }
            }
            case TRUNCATED_TO_HALF -> {
                try (RandomAccessFile f = new RandomAccessFile(index.toFile(), "rw")) {
                    f.setLength(f.length() / 2);
                }
            }
            case DELETED -> Files.delete(index);
            case ROWS_MISSING -> {
                try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + index);
                        Statement s = c.createStatement()) {
                    s.execute("DELETE FROM versions WHERE seq % 2 = 0");
                    s.execute("PRAGMA wal_checkpoint(TRUNCATE)");
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Damage.class)
    void everyVersionComesBackFromTheJournal(Damage damage) throws Exception {
        List<Seen> before = populated();
        damage(damage);
        if (damage != Damage.ROWS_MISSING) {
            assertThat(everythingOrFailure()).isNotEqualTo(before);
        }

        IndexRebuild report = LocalObjectStore.rebuildIndex(root());

        assertThat(report.journalFound()).isTrue();
        assertThat(report.contentMissing()).isEmpty();
        assertThat(report.versions()).isEqualTo(before.size());
        try (LocalObjectStore store = reader(root())) {
            assertThat(everything(store)).isEqualTo(before);
        }
        assertThat(report.changed()).isTrue();
        if (damage != Damage.DELETED) {
            assertThat(report.previousIndex()).isNotNull().exists();
        }
        // The rebuilt store takes writes, and they are journalled in turn.
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            store.put("after", ObjectContent.ofBytes(random(9, 100)));
        }
        Files.delete(root().resolve(LocalObjectStore.INDEX_FILE));
        assertThat(LocalObjectStore.rebuildIndex(root()).versions()).isEqualTo(before.size() + 1);
    }

    /**
     * Field input: a rebuild of an intact index kept the old one as {@code index.db.before-repair-MILLIS}
     * every time, though nothing had changed; it is now left in place and nothing is kept aside.
     */
    @Test
    void aRebuildOfAnIntactIndexChangesNothingAndKeepsNoCopyOfIt() throws Exception {
        List<Seen> before = populated();
        for (int run = 0; run < 2; run++) {
            IndexRebuild report = LocalObjectStore.rebuildIndex(root());
            assertThat(report.changed()).isFalse();
            assertThat(report.previousIndexKept()).isTrue();
            assertThat(report.previousIndex()).isNull();
            assertThat(report.versions()).isEqualTo(before.size());
            try (Stream<Path> files = Files.list(root())) {
                assertThat(files.map(p -> p.getFileName().toString()))
                        .noneMatch(n -> n.contains("before-repair") || n.contains("rebuilding"));
            }
            try (LocalObjectStore store = reader(root())) {
                assertThat(everything(store)).isEqualTo(before);
            }
        }
    }

    private Object everythingOrFailure() {
        try (LocalObjectStore store = reader(root())) {
            return everything(store);
        } catch (RuntimeException | IOException e) {
            return e;
        }
    }

    @Test
    void aLostPackCostsOnlyTheVersionsWhoseContentItHeldAndNamesThem() throws Exception {
        List<Seen> before = populated();
        Path newestPack;
        try (Stream<Path> packs = Files.list(root().resolve("packs"))) {
            newestPack = packs.sorted().reduce((a, b) -> b).orElseThrow();
        }
        Files.delete(newestPack);
        Files.delete(root().resolve(LocalObjectStore.INDEX_FILE));

        IndexRebuild report = LocalObjectStore.rebuildIndex(root());

        assertThat(report.contentMissingCount()).isPositive().isLessThan(before.size());
        assertThat(report.contentMissing()).hasSize((int) report.contentMissingCount());
        try (LocalObjectStore store = reader(root())) {
            // Every version is kept in the index (reading a lost one is an IntegrityException, never a
            // missing key), and listed at the bytes its files hold: the lost ones at 0, found missing.
            List<dev.ballast.storage.object.VersionEntry> listed = store.listVersions("");
            assertThat(listed).hasSize(before.size());
            List<dev.ballast.storage.object.VersionEntry> lost = listed.stream()
                    .filter(v -> report.contentMissing().contains(v.key() + " (version " + v.versionId() + ")"))
                    .toList();
            assertThat(lost)
                    .hasSize((int) report.contentMissingCount())
                    .allSatisfy(v -> assertThat(v.size()).isZero());
            assertThat(store.missingContent(lost)).hasSize(lost.size());
            int readable = 0;
            for (Seen s : before) {
                if (s.deleteMarker()) {
                    continue;
                }
                String named = s.key() + " (version " + s.versionId() + ")";
                if (report.contentMissing().contains(named)) {
                    assertThatThrownBy(() -> store.get(s.key(), ReadOptions.version(s.versionId()))
                                    .readAllBytes())
                            .isInstanceOf(IntegrityException.class);
                } else {
                    try (ObjectRead r = store.get(s.key(), ReadOptions.version(s.versionId()))) {
                        assertThat(Sha256.hex(Sha256.of(r.readAllBytes()))).isEqualTo(s.sha());
                    }
                    readable++;
                }
            }
            assertThat(readable).isPositive();
            // The large contents live in their own files: no pack loss touches them.
            assertThat(report.contentMissing()).noneMatch(n -> n.startsWith("large/"));
        }
    }

    @Test
    void aStoreOfTheEarlierFormatIsJournalledByItsFirstWriterAndCanThenBeRebuilt() throws Exception {
        List<Seen> before = populated();
        // What a store written before journals looks like: no journal, no mark in its index.
        makeEarlierFormat();
        Files.copy(root().resolve(LocalObjectStore.INDEX_FILE), dir.resolve("saved-index.db"));

        Files.delete(root().resolve(LocalObjectStore.INDEX_FILE));
        IndexRebuild none = LocalObjectStore.rebuildIndex(root());
        assertThat(none.journalFound()).isFalse();
        assertThat(none.packFiles()).isPositive();
        assertThat(none.contentFiles()).isPositive();
        assertThat(root().resolve(LocalObjectStore.INDEX_FILE)).doesNotExist();

        Files.copy(dir.resolve("saved-index.db"), root().resolve(LocalObjectStore.INDEX_FILE));
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            assertThat(everything(store)).isEqualTo(before); // still read as it is
        }
        Files.delete(root().resolve(LocalObjectStore.INDEX_FILE));
        IndexRebuild report = LocalObjectStore.rebuildIndex(root());
        assertThat(report.journalFound()).isTrue();
        try (LocalObjectStore store = reader(root())) {
            assertThat(everything(store)).isEqualTo(before);
        }
    }

    private void makeEarlierFormat() throws Exception {
        try (Stream<Path> files = Files.walk(root().resolve(Journal.DIR))) {
            for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + root().resolve(LocalObjectStore.INDEX_FILE));
                Statement s = c.createStatement()) {
            s.execute("DELETE FROM meta WHERE name = '" + VersionIndex.JOURNALLED + "'");
            s.execute("DELETE FROM meta WHERE name = '" + VersionIndex.JOURNAL_POSITION + "'");
            s.execute("PRAGMA wal_checkpoint(TRUNCATE)");
        }
    }

    @Test
    void aJournalCutShortByAKilledWriterKeepsEveryFrameBeforeTheCut() throws Exception {
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            store.put("a", ObjectContent.ofBytes("one".getBytes(UTF_8)));
        }
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            store.put("b", ObjectContent.ofBytes("two".getBytes(UTF_8)));
        }
        Path last;
        try (Stream<Path> logs = Files.list(root().resolve(Journal.DIR))) {
            last = logs.sorted().reduce((x, y) -> y).orElseThrow();
        }
        try (RandomAccessFile f = new RandomAccessFile(last.toFile(), "rw")) {
            f.setLength(f.length() - 17 - 3); // the last frame is the 17-byte COMMIT: cut into the VERSION before it
        }
        Files.delete(root().resolve(LocalObjectStore.INDEX_FILE));

        IndexRebuild report = LocalObjectStore.rebuildIndex(root());

        assertThat(report.journalDamage())
                .singleElement()
                .asString()
                .contains(last.getFileName().toString());
        try (LocalObjectStore store = reader(root())) {
            assertThat(store.list("")).containsExactly("a");
        }
    }

    @Test
    void aKeyKeptInAFileOfItsOwnSurvivesTheLossOfEveryPack() throws Exception {
        LocalStoreConfig config = LocalStoreConfig.builder()
                .ownFiles(k -> k.endsWith("/manifest"))
                .build();
        try (LocalObjectStore store = LocalObjectStore.open(root(), config)) {
            store.put("b/manifest", ObjectContent.ofBytes("{}".getBytes(UTF_8)));
            store.put("b/small", ObjectContent.ofBytes("small".getBytes(UTF_8)));
        }
        try (Stream<Path> packs = Files.list(root().resolve("packs"))) {
            for (Path p : packs.toList()) {
                Files.delete(p);
            }
        }
        Files.delete(root().resolve(LocalObjectStore.INDEX_FILE));

        IndexRebuild report = LocalObjectStore.rebuildIndex(root());

        assertThat(report.contentMissing()).singleElement().asString().startsWith("b/small (version ");
        try (LocalObjectStore store = reader(root());
                ObjectRead r = store.get("b/manifest")) {
            assertThat(r.readAllBytes()).isEqualTo("{}".getBytes(UTF_8));
        }
    }

    @Test
    void afterAKillMinus9TheRebuiltIndexHoldsEveryVersionTheIndexHeld() throws Exception {
        java.util.Set<String> acked = java.util.concurrent.ConcurrentHashMap.newKeySet();
        Path removals = root().resolveSibling(root().getFileName() + "-removals");
        Process writer = dev.ballast.storage.ChildJvm.start(
                JournallingWriter.class, root().toString(), "7", removals.toString());
        java.io.BufferedReader out = new java.io.BufferedReader(
                new java.io.InputStreamReader(writer.getInputStream(), java.nio.charset.StandardCharsets.US_ASCII));
        try {
            assertThat(out.readLine()).isEqualTo("OPEN");
            // Kill it mid-stream, once it has acknowledged enough writes to have removed and compacted.
            String line;
            while (acked.size() < 1500 && (line = out.readLine()) != null) {
                if (line.startsWith("ACK ")) {
                    acked.add(line.substring(line.lastIndexOf(' ') + 1));
                }
            }
        } finally {
            writer.destroyForcibly(); // kill -9
            assertThat(writer.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        out.close();
        // The versions whose removal it asked for (written down before each removal, up to the kill).
        java.util.Set<String> removing =
                Files.exists(removals) ? java.util.Set.copyOf(Files.readAllLines(removals)) : java.util.Set.of();
        List<Seen> held;
        try (LocalObjectStore store = reader(root())) {
            held = everything(store);
        }
        assertThat(held).hasSizeGreaterThan(100);
        for (String suffix : List.of("", "-wal", "-shm")) {
            Files.deleteIfExists(root().resolve(LocalObjectStore.INDEX_FILE + suffix));
        }

        IndexRebuild report = LocalObjectStore.rebuildIndex(root());

        assertThat(report.contentMissing()).isEmpty();
        List<Seen> rebuilt;
        try (LocalObjectStore store = reader(root())) {
            rebuilt = everything(store);
        }
        // Every version the index held comes back as it was; the only others a rebuild may add are
        // those of the one batch whose journal frames were synced when the kill came before its commit,
        // never an acknowledged one (those were all in the index) unless its removal was asked for: a
        // removal the kill left between the index's commit and the journal's marker keeps the version.
        List<Seen> heldWithoutLatest =
                held.stream().map(IndexRebuildTest::withoutLatest).toList();
        List<Seen> rebuiltWithoutLatest =
                rebuilt.stream().map(IndexRebuildTest::withoutLatest).toList();
        assertThat(rebuiltWithoutLatest).containsAll(heldWithoutLatest);
        List<Seen> extra = new ArrayList<>(rebuiltWithoutLatest);
        extra.removeAll(heldWithoutLatest);
        assertThat(extra)
                .hasSizeLessThanOrEqualTo(50)
                .noneMatch(e -> acked.contains(e.versionId()) && !removing.contains(e.versionId()));
    }

    private static Seen withoutLatest(Seen s) {
        return new Seen(s.key(), s.versionId(), s.deleteMarker(), s.size(), false, s.generation(), s.sha());
    }
}
