package dev.ballast.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.backup.content.PackedBlobs;
import dev.ballast.backup.keys.KdfParameters;
import dev.ballast.backup.keys.KeyFiles;
import dev.ballast.backup.keys.MasterKey;
import dev.ballast.backup.retention.PackedPrune;
import dev.ballast.backup.retention.RetentionPolicy;
import dev.ballast.backup.run.RunMarker;
import dev.ballast.backup.snapshot.SealedStore;
import dev.ballast.backup.tree.Names;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.VersionEntry;
import dev.ballast.storage.object.local.LocalObjectStore;
import dev.ballast.test.FakeObjectStore;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Backups into a repository of format 3 through the {@link Backups} API alone, on the local object
 * store: what a user of the library observes (restored bytes and names, what the store holds, what
 * each result says), and that a store of the earlier formats is read as before.
 */
@ExtendWith(LeakCheck.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EncryptedBackupsTest {
    /** A file name with a control character, and one that is not valid UTF-8 (Latin-1 "é"). */
    static final byte[] CONTROL_NAME = {'t', 'a', 'b', '\t', 'n', 'a', 'm', 'e'};

    static final byte[] LATIN1_NAME = {'n', (byte) 0xE9, '.', 't', 'x', 't'};

    static final String SECRET_NAME = "quarterly-secret-plan.txt";
    static final String SECRET_TEXT = "the merger with Initech closes on the 14th";

    @TempDir
    Path dir;

    private LocalObjectStore store;
    private MasterKey key;

    /** Argon2id at its smallest: what the tests need is a repository, not a slow password. */
    static MasterKey init(ObjectStore store) {
        return KeyFiles.create()
                .withKdf(new KdfParameters(1024, 1, 1))
                .init(store, "test password".toCharArray())
                .masterKey();
    }

    @BeforeEach
    void open() {
        store = LocalObjectStore.open(dir.resolve("store"));
        key = init(store);
    }

    @AfterEach
    void close() {
        store.close();
    }

    /** Backups a minute "later" than the files were written, so an unchanged file is known by its stat alone. */
    private Backups backups() {
        return Backups.of(store, key).withClock(Clock.offset(Clock.systemUTC(), Duration.ofMinutes(1)));
    }

    private Path source() throws IOException {
        Path source = Files.createDirectories(dir.resolve("source"));
        Files.createDirectories(source.resolve("docs"));
        Files.writeString(source.resolve("docs/" + SECRET_NAME), (SECRET_TEXT + "\n").repeat(200));
        Files.writeString(source.resolve(Names.path(Names.decode(CONTROL_NAME))), "a tab in the name");
        Files.writeString(source.resolve(Names.path(Names.decode(LATIN1_NAME))), "latin-1 name");
        Files.write(source.resolve("empty"), new byte[0]);
        Files.write(source.resolve("big.bin"), random(3 * 1024 * 1024, 1));
        return source;
    }

    @Test
    void backsUpAndRestoresByteForByteAndAnUnchangedRunStoresNothing() throws IOException {
        Path source = source();
        Backups backups = backups();

        BackupResult made = backups.backup("docs", source);
        assertThat(made.ok()).as("%s", made).isTrue();
        assertThat(made.stored()).isEqualTo(5);
        assertThat(made.bytesUploaded()).isPositive();

        Map<String, Long> packsBefore = sizes("data/");
        BackupResult again = backups.backup("docs", source);
        assertThat(again.ok()).as("%s", again).isTrue();
        assertThat(again.stored()).isZero();
        assertThat(again.unchanged()).isEqualTo(5);
        assertThat(again.bytesUploaded()).isZero();
        assertThat(sizes("data/")).isEqualTo(packsBefore);

        // --checksum reads every file again: still no new blob.
        BackupResult checksummed =
                backups.backup("docs", source, BackupOptions.defaults().withChecksum());
        assertThat(checksummed.ok()).as("%s", checksummed).isTrue();
        assertThat(sizes("data/")).isEqualTo(packsBefore);

        assertThat(backups.snapshots("docs"))
                .extracting(SnapshotInfo::versionId)
                .containsExactly(checksummed.snapshotId(), again.snapshotId(), made.snapshotId());

        Path target = dir.resolve("restored");
        RestoreResult back = backups.restore("docs", target);
        assertThat(back.ok()).as("%s", back).isTrue();
        assertThat(back.restored()).isEqualTo(5);
        assertThat(contents(target)).isEqualTo(contents(source));
        assertThat(contents(target)).containsKeys(hex(CONTROL_NAME), hex(LATIN1_NAME));

        VerifyResult verified = backups.verify("docs", "latest", null);
        assertThat(verified.ok()).as("%s", verified).isTrue();
        assertThat(verified.verified()).isEqualTo(5);
        VerifyResult subset = backups.verify("docs", "latest", "1/1");
        assertThat(subset.ok()).as("%s", subset).isTrue();
    }

    @Test
    void theStoreRevealsNeitherANameNorAFileNameNorContent() throws IOException {
        Path source = source();
        assertThat(backups().backup("secret-backup-name", source).ok()).isTrue();

        List<byte[]> needles = List.of(
                SECRET_NAME.getBytes(StandardCharsets.UTF_8),
                SECRET_TEXT.getBytes(StandardCharsets.UTF_8),
                "secret-backup-name".getBytes(StandardCharsets.UTF_8),
                "big.bin".getBytes(StandardCharsets.UTF_8));
        List<VersionEntry> all = store.listVersions("");
        assertThat(all).isNotEmpty();
        for (VersionEntry v : all) {
            for (byte[] needle : needles) {
                assertThat(v.key()).doesNotContain(new String(needle, StandardCharsets.UTF_8));
            }
            if (v.deleteMarker()) {
                continue;
            }
            byte[] bytes = read(v);
            for (byte[] needle : needles) {
                assertThat(indexOf(bytes, needle))
                        .as("'%s' in %s", new String(needle, StandardCharsets.UTF_8), v.key())
                        .isEqualTo(-1);
            }
        }
        // What the local store keeps on disk beside the objects (its index) does not reveal them either.
        try (Stream<Path> files = Files.walk(dir.resolve("store"))) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                byte[] bytes = Files.readAllBytes(f);
                for (byte[] needle : needles) {
                    assertThat(indexOf(bytes, needle))
                            .as("'%s' in %s", new String(needle, StandardCharsets.UTF_8), f)
                            .isEqualTo(-1);
                }
            }
        }
    }

    @Test
    void aSecondBackupOfAChangedBigFileAddsOnlyTheChangedChunks() throws IOException {
        Path source = Files.createDirectories(dir.resolve("source"));
        byte[] image = random(16 * 1024 * 1024, 2);
        Files.write(source.resolve("disk.img"), image);
        Backups backups = backups();
        assertThat(backups.backup("vm", source).ok()).isTrue();
        long before = total(sizes(""));

        // Four scattered 4 KiB changes in a 16 MiB file.
        for (int at : new int[] {1, 5, 9, 13}) {
            byte[] change = random(4096, at);
            System.arraycopy(change, 0, image, at * 1024 * 1024 + 12345, change.length);
        }
        Files.write(source.resolve("disk.img"), image);
        BackupResult second = backups.backup("vm", source);
        assertThat(second.ok()).as("%s", second).isTrue();
        assertThat(second.stored()).isEqualTo(1);

        long added = total(sizes("")) - before;
        // Each change re-stores the chunk or two around it (about 1 MiB each), not the whole file.
        assertThat(added).as("bytes added to the store").isLessThan(10L * 1024 * 1024);
        assertThat(second.bytesUploaded()).isLessThan(10L * 1024 * 1024);

        Path target = dir.resolve("restored");
        assertThat(backups.restore("vm", target).ok()).isTrue();
        assertThat(Files.readAllBytes(target.resolve("disk.img"))).isEqualTo(image);
    }

    @Test
    void aFlippedByteInAPackNamesTheFileAsDamagedAndWritesNothingWrong() throws IOException {
        Path source = Files.createDirectories(dir.resolve("source"));
        Files.write(source.resolve("only.bin"), random(100_000, 3));
        Backups backups = backups();
        assertThat(backups.backup("one", source).ok()).isTrue();

        List<VersionEntry> packs = store.listVersions("data/");
        assertThat(packs).hasSize(1);
        VersionEntry pack = packs.get(0);
        byte[] bytes = read(pack);
        bytes[100] ^= 0x01; // inside the first (only) blob's sealed bytes
        store.put(pack.key(), ObjectContent.ofBytes(bytes));

        Path target = dir.resolve("restored");
        RestoreResult back = backups.restore("one", target);
        assertThat(back.ok()).isFalse();
        assertThat(back.damagedCopies()).isEqualTo(1);
        assertThat(back.missingChunks()).as("damaged, not missing").isZero();
        assertThat(back.failed()).extracting(FileProblem::path).containsExactly("only.bin");
        assertThat(target.resolve("only.bin")).doesNotExist();
        try (Stream<Path> left = Files.list(target)) {
            assertThat(left.toList()).as("no temporary file left").isEmpty();
        }

        VerifyResult verified = backups.verify("one", "latest", null);
        assertThat(verified.ok()).isFalse();
        assertThat(verified.damaged()).extracting(FileProblem::path).containsExactly("only.bin");
    }

    @Test
    void verifyDropsADamagedChunkSoTheNextBackupStoresTheUnchangedFileAgainAndItRestores() throws IOException {
        Path source = bigAndSmall(3, 6);
        Backups backups = backups();
        assertThat(backups.backup("d", source).ok()).isTrue();
        VersionEntry pack = largestPack();
        byte[] bytes = read(pack);
        bytes[bytes.length / 2] ^= 0x55; // inside a chunk of the big file
        store.put(pack.key(), ObjectContent.ofBytes(bytes));

        VerifyResult verified = backups.verify("d", "latest", null);
        assertThat(verified.damaged()).extracting(FileProblem::path).containsExactly("big.bin");
        assertThat(verified.recorded())
                .as("the damaged chunk is dropped from the index")
                .isTrue();

        // The file is unchanged in the source, yet its chunk is gone: it is stored again, not kept.
        BackupResult again = backups.backup("d", source);
        assertThat(again.ok()).as("%s", again).isTrue();
        assertThat(again.stored()).isEqualTo(1);
        assertThat(again.unchanged()).isEqualTo(1);
        assertThat(backups.verify("d", "latest", null).ok()).isTrue();
        Path target = dir.resolve("restored");
        RestoreResult back = backups.restore("d", target);
        assertThat(back.ok()).as("%s", back).isTrue();
        assertThat(contents(target)).isEqualTo(contents(source));
    }

    @Test
    void aLostPackNamesItsFilesAsMissingChunksWhichTheNextBackupStoresAgain() throws IOException {
        Path source = Files.createDirectories(dir.resolve("source"));
        Files.write(source.resolve("only.bin"), random(100_000, 5));
        Backups backups = backups();
        assertThat(backups.backup("lost", source).ok()).isTrue();
        for (VersionEntry pack : store.listVersions("data/")) {
            store.deleteVersion(pack.key(), pack.versionId());
        }

        RestoreResult back = backups.restore("lost", dir.resolve("restored"));
        assertThat(back.ok()).isFalse();
        assertThat(back.damagedCopies()).isEqualTo(1);
        assertThat(back.missingChunks()).isEqualTo(1);

        assertThat(backups.backup("lost", source).ok()).isTrue();
        assertThat(backups.restore("lost", dir.resolve("again")).ok()).isTrue();
        assertThat(dir.resolve("again").resolve("only.bin")).hasSameBinaryContentAs(source.resolve("only.bin"));
    }

    @Test
    void aFlippedByteInALaterChunkOfABigFileNamesItDamagedAndLeavesNoPartOfIt() throws IOException {
        // Chunks are written at their places as they are read and checked, several at once: the
        // chunks before the damaged one may be in the temporary file when it is found.
        Path source = bigAndSmall(4, 4);
        Backups backups = backups();
        assertThat(backups.backup("two", source).ok()).isTrue();

        // The big file's chunks of 256 KiB and more go to a pack of their own, the small file's blob (and
        // a shorter last chunk, where the keyed cuts put one) to the pack of small blobs (PackWriter's lanes).
        List<VersionEntry> packs = store.listVersions("data/");
        assertThat(packs).hasSize(2);
        VersionEntry pack = largestPack();
        byte[] bytes = read(pack);
        // That pack holds the big file's chunks in order (at least 512 KiB each), then the header: three
        // quarters into the pack is a chunk of the big file after its first.
        bytes[bytes.length * 3 / 4] ^= 0x01;
        store.put(pack.key(), ObjectContent.ofBytes(bytes));

        Path target = dir.resolve("restored");
        RestoreResult back = backups.restore("two", target);
        assertThat(back.ok()).isFalse();
        assertThat(back.damagedCopies()).isEqualTo(1);
        assertThat(back.failed()).extracting(FileProblem::path).containsExactly("big.bin");
        assertThat(target.resolve("big.bin")).doesNotExist();
        assertThat(target.resolve("small.txt")).hasContent("intact");
        try (Stream<Path> left = Files.list(target)) {
            assertThat(left.map(p -> p.getFileName().toString()).toList())
                    .as("no temporary file left")
                    .containsExactly("small.txt");
        }
    }

    @Test
    void aTamperedSnapshotIsDamagedAndRestoreUsesTheNewestIntactOne() throws IOException {
        Path source = Files.createDirectories(dir.resolve("source"));
        Files.writeString(source.resolve("a.txt"), "first");
        Backups backups = backups();
        BackupResult first = backups.backup("s", source);
        assertThat(first.ok()).isTrue();

        // A newest snapshot version whose sealed bytes were changed by one bit.
        List<VersionEntry> snapshots = store.listVersions("snapshots/");
        assertThat(snapshots).hasSize(1);
        byte[] sealed = read(snapshots.get(0));
        sealed[sealed.length - 1] ^= 0x01;
        store.put(snapshots.get(0).key(), ObjectContent.ofBytes(sealed));

        List<SnapshotInfo> listed = backups.snapshots("s");
        assertThat(listed).hasSize(2);
        assertThat(listed.get(0).damaged()).contains("does not open");
        assertThat(listed.get(1).versionId()).isEqualTo(first.snapshotId());

        Path target = dir.resolve("restored");
        RestoreResult back = backups.restore("s", target);
        assertThat(back.ok()).as("%s", back).isTrue();
        assertThat(back.olderThanNewest()).isTrue();
        assertThat(back.snapshotId()).isEqualTo(first.snapshotId());
        assertThat(Files.readString(target.resolve("a.txt"))).isEqualTo("first");
    }

    @Test
    void aBackupWithAnotherKeyDoesNotReadTheRepository() throws IOException {
        Path source = Files.createDirectories(dir.resolve("source"));
        Files.writeString(source.resolve("a.txt"), "first");
        assertThat(backups().backup("s", source).ok()).isTrue();

        // Another key names the backup by another ID: there is no such backup under it.
        Backups other = Backups.of(store, MasterKey.generate());
        assertThat(other.names()).isEmpty();
        assertThatThrownBy(() -> other.snapshots("s"))
                .isInstanceOfSatisfying(
                        BackupException.class, e -> assertThat(e.kind()).isEqualTo(BackupException.Kind.NOT_FOUND));
    }

    @Test
    void pruneAfterForgetFreesPacksAndTheRemainingBackupRestores() throws IOException {
        Path source = Files.createDirectories(dir.resolve("source"));
        Files.write(source.resolve("f.bin"), random(2 * 1024 * 1024, 4));
        Backups backups = backups();
        BackupResult first = backups.backup("p", source);
        assertThat(first.ok()).isTrue();
        byte[] now = random(2 * 1024 * 1024, 5);
        Files.write(source.resolve("f.bin"), now);
        BackupResult second = backups.backup("p", source);
        assertThat(second.ok()).isTrue();
        long before = total(sizes("data/"));

        ForgetResult forgot = backups.forget("p", new RetentionPolicy(1, 0, 0, 0, 0, 0, null), false);
        assertThat(forgot.removed()).containsExactly(first.snapshotId());
        PruneResult pruned = backups.prune(Duration.ZERO, false);
        assertThat(pruned.skippedNames()).isEmpty();
        assertThat(pruned.deletedVersions()).isPositive();
        assertThat(pruned.deletedBytes()).isPositive();
        assertThat(total(sizes("data/"))).isLessThan(before);

        Path target = dir.resolve("restored");
        RestoreResult back = backups.restore("p", target);
        assertThat(back.ok()).as("%s", back).isTrue();
        assertThat(Files.readAllBytes(target.resolve("f.bin"))).isEqualTo(now);
        // the prune's own marker went with it: backups run again
        assertThat(backups.backup("p", source).ok()).isTrue();
    }

    /**
     * Two files of twenty changed, the first backup forgotten: a tenth of its pack is unused. restic's
     * limits, as the library takes them: "unlimited" repacks nothing, "0" frees it all; any other form
     * is refused before anything is read.
     */
    @Test
    void pruneLeavesAtMostTheUnusedSpaceItIsGiven() throws IOException {
        Path source = Files.createDirectories(dir.resolve("source"));
        for (int i = 0; i < 20; i++) {
            Files.write(source.resolve("f" + i + ".bin"), random(200_000, 100 + i));
        }
        Backups backups = backups();
        BackupResult first = backups.backup("p", source);
        for (int i = 0; i < 2; i++) {
            Files.write(source.resolve("f" + i + ".bin"), random(200_000, 200 + i));
        }
        assertThat(backups.backup("p", source).ok()).isTrue();
        assertThat(backups.forget("p", new RetentionPolicy(1, 0, 0, 0, 0, 0, null), false)
                        .removed())
                .containsExactly(first.snapshotId());
        Map<String, Long> before = sizes("data/");

        for (String bad : List.of("5x", "-1%", "150%")) {
            assertThatThrownBy(() -> backups.prune(Duration.ZERO, bad, false))
                    .as(bad)
                    .isInstanceOf(BackupException.class)
                    .hasMessageStartingWith("The unused space limit '" + bad + "' must be a percentage from 0%")
                    .extracting(e -> ((BackupException) e).kind())
                    .isEqualTo(BackupException.Kind.INVALID_INPUT);
        }
        assertThat(backups.prune(Duration.ZERO, "unlimited", false).skippedNames())
                .isEmpty();
        assertThat(sizes("data/")).isEqualTo(before);
        PruneResult pruned = backups.prune(Duration.ZERO, "0", false);
        assertThat(pruned.skippedNames()).isEmpty();
        assertThat(pruned.deletedVersions()).isEqualTo(1);
        assertThat(total(before) - total(sizes("data/"))).isGreaterThan(2 * 200_000L);

        Path target = dir.resolve("restored");
        assertThat(backups.restore("p", target).ok()).isTrue();
        for (int i = 0; i < 20; i++) {
            assertThat(target.resolve("f" + i + ".bin")).hasSameBinaryContentAs(source.resolve("f" + i + ".bin"));
        }
    }

    @Test
    void aBackupDoesNotStartWhileAPruneRunsAndAPruneWaitsForAnother() throws IOException {
        Path source = Files.createDirectories(dir.resolve("source"));
        Files.write(source.resolve("f.bin"), random(300_000, 6));
        Backups backups = backups();
        assertThat(backups.backup("p", source).ok()).isTrue();
        long packs = sizes("data/").size();
        int snapshots = backups.snapshots("p").size();

        // A prune in progress holds its marker (as PackedPrune.run does while it deletes).
        SealedStore view = new SealedStore(store, key);
        try (RunMarker prune = RunMarker.start(view, PackedPrune.PRUNE_MARKER, Clock.systemUTC())) {
            Files.write(source.resolve("new.bin"), random(300_000, 7));
            assertThatThrownBy(() -> backups.backup("p", source))
                    .isInstanceOf(BackupException.class)
                    .hasMessageStartingWith("A prune of the repository is running (started ")
                    .extracting(e -> ((BackupException) e).kind())
                    .isEqualTo(BackupException.Kind.UNAVAILABLE);
            assertThat(sizes("data/")).hasSize((int) packs); // nothing stored
            assertThat(backups.snapshots("p")).hasSize(snapshots);

            PruneResult second = backups.prune(Duration.ZERO, false);
            assertThat(second.deletedVersions()).isZero();
            assertThat(second.skippedNames())
                    .singleElement()
                    .asString()
                    .startsWith("another prune of the repository is running");
        }
        assertThat(backups.backup("p", source).ok()).isTrue();
        assertThat(backups.snapshots("p")).hasSize(snapshots + 1);
    }

    /**
     * A backup paused past {@link RunMarker#STALE} (a laptop asleep) is taken for dead by a prune, which
     * removes its marker before deleting anything, so the run finds its marker gone when it wakes and
     * stores its files again instead of writing a snapshot whose chunks the prune deleted. A prune of
     * this format only passed over such a marker: the woken run found it standing, and its snapshot,
     * reported complete, named chunks that were gone (found by a fault tester on Ceph RGW).
     */
    @Test
    void aPruneRemovesTheMarkerOfABackupTakenForDeadSoThePausedRunSeesItsLoss() throws IOException {
        Path source = Files.createDirectories(dir.resolve("source"));
        Files.write(source.resolve("f.bin"), random(300_000, 8));
        assertThat(backups().backup("p", source).ok()).isTrue();
        SealedStore view = new SealedStore(store, key);
        try (RunMarker paused = RunMarker.start(view, "p", Clock.systemUTC())) {
            Backups later = Backups.of(store, key).withClock(Clock.offset(Clock.systemUTC(), Duration.ofMinutes(40)));

            PruneResult pruned = later.prune(Duration.ZERO, false);

            assertThat(pruned.skippedNames()).isEmpty();
            assertThat(view.listVersions(RunMarker.PREFIX))
                    .as("the dead run's marker is removed")
                    .isEmpty();
            assertThat(paused.refresh())
                    .as("the woken run sees that a prune took it for dead")
                    .isEqualTo(1);
        }
        assertThat(view.listVersions(RunMarker.PREFIX))
                .as("closed: nothing left")
                .isEmpty();
    }

    /**
     * A fault tester's, on Ceph RGW: a backup stopped (SIGSTOP) while it uploaded its packs was taken for
     * dead ({@code unlock --remove-all}, then a prune deleted the packs it had uploaded); woken, it wrote an
     * index file naming the deleted packs, so {@code check} reported them missing and every prune refused.
     * Here the "prune" happens as the run's first pack lands: its marker and that pack are removed.
     */
    @Test
    void aBackupTakenForDeadWhileItUploadedIndexesNoneOfItsPacks() throws IOException {
        takenForDeadAt("data/");
    }

    /**
     * The same tester's second round: paused after the look at its marker and before its index file was
     * written, the run wrote the index naming the deleted packs and said its files were stored. Here the
     * "prune" happens as the index file lands: the run withdraws it.
     */
    @Test
    void aBackupTakenForDeadWhileItWroteItsIndexWithdrawsIt() throws IOException {
        takenForDeadAt("index/");
    }

    /**
     * A backup whose marker and first pack a "prune" deletes, as if it had been paused and taken for dead,
     * when the run's first object under {@code prefix} lands: it must end with no index file, no snapshot
     * and its files not stored, and the repository must check clean and take the next backup whole.
     */
    private void takenForDeadAt(String prefix) throws IOException {
        AtomicBoolean pruned = new AtomicBoolean();
        List<String> packs = new java.util.concurrent.CopyOnWriteArrayList<>();
        FakeObjectStore fake = new FakeObjectStore() {
            @Override
            public ObjectVersion put(String k, ObjectContent content) {
                ObjectVersion v = super.put(k, content);
                if (k.startsWith("data/")) {
                    packs.add(k);
                }
                if (k.startsWith(prefix) && !packs.isEmpty() && pruned.compareAndSet(false, true)) {
                    // as a prune deletes: every version, no delete marker
                    for (String marker : list(".ballast-runs/")) {
                        versions(marker).forEach(m -> deleteVersion(marker, m.versionId()));
                    }
                    String pack = packs.get(0);
                    versions(pack).forEach(p -> deleteVersion(pack, p.versionId()));
                }
                return v;
            }
        };
        MasterKey fakeKey = init(fake);
        Path source = Files.createDirectories(dir.resolve("source"));
        for (int i = 0; i < 4; i++) {
            Files.write(source.resolve("f" + i), random(3 * 1024 * 1024, 40 + i));
        }

        BackupResult woken = Backups.of(fake, fakeKey).backup("dead", source);

        assertThat(pruned).isTrue();
        assertThat(woken.ok()).as("%s", woken).isFalse();
        assertThat(woken.stored()).as("no file is said stored").isZero();
        assertThat(fake.list("index/"))
                .as("no index file names the run's packs")
                .isEmpty();
        Backups after = Backups.of(fake, fakeKey);
        assertThat(after.names()).doesNotContain("dead");
        CheckResult check = after.check(null);
        assertThat(check.ok()).as("%s", check).isTrue();
        // the next run stores everything again and restores it whole
        assertThat(after.backup("dead", source).ok()).isTrue();
        Path target = dir.resolve("restored-dead");
        assertThat(after.restore("dead", target).ok()).isTrue();
        assertThat(contents(target)).isEqualTo(contents(source));
    }

    @Test
    void anInterruptedBackupThenANewOneRestores() throws IOException {
        Path source = Files.createDirectories(dir.resolve("source"));
        for (int i = 0; i < 6; i++) {
            Files.write(source.resolve("f" + i), random(200_000, 10 + i));
        }
        Cancellation cancel = new Cancellation();
        // Cancelled as the first file is done: the run stops, writes its snapshot marked incomplete.
        BackupListener cancelling = new BackupListener() {
            @Override
            public void progress(BackupProgress p) {
                if (p.files() >= 1) {
                    cancel.cancel();
                }
            }
        };
        BackupResult cut = backups()
                .withTransfers(1)
                .withCancellation(cancel)
                .withListener(cancelling)
                .backup("c", source);
        assertThat(cut.cancelled()).isTrue();
        assertThat(cut.complete()).isFalse();

        BackupResult whole = backups().backup("c", source);
        assertThat(whole.ok()).as("%s", whole).isTrue();
        Path target = dir.resolve("restored");
        assertThat(backups().restore("c", target).ok()).isTrue();
        assertThat(contents(target)).isEqualTo(contents(source));
    }

    @Test
    void aRunKilledBeforeItsFlushIsResumedWithoutStoringItsPacksAgain() throws IOException {
        Path source = Files.createDirectories(dir.resolve("source"));
        byte[] big = random(20 * 1024 * 1024, 21);
        Files.write(source.resolve("big.bin"), big);

        // The killed run: its first full pack uploaded, no index file written, its run marker left behind.
        try (PackedBlobs killed = PackedBlobs.open(store, key, 2)) {
            killed.store(source.resolve("big.bin"), n -> {}, () -> false);
        }
        RunMarker left = RunMarker.start(new SealedStore(store, key), "k", Clock.systemUTC());
        left.abandon();
        left.close();
        assertThat(store.list("data/")).isNotEmpty();
        assertThat(store.list("index/")).isEmpty();

        List<String> notes = new java.util.concurrent.CopyOnWriteArrayList<>();
        BackupListener listener = new BackupListener() {
            @Override
            public void notice(String message) {
                notes.add(message);
            }
        };
        BackupResult resumed = backups().withListener(listener).backup("k", source);
        assertThat(resumed.ok()).as("%s", resumed).isTrue();
        assertThat(notes).anyMatch(n -> n.contains("did not finish left") && n.contains("reused"));
        // The chunks of the full pack are not stored again: at most what the killed run had not uploaded.
        assertThat(resumed.bytesUploaded()).isLessThanOrEqualTo(8L * 1024 * 1024);

        Path target = dir.resolve("restored");
        assertThat(backups().restore("k", target).ok()).isTrue();
        assertThat(Files.readAllBytes(target.resolve("big.bin"))).isEqualTo(big);
    }

    @Test
    void manySmallFilesRestoreWithAFewReadsOfTheirPackNotOnePerFile() throws IOException {
        Path source = Files.createDirectories(dir.resolve("source"));
        for (int i = 0; i < 300; i++) {
            Files.write(source.resolve("small-" + i), random(2048, 100 + i));
        }
        FakeObjectStore fake = new FakeObjectStore();
        Backups backups =
                Backups.of(fake, init(fake)).withClock(Clock.offset(Clock.systemUTC(), Duration.ofMinutes(1)));
        assertThat(backups.backup("small", source).ok()).isTrue();
        long packs = fake.allKeys().stream().filter(k -> k.startsWith("data/")).count();
        assertThat(packs).isEqualTo(1);

        fake.forgetRecordedKeys();
        Path target = dir.resolve("restored");
        RestoreResult back = backups.restore("small", target);
        assertThat(back.ok()).as("%s", back).isTrue();
        assertThat(contents(target)).isEqualTo(contents(source));
        long packReads =
                fake.keysRead().stream().filter(k -> k.startsWith("data/")).count();
        assertThat(packReads).as("reads of the one pack for 300 files").isLessThanOrEqualTo(4);
    }

    @Test
    void aStoreOfTheEarlierFormatIsWrittenAndRestoredAsBefore() throws IOException {
        Path source = source();
        LocalObjectStore store = LocalObjectStore.open(dir.resolve("plain-store")); // no init: the earlier format
        Backups plain = Backups.of(store).withClock(Clock.offset(Clock.systemUTC(), Duration.ofMinutes(1)));
        BackupResult made = plain.backup("old", source);
        assertThat(made.ok()).as("%s", made).isTrue();
        // One object per file and a plain JSON manifest, as every earlier version wrote them.
        assertThat(store.list("old/")).contains("old/.ballast-manifest.json", "old/docs/" + SECRET_NAME);
        assertThat(store.list("data/")).isEmpty();
        assertThat(store.list("snapshots/")).isEmpty();

        assertThat(plain.snapshots("old")).extracting(SnapshotInfo::versionId).containsExactly(made.snapshotId());
        Path target = dir.resolve("restored");
        RestoreResult back = plain.restore("old", target);
        assertThat(back.ok()).as("%s", back).isTrue();
        assertThat(contents(target)).isEqualTo(contents(source));
        assertThat(plain.verify("old", "latest", null).ok()).isTrue();
        store.close();
    }

    private Map<String, Long> sizes(String prefix) {
        Map<String, Long> out = new TreeMap<>();
        for (VersionEntry v : store.listVersions(prefix)) {
            if (!v.deleteMarker()) {
                out.put(v.key() + " " + v.versionId(), v.size());
            }
        }
        return out;
    }

    /** A source of a big file of {@code mib} MiB of random bytes ({@code big.bin}) and a small one. */
    private Path bigAndSmall(int mib, long seed) throws IOException {
        Path source = Files.createDirectories(dir.resolve("source"));
        Files.write(source.resolve("big.bin"), random(mib * 1024 * 1024, seed));
        Files.write(source.resolve("small.txt"), "intact".getBytes(StandardCharsets.UTF_8));
        return source;
    }

    /** The largest pack in the store: the one of a big file's chunks (PackWriter's lanes). */
    private VersionEntry largestPack() {
        return store.listVersions("data/").stream()
                .max(java.util.Comparator.comparingLong(VersionEntry::size))
                .orElseThrow();
    }

    private static long total(Map<String, Long> sizes) {
        return sizes.values().stream().mapToLong(Long::longValue).sum();
    }

    private byte[] read(VersionEntry v) {
        return read(store, v);
    }

    static byte[] read(ObjectStore store, VersionEntry v) {
        try (ObjectRead r =
                store.get(v.key(), ReadOptions.version(v.versionId()).withAllowCache(false))) {
            return r.readAllBytes();
        }
    }

    static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /** Each regular file under {@code root}: its path's bytes in hex, to its bytes in hex. */
    static Map<String, String> contents(Path root) throws IOException {
        Map<String, String> map = new TreeMap<>();
        List<Path> files = new ArrayList<>();
        try (Stream<Path> all = Files.walk(root)) {
            all.filter(Files::isRegularFile).forEach(files::add);
        }
        for (Path f : files) {
            String rel = Names.relative(root, f);
            map.put(HexFormat.of().formatHex(Names.encode(rel)), HexFormat.of().formatHex(Files.readAllBytes(f)));
        }
        return map;
    }

    private static String hex(byte[] name) {
        return HexFormat.of().formatHex(name);
    }

    @Test
    void aKeyForAStoreThatIsNoRepositoryIsRefusedAndInitThenOpenWithThePasswordWorks() throws IOException {
        Path source = source();
        LocalObjectStore other = LocalObjectStore.open(dir.resolve("other"));
        try {
            assertThatThrownBy(() -> Backups.of(other, MasterKey.generate()))
                    .isInstanceOf(BackupException.class)
                    .hasMessageContaining("no repository of format 3")
                    .extracting(e -> ((BackupException) e).kind())
                    .isEqualTo(BackupException.Kind.NOT_FOUND);
            assertThat(other.listVersions("")).isEmpty(); // nothing written

            assertThat(Backups.init(other, "pw".toCharArray())
                            .backup("docs", source)
                            .ok())
                    .isTrue();
            // and without a key nothing is written in clear into the repository
            assertThatThrownBy(() -> Backups.of(other))
                    .isInstanceOf(BackupException.class)
                    .hasMessageContaining("is an encrypted repository")
                    .extracting(e -> ((BackupException) e).kind())
                    .isEqualTo(BackupException.Kind.INVALID_INPUT);
            assertThatThrownBy(() -> Backups.open(other, "not it".toCharArray()))
                    .isInstanceOf(BackupException.class)
                    .extracting(e -> ((BackupException) e).kind())
                    .isEqualTo(BackupException.Kind.WRONG_PASSWORD);
            assertThat(Backups.open(other, "pw".toCharArray())
                            .restore("docs", dir.resolve("back"))
                            .ok())
                    .isTrue();
            assertThat(dir.resolve("back/docs/" + SECRET_NAME))
                    .hasSameTextualContentAs(source.resolve("docs/" + SECRET_NAME));
        } finally {
            other.close();
        }
    }

    @Test
    void aRepositoryWhoseConfigWasDeletedIsRefusedNotTakenForAnUnencryptedStore() throws IOException {
        Path source = source();
        assertThat(backups().backup("docs", source).ok()).isTrue();
        for (VersionEntry v : store.versions(KeyFiles.CONFIG)) {
            store.deleteVersion(KeyFiles.CONFIG, v.versionId());
        }
        int objects = store.listVersions("").size();

        assertThatThrownBy(() -> Backups.of(store))
                .isInstanceOf(BackupException.class)
                .hasMessageStartingWith("The store given holds objects of an encrypted repository (such as 'keys/")
                .hasMessageContaining("but no 'config'")
                .extracting(e -> ((BackupException) e).kind())
                .isEqualTo(BackupException.Kind.INTEGRITY);
        assertThat(store.listVersions("")).hasSize(objects); // nothing written, in clear or otherwise
    }
}
