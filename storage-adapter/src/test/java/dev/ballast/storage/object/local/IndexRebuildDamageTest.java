package dev.ballast.storage.object.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.local.IndexRebuildTest.Seen;
import dev.ballast.testkit.LeakCheck;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rebuild never makes things worse than it finds them (issue 20, item 8, adversarial pass): an
 * intact index keeps every row beside a damaged journal; a damaged journal frame costs that frame
 * only, and the version it named is reported; a content file whose bytes changed (its size not) is
 * no recovered version; an emptied index is damage, not an empty store; a lost index leaves no
 * orphan {@code -wal} or {@code -shm} behind.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@ExtendWith(LeakCheck.class)
class IndexRebuildDamageTest {

    @TempDir
    Path dir;

    private final IndexRebuildTest stores = new IndexRebuildTest();

    @BeforeEach
    void share() {
        stores.dir = dir;
    }

    private Path root() {
        return stores.root();
    }

    private Path index() {
        return root().resolve(LocalObjectStore.INDEX_FILE);
    }

    private List<Seen> seen() throws Exception {
        try (LocalObjectStore store = IndexRebuildTest.reader(root())) {
            return IndexRebuildTest.everything(store);
        }
    }

    private List<Path> journalFiles() throws Exception {
        try (Stream<Path> logs = Files.list(root().resolve(Journal.DIR))) {
            return logs.sorted().toList();
        }
    }

    @Test
    void aJournalCutShortNeverCostsARowOfAnIntactIndex() throws Exception {
        List<Seen> before = stores.populated();
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            store.put("newest", ObjectContent.ofBytes(IndexRebuildTest.random(7, 5000)));
        }
        before = seen();
        Path newest = journalFiles().get(journalFiles().size() - 1);
        try (RandomAccessFile f = new RandomAccessFile(newest.toFile(), "rw")) {
            f.setLength(f.length() / 2);
        }

        IndexRebuild report = LocalObjectStore.rebuildIndex(root());

        assertThat(report.previousIndexKept()).isTrue();
        assertThat(report.journalDamage()).isNotEmpty();
        assertThat(seen()).isEqualTo(before);
    }

    /** The offset of the first VERSION frame of {@code key} in {@code file}, read frame by frame. */
    private static int versionFrame(byte[] file, String key) {
        ByteBuffer b = ByteBuffer.wrap(file);
        byte[] name = key.getBytes(StandardCharsets.UTF_8);
        for (int at = 0; at < file.length; ) {
            int length = b.getInt(at);
            if (file[at + 8] == Journal.VERSION && b.getInt(at + 9) == name.length) {
                String k = new String(file, at + 13, name.length, StandardCharsets.UTF_8);
                if (k.equals(key)) {
                    return at;
                }
            }
            at += 8 + length;
        }
        throw new AssertionError("no VERSION frame of " + key);
    }

    @Test
    void aFlippedByteInTheJournalCostsOnlyTheFrameItHitsAndNamesItsVersion() throws Exception {
        List<Seen> before = stores.populated();
        Path first = journalFiles().get(0);
        byte[] bytes = Files.readAllBytes(first);
        int frame = versionFrame(bytes, "large/a");
        int length = ByteBuffer.wrap(bytes).getInt(frame);
        bytes[frame + 8 + length - 1] ^= 0x01; // the last byte of its payload: the CRC fails, the name stays
        Files.write(first, bytes);
        Files.delete(index());

        IndexRebuild report = LocalObjectStore.rebuildIndex(root());

        Seen lost = before.stream()
                .filter(s -> s.key().equals("large/a") && !s.latest())
                .findFirst()
                .orElseThrow();
        assertThat(report.previousIndexKept()).isFalse();
        assertThat(report.journalDamage())
                .singleElement()
                .asString()
                .contains(first.getFileName().toString())
                .contains("skipped");
        assertThat(report.unrecovered()).containsExactly("large/a (version " + lost.versionId() + ")");
        List<Seen> expected = new ArrayList<>(before);
        expected.remove(lost);
        assertThat(seen()).isEqualTo(expected);
    }

    @Test
    void aContentFileWhoseBytesChangedButNotItsSizeIsNamedNotRecovered() throws Exception {
        stores.populated();
        Path damaged;
        try (Stream<Path> files = Files.walk(root().resolve(Blobs.BLOBS))) {
            damaged = files.filter(Files::isRegularFile).findFirst().orElseThrow();
        }
        long size = Files.size(damaged);
        try (RandomAccessFile f = new RandomAccessFile(damaged.toFile(), "rw")) {
            f.seek(size / 2);
            int b = f.read();
            f.seek(size / 2);
            f.write(b ^ 0x40);
        }
        assertThat(Files.size(damaged)).isEqualTo(size);
        Files.delete(index());

        IndexRebuild report = LocalObjectStore.rebuildIndex(root());

        assertThat(report.contentMissingCount()).isEqualTo(1);
        assertThat(report.contentMissing()).singleElement().asString().startsWith("large/a (version ");
        try (LocalObjectStore store = IndexRebuildTest.reader(root())) {
            String id = report.contentMissing().get(0).replaceAll(".*\\(version (.*)\\)", "$1");
            assertThatThrownBy(() -> {
                        try (ObjectRead r = store.get("large/a", ReadOptions.version(id))) {
                            r.readAllBytes();
                        }
                    })
                    .isInstanceOf(IntegrityException.class);
        }
    }

    @Test
    void anEmptiedIndexIsDamageThatRepairFixesButANewStoreIsNot() throws Exception {
        List<Seen> before = stores.populated();
        Files.write(index(), new byte[0]);

        assertThatThrownBy(this::seen).isInstanceOf(IntegrityException.class).hasMessageContaining("damaged");
        assertThatThrownBy(() -> LocalObjectStore.open(root()).close()).isInstanceOf(IntegrityException.class);
        assertThat(LocalObjectStore.rebuildIndex(root()).versions()).isEqualTo(before.size());
        assertThat(seen()).isEqualTo(before);

        // A store that never wrote has no schema yet, and that is no damage.
        Path fresh = dir.resolve("fresh");
        LocalObjectStore.open(fresh).close();
        Files.write(fresh.resolve(LocalObjectStore.INDEX_FILE), new byte[0]);
        try (LocalObjectStore store = LocalObjectStore.open(fresh)) {
            store.put("a", ObjectContent.ofBytes(new byte[] {1}));
        }
    }

    @Test
    void aLostIndexLeavesNoOrphanLogFilesBehind() throws Exception {
        List<Seen> before = stores.populated();
        Files.delete(index());
        Files.write(root().resolve(LocalObjectStore.INDEX_FILE + "-wal"), new byte[100]);
        Files.write(root().resolve(LocalObjectStore.INDEX_FILE + "-shm"), new byte[100]);

        IndexRebuild report = LocalObjectStore.rebuildIndex(root());

        assertThat(report.previousIndex()).isNull();
        try (Stream<Path> files = Files.list(root())) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .noneMatch(n -> n.contains("before-repair"))
                    .noneMatch(n -> n.equals(LocalObjectStore.INDEX_FILE + "-wal"));
        }
        assertThat(seen()).isEqualTo(before);
    }
}
