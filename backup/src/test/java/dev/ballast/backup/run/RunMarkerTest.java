package dev.ballast.backup.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.Cancellation;
import dev.ballast.backup.ProgressCounter;
import dev.ballast.backup.retention.Pruner;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.VersionEntry;
import dev.ballast.test.FakeObjectStore;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The run marker against a prune that takes a paused run for dead, with an injected clock (no
 * 30-minute waits): the run finds out when it writes its marker again and stores its files again,
 * a run that writes its marker again before the prune lists the markers a second time is left
 * alone, and a marker's holder is known dead on this host when its process is gone.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
@ExtendWith(LeakCheck.class)
class RunMarkerTest {
    static final Instant T0 = Instant.parse("2026-06-01T12:00:00Z");

    final FakeTime time = new FakeTime(T0);

    @TempDir
    Path src;

    @Test
    void aRunPausedPastStaleFindsOnItsNextWriteThatAPruneRemovedItsMarker() {
        FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, time);
        try (RunMarker marker = RunMarker.start(store, "n", time)) {
            assertThat(marker.othersAtStart()).isFalse();
            assertThat(marker.refresh()).as("nothing removed it").isZero();
            store.put("n/a", ObjectContent.ofBytes("stored by the run".getBytes(StandardCharsets.UTF_8)));

            time.set(T0.plus(RunMarker.STALE).plusSeconds(1)); // the laptop slept
            Pruner.Result r = new Pruner(store, time, Duration.ZERO, false, () -> {}).run(null);
            assertThat(r.staleMarkers()).isNotEmpty();
            assertThat(r.deletedVersions()).as("what the paused run stored").isEqualTo(1);

            assertThat(marker.refresh())
                    .as("the marker's previous version is gone")
                    .isEqualTo(1);
            assertThat(marker.refresh()).as("the loss counts once").isEqualTo(1);
        }
        assertThat(store.listVersions(RunMarker.PREFIX)).as("closed: removed").isEmpty();
    }

    /**
     * A reader's marker (a restore's) is written without listing the other runs' markers: it stands for a
     * prune to find, which a backup beside it does not change; a backup's marker still sees the others.
     */
    @Test
    void aReadersMarkerStandsWithoutListingTheOtherRuns() {
        java.util.concurrent.atomic.AtomicInteger listings = new java.util.concurrent.atomic.AtomicInteger();
        FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, time) {
            @Override
            public List<VersionEntry> listVersions(String prefix) {
                listings.incrementAndGet();
                return super.listVersions(prefix);
            }
        };
        try (RunMarker first = RunMarker.start(store, "readers", time, false);
                RunMarker second = RunMarker.start(store, "readers", time, false)) {
            assertThat(listings).as("no listing at start").hasValue(0);
            assertThat(second.othersAtStart()).isFalse();
            assertThat(store.listVersions(RunMarker.prefix("readers")))
                    .as("both markers stand for a prune to find")
                    .hasSize(2);
            try (RunMarker backup = RunMarker.start(store, "readers", time)) {
                assertThat(backup.othersAtStart()).as("a backup's marker looks").isTrue();
            }
        }
        assertThat(store.listVersions(RunMarker.PREFIX)).as("closed: removed").isEmpty();
    }

    /**
     * The backup's checks around its manifest, seconds after the marker was written, write no new version
     * (one listing each) yet still find a removal, after which the marker stands again; once the marker is
     * {@link RunMarker#REFRESH} old, a check writes it again as before; close removes every version.
     */
    @Test
    void aCheckWithinTheRefreshIntervalWritesNothingButStillFindsTheMarkerRemoved() {
        FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, time);
        String key;
        try (RunMarker marker = RunMarker.start(store, "n", time)) {
            key = RunMarker.prefix("n") + marker.runId();
            time.set(T0.plusSeconds(60));
            assertThat(marker.refresh()).isZero();
            assertThat(marker.refresh()).isZero();
            assertThat(store.keysPut()).as("written once, at the start").containsExactly(key);

            // Removed (a prune whose clock runs half an hour ahead): found, and written again.
            store.versions(key).forEach(v -> store.deleteVersion(key, v.versionId()));
            assertThat(marker.refresh()).isEqualTo(1);
            assertThat(store.versions(key)).as("standing again").hasSize(1);
            assertThat(store.keysPut()).containsExactly(key, key);

            time.set(T0.plusSeconds(60).plus(RunMarker.REFRESH));
            assertThat(marker.refresh()).as("the loss counts once").isEqualTo(1);
            assertThat(store.keysPut()).as("a REFRESH old: written again").containsExactly(key, key, key);
            assertThat(store.versions(key)).hasSize(2);
        }
        assertThat(store.listVersions(RunMarker.PREFIX))
                .as("closed: every version removed")
                .isEmpty();
    }

    /**
     * The window between prune's removal of a stale marker and its second listing: a run that wakes
     * there writes a new version of its marker; it finds the old one gone only if the prune removed
     * it first, and the prune's second listing then sees the new one: the name is left alone.
     */
    @Test
    void aRunThatWritesItsMarkerWhileThePruneRemovesItIsSeenLiveByThePrune() {
        AtomicInteger refreshes = new AtomicInteger();
        RunMarker[] run = new RunMarker[1];
        FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, time) {
            @Override
            public boolean deleteVersion(String key, String versionId) {
                boolean removed = super.deleteVersion(key, versionId);
                if (key.startsWith(RunMarker.PREFIX) && refreshes.getAndIncrement() == 0) {
                    run[0].refresh(); // the run wakes up right after the prune removed its marker
                }
                return removed;
            }
        };
        try (RunMarker marker = RunMarker.start(store, "n", time)) {
            run[0] = marker;
            store.put("n/a", ObjectContent.ofBytes("stored by the run".getBytes(StandardCharsets.UTF_8)));
            time.set(T0.plus(RunMarker.STALE).plusSeconds(1));
            Pruner.Result r = new Pruner(store, time, Duration.ZERO, false, () -> {}).run(null);
            assertThat(r.skipped()).extracting(Pruner.NameResult::name).containsExactly("n");
            assertThat(store.versions("n/a"))
                    .as("nothing of the live run deleted")
                    .hasSize(1);
            assertThat(marker.losses())
                    .as("the run knows it was taken for dead")
                    .isEqualTo(1);
        }
    }

    @Test
    void aHolderIsDeadOnThisHostWhenItsProcessIsGoneOrItsIdWasReused() throws Exception {
        RunMarker.Holder here = RunMarker.Holder.current("n", T0);
        assertThat(here.deadHere(here)).as("this process runs").isNull();
        assertThat(RunMarker.Holder.parse(here.toJson())).isEqualTo(here);

        Process ended = new ProcessBuilder("true").start();
        assertThat(ended.waitFor(20, TimeUnit.SECONDS)).isTrue();
        RunMarker.Holder gone = new RunMarker.Holder(
                "n", T0, here.host(), ended.pid(), here.processStart(), here.bootId(), here.pidNamespace());
        if (here.bootId() != null && here.pidNamespace() != null) {
            assertThat(gone.deadHere(here)).contains("no longer runs");
            RunMarker.Holder reused = new RunMarker.Holder(
                    "n",
                    T0,
                    here.host(),
                    here.pid(),
                    here.processStart().minus(Duration.ofHours(1)),
                    here.bootId(),
                    here.pidNamespace());
            assertThat(reused.deadHere(here)).contains("now belongs to a process started at");
            RunMarker.Holder rebooted = new RunMarker.Holder(
                    "n", T0, here.host(), here.pid(), here.processStart(), "another-boot", here.pidNamespace());
            assertThat(rebooted.deadHere(here)).contains("was restarted");
            RunMarker.Holder otherContainer =
                    new RunMarker.Holder("n", T0, here.host(), ended.pid(), null, here.bootId(), "pid:[1]");
            assertThat(otherContainer.deadHere(here))
                    .as("another PID namespace cannot be told")
                    .isNull();
        }
        RunMarker.Holder elsewhere =
                new RunMarker.Holder("n", T0, "another-host", ended.pid(), null, here.bootId(), here.pidNamespace());
        assertThat(elsewhere.deadHere(here)).as("another host cannot be told").isNull();
        assertThat(RunMarker.Holder.parse("{}".getBytes(StandardCharsets.UTF_8)))
                .isNull();
    }

    @Test
    void pruneRemovesTheMarkerOfADeadHolderAtOnceAndKeepsALiveOnesName() throws Exception {
        FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, time);
        RunMarker.Holder here = RunMarker.Holder.current("n", T0);
        Process ended = new ProcessBuilder("true").start();
        assertThat(ended.waitFor(20, TimeUnit.SECONDS)).isTrue();
        RunMarker.Holder gone =
                new RunMarker.Holder("n", T0, here.host(), ended.pid(), null, here.bootId(), here.pidNamespace());
        store.put(RunMarker.prefix("n") + "killed", ObjectContent.ofBytes(gone.toJson()));
        store.put(RunMarker.prefix("m") + "running", ObjectContent.ofBytes(here.toJson()));
        store.put("n/x", ObjectContent.ofBytes(new byte[] {1}));
        store.put("m/x", ObjectContent.ofBytes(new byte[] {2}));
        time.set(T0.plus(Duration.ofMinutes(1)));
        Pruner.Result r = new Pruner(store, time, Duration.ZERO, false, () -> {}).run(null);
        assertThat(r.skipped()).extracting(Pruner.NameResult::name).containsExactly("m");
        if (here.bootId() != null && here.pidNamespace() != null) {
            assertThat(r.staleMarkers())
                    .extracting(VersionEntry::key)
                    .containsExactly(RunMarker.prefix("n") + "killed");
        }
    }

    /**
     * A guarded backup whose marker reports that a prune removed it stores every file it stored
     * again (new versions) before it writes its manifest, and says so.
     */
    @Test
    void aBackupTakenForDeadStoresItsFilesAgainBeforeItsManifest() throws IOException {
        Files.writeString(src.resolve("a.txt"), "a");
        Files.writeString(src.resolve("b.txt"), "b");
        FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, time);
        ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);
        AtomicInteger refreshes = new AtomicInteger();
        BackupRunner.Guard guard = new BackupRunner.Guard() {
            @Override
            public int refresh() {
                refreshes.incrementAndGet();
                return 1; // a prune removed the marker once, before the manifest is written
            }

            @Override
            public boolean othersAtStart() {
                return false;
            }
        };
        BackupRunner.Result r = new BackupRunner(
                        store,
                        "n",
                        src,
                        new BackupRunner.Settings(false, 1, false),
                        new Cancellation(),
                        time,
                        err::println,
                        () -> new ProgressCounter(0, 0),
                        Duration.ofSeconds(5),
                        p -> {})
                .guardedBy(guard)
                .run();
        assertThat(r.ok()).isTrue();
        assertThat(r.stored()).isEqualTo(2);
        assertThat(errBytes.toString(StandardCharsets.UTF_8)).contains("the 2 file(s) the run stored are stored again");
        assertThat(refreshes.get())
                .as("before the manifest, again after storing, and after the manifest")
                .isEqualTo(3);
        List<VersionEntry> a = store.versions("n/a.txt");
        assertThat(a).hasSize(2);
        Manifest m = Manifest.parse(store.get(Manifest.key("n")).readAllBytes(), "test");
        assertThat(m.files())
                .filteredOn(e -> e.path().equals("a.txt"))
                .singleElement()
                .satisfies(e -> assertThat(e.versionId()).isEqualTo(a.get(0).versionId()));
    }

    /**
     * Taken for dead while a forget removed the manifest its unchanged files came from: those versions
     * are no longer kept by any manifest, so they are stored again too.
     */
    @Test
    void aBackupTakenForDeadWhosePreviousManifestWasForgottenStoresItsUnchangedFilesAgain() throws IOException {
        Files.writeString(src.resolve("a.txt"), "a");
        Files.writeString(src.resolve("b.txt"), "b");
        FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, time);
        ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);
        assertThat(runner(store, err).run().ok()).isTrue();
        String first = store.versions(Manifest.key("n")).get(0).versionId();
        AtomicInteger refreshes = new AtomicInteger();
        BackupRunner.Guard guard = new BackupRunner.Guard() {
            @Override
            public int refresh() {
                if (refreshes.incrementAndGet() == 1) {
                    store.deleteVersion(Manifest.key("n"), first); // forgotten while the run was paused
                }
                return 1;
            }

            @Override
            public boolean othersAtStart() {
                return false;
            }
        };
        BackupRunner.Result r = runner(store, err).guardedBy(guard).run();
        assertThat(r.ok()).isTrue();
        assertThat(r.unchanged()).isZero();
        assertThat(r.stored()).isEqualTo(2);
        assertThat(errBytes.toString(StandardCharsets.UTF_8))
                .contains(
                        "the 0 file(s) the run stored and the 2 unchanged one(s), whose previous manifest was removed");
        assertThat(store.versions("n/a.txt")).hasSize(2);
    }

    BackupRunner runner(FakeObjectStore store, PrintStream err) {
        return new BackupRunner(
                store,
                "n",
                src,
                new BackupRunner.Settings(false, 1, false),
                new Cancellation(),
                time,
                err::println,
                () -> new ProgressCounter(0, 0),
                Duration.ofSeconds(5),
                p -> {});
    }
}
