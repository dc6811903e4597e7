package dev.ballast.storage.object.local;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.storage.AlreadyExistsException;
import dev.ballast.storage.ChildJvm;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.internal.Sha256;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.VersionEntry;
import dev.ballast.testkit.LeakCheck;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the local object store's design promises beyond the store contract: content stored once per
 * SHA-256, any key S3 accepts, one writer process with concurrent readers, crash leftovers swept,
 * damage at rest detected and healed, and group-committed writes that all survive a reopen.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@ExtendWith(LeakCheck.class)
class LocalObjectStoreTest {

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

    /** Where the store keeps the content of {@code v} (a file named by its SHA-256). */
    Path contentFile(ObjectVersion v) {
        return root().resolve("blobs").resolve(v.sha256().substring(0, 2)).resolve(v.sha256());
    }

    static long contentFiles(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root.resolve("blobs"))) {
            return files.filter(Files::isRegularFile).count();
        }
    }

    @Test
    void versionsDeleteMarkersAndContentSurviveAReopen() {
        ObjectVersion v1;
        ObjectVersion v2;
        VersionEntry marker;
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            v1 = store.put("notes/a.txt", ObjectContent.ofBytes("one".getBytes(UTF_8)));
            v2 = store.put("notes/a.txt", ObjectContent.ofBytes(random(1, 300_000)));
            marker = store.delete("notes/a.txt");
        }

        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            assertThat(store.versions("notes/a.txt"))
                    .extracting(VersionEntry::versionId)
                    .containsExactly(marker.versionId(), v2.versionId(), v1.versionId());
            assertThat(store.versions("notes/a.txt").get(0).deleteMarker()).isTrue();
            assertThatThrownBy(() -> store.get("notes/a.txt"))
                    .isInstanceOfSatisfying(
                            ObjectNotFoundException.class,
                            e -> assertThat(e.deleted()).isTrue());
            assertThat(store.get("notes/a.txt", ReadOptions.version(v1.versionId()))
                            .readAllBytes())
                    .isEqualTo("one".getBytes(UTF_8));
            assertThat(store.get("notes/a.txt", ReadOptions.version(v2.versionId()))
                            .readAllBytes())
                    .isEqualTo(random(1, 300_000));
            assertThat(store.list("")).isEmpty();
        }
    }

    @Test
    void aClosedStoreKeepsItsVersionsInTheDatabaseFileSoALostOrDamagedLogLosesNothing() throws IOException {
        ObjectVersion[] versions = new ObjectVersion[20];
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            for (int i = 0; i < versions.length; i++) {
                versions[i] = store.put("k/" + i, ObjectContent.ofBytes(random(i, 100 + i)));
            }
        }
        Path log = root().resolve("index.db-wal");
        assertThat(!Files.exists(log) || Files.size(log) == 0)
                .as("the log is empty once the writer closed")
                .isTrue();
        // A damaged or deleted log (a bit flip, a careless clean-up) costs nothing that was acknowledged.
        Files.deleteIfExists(log);
        Files.deleteIfExists(root().resolve("index.db-shm"));

        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            for (int i = 0; i < versions.length; i++) {
                assertThat(store.get("k/" + i).readAllBytes()).isEqualTo(random(i, 100 + i));
                assertThat(store.versions("k/" + i))
                        .extracting(VersionEntry::versionId)
                        .containsExactly(versions[i].versionId());
            }
        }
    }

    @Test
    void aDamagedIndexIsReportedAsDamageNotAsAStoreThatIsDown() throws IOException {
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            store.put("a", ObjectContent.ofBytes(random(8, 100)));
        }
        try (RandomAccessFile raf =
                new RandomAccessFile(root().resolve("index.db").toFile(), "rw")) {
            raf.write("not a database!!".getBytes(UTF_8)); // over SQLite's 16-byte header
        }
        assertThatThrownBy(() -> LocalObjectStore.open(
                        root(), LocalStoreConfig.builder().readOnly(true).build()))
                .isInstanceOf(dev.ballast.storage.IntegrityException.class)
                .hasMessageContaining("the store's index is damaged");
        assertThatThrownBy(() -> LocalObjectStore.open(root()))
                .isInstanceOf(dev.ballast.storage.IntegrityException.class)
                .hasMessageContaining("the store's index is damaged");
    }

    @Test
    void aStoreWhoseIndexWasLostIsRefusedRatherThanStartedAgainEmpty() throws IOException {
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            store.put("big", ObjectContent.ofBytes(random(7, 300_000))); // above the inline threshold: a content file
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
        assertThat(root().resolve("index.db")).doesNotExist();
    }

    @Test
    void identicalContentIsStoredOnceWhateverItsKeys() throws IOException {
        byte[] big = random(2, 200_000);
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            ObjectVersion a = store.put("a/copy", ObjectContent.ofBytes(big));
            ObjectVersion b = store.put("b/copy", ObjectContent.ofBytes(big.clone()));
            store.put("a/copy", ObjectContent.ofBytes(big));
            store.put("small/1", ObjectContent.ofBytes("tiny".getBytes(UTF_8)));
            store.put("small/2", ObjectContent.ofBytes("tiny".getBytes(UTF_8)));

            assertThat(a.sha256()).isEqualTo(b.sha256());
            assertThat(a.versionId()).isNotEqualTo(b.versionId());
            assertThat(a.eTag()).isNotEqualTo(b.eTag());
            assertThat(contentFiles(root()))
                    .as("files holding the 200 KB content (small content lives in a pack)")
                    .isEqualTo(1);
            assertThat(store.get("b/copy").readAllBytes()).isEqualTo(big);
        }
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "a\\b.txt",
                "dir/",
                "a//b",
                " leading space",
                "trailing dot.",
                "%2F%00",
                "x y+z=&?#",
                "\u65e5\u672c\u8a9e/\u30d5\u30a1\u30a4\u30eb",
                "emoji \ud83d\ude00",
                "tab\u00a0nbsp",
                "*"
            })
    void everyKeyS3AcceptsRoundTrips(String key) {
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            store.put(key, ObjectContent.ofBytes(key.getBytes(UTF_8)));
            try (ObjectRead read = store.get(key)) {
                assertThat(read.readAllBytes()).isEqualTo(key.getBytes(UTF_8));
                assertThat(read.version().key()).isEqualTo(key);
            }
            assertThat(store.list("")).containsExactly(key);
        }
    }

    @Test
    void aKeyOfOneThousandAndTwentyFourBytesIsAccepted() {
        String key = "\u00e9".repeat(512);
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            store.put(key, ObjectContent.ofBytes(new byte[] {1}));
            assertThat(store.get(key).readAllBytes()).containsExactly(1);
        }
    }

    @Test
    void listIsInUtf8BinaryOrderAndAPrefixIsARange() {
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            for (String k : List.of("p/\u00ff", "p/z", "p/A", "p/\uffff", "p0x", "q", "p/\u00e9")) {
                store.put(k, ObjectContent.ofBytes(new byte[] {1}));
            }
            assertThat(store.list("p/")).containsExactly("p/A", "p/z", "p/\u00e9", "p/\u00ff", "p/\uffff");
            assertThat(store.list("p/\u00e9")).containsExactly("p/\u00e9");
            assertThat(store.list("")).hasSize(7);
        }
    }

    @Test
    void aSecondWriterProcessIsRefusedUntilTheFirstIsGone() throws Exception {
        LocalObjectStore.open(root()).close();
        Process holder = ChildJvm.start(StoreLockHolder.class, root().toString());
        try {
            String line = ChildJvm.firstLine(holder, 60);
            assertThat(line).isEqualTo("LOCKED");

            assertThatThrownBy(() -> LocalObjectStore.open(root()))
                    .isInstanceOf(StorageUnavailableException.class)
                    .hasMessageContaining("in use by another writer process")
                    .hasMessageContaining(root().toString());
            try (LocalObjectStore reader = LocalObjectStore.open(
                    root(), LocalStoreConfig.builder().readOnly(true).build())) {
                assertThat(reader.list("")).isEmpty();
            }

            holder.destroyForcibly(); // kill -9: the operating system releases the lock with the process
            assertThat(holder.waitFor(30, TimeUnit.SECONDS)).isTrue();
            try (LocalObjectStore mine = LocalObjectStore.open(root())) {
                assertThat(mine.put("k", ObjectContent.ofBytes(new byte[] {1})).size())
                        .isEqualTo(1);
            }
        } finally {
            holder.destroyForcibly();
        }
    }

    @Test
    void readersSeeEveryAcknowledgedWriteAndCannotWrite() {
        try (LocalObjectStore writer = LocalObjectStore.open(root());
                LocalObjectStore reader = LocalObjectStore.open(
                        root(), LocalStoreConfig.builder().readOnly(true).build())) {
            for (int i = 0; i < 20; i++) {
                ObjectVersion v = writer.put("k", ObjectContent.ofBytes(random(i, 70_000 * (i % 2) + 10)));
                try (ObjectRead read = reader.get("k")) {
                    assertThat(read.version().versionId()).isEqualTo(v.versionId());
                    assertThat(read.readAllBytes()).isEqualTo(random(i, 70_000 * (i % 2) + 10));
                }
            }
            assertThatThrownBy(() -> reader.put("k", ObjectContent.ofBytes(new byte[1])))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("read-only");
            assertThatThrownBy(() -> reader.delete("k")).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void aReaderNeedsAnExistingStoreAndAWriterRefusesADirectoryHoldingSomethingElse() throws IOException {
        assertThatThrownBy(() -> LocalObjectStore.open(
                        root(), LocalStoreConfig.builder().readOnly(true).build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("holds no local object store");
        Path home = Files.createDirectories(dir.resolve("home"));
        Files.writeString(home.resolve("thesis.tex"), "precious");

        assertThatThrownBy(() -> LocalObjectStore.open(home))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not empty");
        assertThat(Files.list(home)).containsExactly(home.resolve("thesis.tex"));
    }

    @Test
    void temporaryFilesAKilledWriterLeftAreRemovedByTheNextWriter() throws IOException {
        LocalObjectStore.open(root()).close();
        Files.write(root().resolve("tmp/4f3a.tmp"), random(3, 1000));

        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            assertThat(Files.list(root().resolve("tmp"))).isEmpty();
        }
    }

    @Test
    void aContentFileReplacedByAFifoIsDamageReportedAtOnceNotAReadThatNeverEnds() throws Exception {
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            Path file = contentFile(store.put("pipe.bin", ObjectContent.ofBytes(random(5, 200_000))));
            Files.delete(file);
            org.junit.jupiter.api.Assumptions.assumeTrue(
                    new ProcessBuilder("mkfifo", file.toString()).start().waitFor() == 0, "needs mkfifo");

            assertThatThrownBy(() -> store.get("pipe.bin").readAllBytes())
                    .isInstanceOf(dev.ballast.storage.IntegrityException.class)
                    .hasMessageContaining("is not a regular file");
        }
    }

    @Test
    void damageAtRestIsDetectedAndAPutOfTheSameContentHealsIt() throws IOException {
        byte[] content = random(4, 500_000);
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            ObjectVersion v = store.put("photo.jpg", ObjectContent.ofBytes(content));
            Path file = contentFile(v);
            try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
                raf.seek(1234);
                raf.write(content[1234] ^ 0x40);
            }

            assertThatThrownBy(() -> store.get("photo.jpg").readAllBytes())
                    .isInstanceOf(IntegrityException.class)
                    .hasMessageContaining("photo.jpg");

            store.put("photo-copy.jpg", ObjectContent.ofBytes(content));
            assertThat(store.get("photo.jpg", ReadOptions.version(v.versionId()))
                            .readAllBytes())
                    .isEqualTo(content);

            Files.delete(file);
            assertThatThrownBy(() -> store.get("photo.jpg"))
                    .isInstanceOf(IntegrityException.class)
                    .hasMessageContaining("missing");
        }
    }

    @Test
    void aStreamShorterThanDeclaredStoresNothingAndLeavesNoTemporaryFile() throws IOException {
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            assertThatThrownBy(() -> store.put(
                            "short", ObjectContent.ofStream(new ByteArrayInputStream(random(5, 100_000)), 100_001)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("declared length");
            assertThat(store.versions("short")).isEmpty();
            assertThat(Files.list(root().resolve("tmp"))).isEmpty();
            assertThat(contentFiles(root())).isZero();
        }
    }

    @Test
    void concurrentWritesAreAllDurableAfterAReopen() throws Exception {
        int threads = 8;
        int perThread = 300;
        List<ObjectVersion> written = new ArrayList<>();
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            CountDownLatch start = new CountDownLatch(1);
            List<Future<List<ObjectVersion>>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                results.add(pool.submit(() -> {
                    start.await();
                    List<CompletableFuture<ObjectVersion>> mine = new ArrayList<>();
                    for (int i = 0; i < perThread; i++) {
                        int size = i % 50 == 0 ? 100_000 : 2000 + i;
                        mine.add(store.putAsync(
                                "t" + thread + "/f" + i, ObjectContent.ofBytes(random(thread * 10_000L + i, size))));
                    }
                    return mine.stream().map(CompletableFuture::join).toList();
                }));
            }
            start.countDown();
            for (Future<List<ObjectVersion>> r : results) {
                written.addAll(r.get(60, TimeUnit.SECONDS));
            }
            pool.shutdown();
        }

        try (LocalObjectStore store = LocalObjectStore.open(
                root(), LocalStoreConfig.builder().readOnly(true).build())) {
            assertThat(store.list("")).hasSize(threads * perThread);
            for (ObjectVersion v : written) {
                try (ObjectRead read = store.get(v.key())) {
                    assertThat(read.version().versionId()).isEqualTo(v.versionId());
                    assertThat(Sha256.hex(Sha256.of(read.readAllBytes()))).isEqualTo(v.sha256());
                }
            }
        }
    }

    /**
     * A clock whose first reading, taken by the first commit, waits until {@link #release()}: while it
     * waits, that commit is running. Each reading is one second later than the one before.
     */
    static final class FirstCommitHeld extends Clock {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch released = new CountDownLatch(1);
        volatile String firstReader = "";
        private final AtomicLong readings = new AtomicLong();

        @Override
        public long millis() {
            long n = readings.incrementAndGet();
            if (n == 1) {
                firstReader = Thread.currentThread().getName();
                entered.countDown();
                try {
                    released.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return 1_700_000_000_000L + n * 1000;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis());
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        void release() {
            released.countDown();
        }
    }

    @Test
    void putAsyncReturnsWhileACommitRunsAndWritesQueuedMeanwhileShareTheNextCommit() throws Exception {
        FirstCommitHeld clock = new FirstCommitHeld();
        try (LocalObjectStore store = LocalObjectStore.open(
                root(), LocalStoreConfig.builder().clock(clock).build())) {
            CompletableFuture<ObjectVersion> first = store.putAsync("a", ObjectContent.ofBytes(random(1, 3000)));
            clock.entered.await();
            // The first commit is running (held by the clock), on the store's commit thread: the caller got
            // its future back and goes on writing.
            CompletableFuture<ObjectVersion> second = store.putAsync("b", ObjectContent.ofBytes(random(2, 3000)));
            CompletableFuture<ObjectVersion> third = store.putAsync("c", ObjectContent.ofBytes(random(3, 200_000)));
            assertThat(clock.firstReader).isNotEqualTo(Thread.currentThread().getName());
            assertThat(first).isNotDone();
            assertThat(second).isNotDone();
            assertThat(third).isNotDone();
            clock.release();

            ObjectVersion a = first.join();
            ObjectVersion b = second.join();
            ObjectVersion c = third.join();
            // One commit, one clock reading: the two writes queued during the first commit share the next.
            assertThat(b.lastModified()).isEqualTo(c.lastModified()).isAfter(a.lastModified());
            try (ObjectRead read = store.get("c")) {
                assertThat(read.readAllBytes()).isEqualTo(random(3, 200_000));
            }
        }
        try (LocalObjectStore store = LocalObjectStore.open(
                root(), LocalStoreConfig.builder().readOnly(true).build())) {
            assertThat(store.list("")).hasSize(3);
        }
    }

    @Test
    void racingPutIfAbsentWritesExactlyOnce() throws Exception {
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            ExecutorService pool = Executors.newFixedThreadPool(8);
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Boolean>> attempts = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                byte[] mine = ("writer " + t).getBytes(UTF_8);
                attempts.add(pool.submit(() -> {
                    start.await();
                    try {
                        store.putIfAbsent("lease", ObjectContent.ofBytes(mine));
                        return true;
                    } catch (AlreadyExistsException lost) {
                        return false;
                    }
                }));
            }
            start.countDown();
            int won = 0;
            for (Future<Boolean> a : attempts) {
                won += a.get(60, TimeUnit.SECONDS) ? 1 : 0;
            }
            pool.shutdown();
            assertThat(won).isEqualTo(1);
            assertThat(store.versions("lease")).hasSize(1);
        }
    }

    @Test
    void removingVersionsFreesContentNoVersionHoldsAndAMarkersRemovalBringsTheObjectBack() throws IOException {
        byte[] big = random(6, 150_000);
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            ObjectVersion v1 = store.put("k", ObjectContent.ofBytes(big));
            ObjectVersion other = store.put("other", ObjectContent.ofBytes(big));
            VersionEntry marker = store.delete("k");

            assertThat(store.deleteVersion("k", marker.versionId())).isTrue();
            assertThat(store.get("k").version().versionId()).isEqualTo(v1.versionId());
            assertThat(store.deleteVersion("k", v1.versionId())).isTrue();
            assertThat(contentFiles(root())).as("still held by 'other'").isEqualTo(1);
            assertThat(store.deleteVersion("other", other.versionId())).isTrue();

            assertThat(contentFiles(root())).isZero();
            assertThat(store.versions("k")).isEmpty();
            assertThat(store.deleteVersion("k", v1.versionId())).isFalse();
            assertThatThrownBy(() -> store.get("k"))
                    .isInstanceOfSatisfying(
                            ObjectNotFoundException.class,
                            e -> assertThat(e.deleted()).isFalse());
        }
    }

    @Test
    void generationsRiseWithEveryWriteEvenWithAStoppedClock() {
        Clock stopped = Clock.fixed(Instant.ofEpochMilli(5000), ZoneOffset.UTC);
        try (LocalObjectStore store = LocalObjectStore.open(
                root(), LocalStoreConfig.builder().clock(stopped).build())) {
            long g1 = store.put("g", ObjectContent.ofBytes(new byte[] {1})).generation();
            long g2 = store.put("g", ObjectContent.ofBytes(new byte[] {2})).generation();
            store.delete("g");
            long g4 = store.put("g", ObjectContent.ofBytes(new byte[] {4})).generation();

            assertThat(g1).isEqualTo(5000);
            assertThat(g2).isEqualTo(5001);
            assertThat(g4).isEqualTo(5003);
        }
    }

    @Test
    void aSparseOrZeroFilledObjectReadsBackWhole() throws IOException {
        Path sparse = dir.resolve("disk.img");
        try (RandomAccessFile raf = new RandomAccessFile(sparse.toFile(), "rw")) {
            raf.setLength(40L * 1024 * 1024);
            raf.seek(17L * 1024 * 1024 + 3);
            raf.write("middle".getBytes(UTF_8));
        }
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            ObjectVersion v = store.put("disk.img", ObjectContent.ofFile(sparse));

            assertThat(v.size()).isEqualTo(40L * 1024 * 1024);
            try (ObjectRead read = store.get("disk.img")) {
                assertThat(Sha256.hex(Sha256.of(read.stream()))).isEqualTo(v.sha256());
            }
            try (var in = Files.newInputStream(sparse)) {
                assertThat(Sha256.hex(Sha256.of(in))).isEqualTo(v.sha256());
            }
        }
    }
}
