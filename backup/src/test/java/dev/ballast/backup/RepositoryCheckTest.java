package dev.ballast.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.backup.keys.MasterKey;
import dev.ballast.backup.retention.PackedPrune;
import dev.ballast.backup.run.RunMarker;
import dev.ballast.backup.snapshot.SealedStore;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.VersionEntry;
import dev.ballast.storage.object.local.LocalObjectStore;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Backups#check}: the whole repository checked through the API, as {@code restic check}, with
 * nothing written: what it finds in an intact repository, after a pack is lost, after a chunk's bytes
 * are damaged, and while a prune runs.
 */
@ExtendWith(LeakCheck.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RepositoryCheckTest {
    @TempDir
    Path dir;

    private LocalObjectStore store;
    private MasterKey key;
    private Path source;

    @BeforeEach
    void backUpTwice() throws IOException {
        store = LocalObjectStore.open(dir.resolve("store"));
        key = EncryptedBackupsTest.init(store);
        source = Files.createDirectories(dir.resolve("source"));
        for (int i = 0; i < 3; i++) {
            byte[] b = new byte[300_000];
            new Random(i).nextBytes(b);
            Files.write(source.resolve("f" + i + ".bin"), b);
        }
        assertThat(backups().backup("docs", source).ok()).isTrue();
        Files.writeString(source.resolve("later.txt"), "written after the first backup");
        assertThat(backups().backup("docs", source).ok()).isTrue();
        assertThat(backups().backup("other", source).ok()).isTrue();
    }

    @AfterEach
    void close() {
        store.close();
    }

    private Backups backups() {
        return Backups.of(store, key).withClock(Clock.offset(Clock.systemUTC(), Duration.ofMinutes(1)));
    }

    /** Every version of every key in the store, with its size: what a check must leave as it found it. */
    private TreeMap<String, String> everything() {
        TreeMap<String, String> all = new TreeMap<>();
        for (VersionEntry v : store.listVersions("")) {
            all.put(v.key() + " " + v.versionId(), v.size() + (v.deleteMarker() ? " deleted" : ""));
        }
        return all;
    }

    @Test
    void anIntactRepositoryChecksOkWithEveryPackReadAndNothingWritten() {
        TreeMap<String, String> before = everything();

        CheckResult listed = backups().check(null);
        CheckResult read = backups().check("100%");

        assertThat(listed.ok()).as("%s", listed).isTrue();
        assertThat(listed.names()).isEqualTo(2);
        assertThat(listed.snapshots()).isEqualTo(3);
        assertThat(listed.packsChecked()).isPositive();
        assertThat(listed.packsRead()).isZero();
        assertThat(read.ok()).as("%s", read).isTrue();
        assertThat(read.packsRead()).isEqualTo(read.packsChecked());
        assertThat(read.chunksRead()).isGreaterThanOrEqualTo(4);
        assertThat(everything()).isEqualTo(before);
    }

    @Test
    void aLostPackIsNamedWithEverySnapshotThatNeedsItAndStaysLostForTheNextCheck() {
        // the largest pack: the one with the first backup's three files, which every snapshot holds
        String pack = store.listVersions("data/").stream()
                .max(java.util.Comparator.comparingLong(VersionEntry::size))
                .orElseThrow()
                .key();
        for (VersionEntry v : store.versions(pack)) {
            store.deleteVersion(pack, v.versionId());
        }

        CheckResult r = backups().check(null);

        assertThat(r.ok()).isFalse();
        assertThat(r.damage()).anySatisfy(d -> assertThat(d).startsWith(pack + ": it is missing"));
        // every version of both names holds the first backup's files
        assertThat(r.snapshotDamage()).hasSize(3);
        assertThat(r.snapshotDamage()).allSatisfy(s -> assertThat(s.files()).isNotEmpty());
        assertThat(r.snapshotDamage())
                .extracting(CheckResult.SnapshotDamage::name)
                .contains("docs", "other");
        // nothing was dropped: a second check finds the same
        assertThat(backups().check(null).snapshotDamage()).isEqualTo(r.snapshotDamage());
    }

    @Test
    void aChunkWhoseBytesAreDamagedIsFoundOnlyByReadingAndNamesTheFilesThatUseIt() throws Exception {
        String pack = store.list("data/").get(0);
        byte[] b;
        try (ObjectRead in = store.get(pack, ReadOptions.latest().withAllowCache(false))) {
            b = in.readAllBytes();
        }
        b[20] ^= 0x01; // inside the first blob, far from the header at the end
        store.put(pack, ObjectContent.ofBytes(b));

        assertThat(backups().check(null).ok())
                .as("a check that reads no pack sees sizes only")
                .isTrue();
        CheckResult r = backups().check("100%");

        assertThat(r.ok()).isFalse();
        assertThat(r.damage()).anySatisfy(d -> assertThat(d).startsWith(pack + " (blob "));
        assertThat(r.snapshotDamage()).isNotEmpty();
        assertThat(r.snapshotDamage().get(0).files()).hasSize(1);
        assertThat(r.snapshotDamage().get(0).reason()).isEqualTo("1 file lacks a chunk that no pack holds intact");
    }

    @Test
    void aRunningPruneIsWaitedForNotReportedAsDamage() {
        SealedStore view = new SealedStore(store, key);
        try (RunMarker prune = RunMarker.start(view, PackedPrune.PRUNE_MARKER, Clock.systemUTC())) {
            assertThatThrownBy(() -> backups().check(null))
                    .isInstanceOf(BackupException.class)
                    .hasMessageContaining("A prune of the repository is running")
                    .hasMessageContaining("check again once it has ended")
                    .satisfies(
                            e -> assertThat(((BackupException) e).kind()).isEqualTo(BackupException.Kind.UNAVAILABLE));
        }
        assertThat(backups().check(null).ok()).isTrue();
    }

    @Test
    void aStoreOfTheEarlierFormatAndABadSubsetAreRefusedInOneSentence() {
        try (LocalObjectStore plain = LocalObjectStore.open(dir.resolve("plain"))) {
            assertThatThrownBy(() -> Backups.of(plain).check(null))
                    .hasMessage("A check of the whole repository applies to an encrypted repository (format 3); in"
                            + " a store of the earlier formats, verify each backup name.");
        }
        assertThatThrownBy(() -> backups().check("half"))
                .isInstanceOf(BackupException.class)
                .hasMessageStartingWith("The read-data subset 'half' is not a subset");
    }
}
