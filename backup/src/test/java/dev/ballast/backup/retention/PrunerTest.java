package dev.ballast.backup.retention;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.run.RunMarker;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.VersionEntry;
import dev.ballast.test.FakeObjectStore;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The prune protocol's windows, each forced open with the prune's hook rather than by timing. */
@ExtendWith(LeakCheck.class)
class PrunerTest {
    static final Instant T0 = Instant.parse("2026-06-01T12:00:00Z");
    /** Stamps the versions written next. */
    final FakeTime time = new FakeTime();

    final FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, time);

    ObjectVersion put(String key, String content, Instant at) {
        time.set(at);
        return store.put(key, ObjectContent.ofBytes(content.getBytes(StandardCharsets.UTF_8)));
    }

    void manifest(String name, ObjectVersion... files) {
        List<ManifestEntry> entries = java.util.Arrays.stream(files)
                .map(v -> new ManifestEntry(
                        v.key().substring(name.length() + 1), v.size(), v.sha256(), v.versionId(), T0))
                .toList();
        store.put(
                Manifest.key(name),
                ObjectContent.ofBytes(new Manifest(1, name, T0, true, entries, List.of()).toJson()));
    }

    Pruner pruner(Duration grace, Runnable hook) {
        return new Pruner(store, Clock.fixed(T0, ZoneOffset.UTC), grace, false, hook);
    }

    @Test
    void aBackupStartingAfterTheMarkersWereListedKeepsEveryVersionItUploads() {
        ObjectVersion old = put("n/a", "old", T0.minus(Duration.ofDays(2)));
        ObjectVersion current = put("n/a", "new", T0.minus(Duration.ofDays(1)));
        manifest("n", current);
        // The hook runs between the marker listing and the version listing: a backup starts there,
        // writes its marker and uploads a file its manifest (not yet written) will reference.
        Pruner.Result r = pruner(Duration.ZERO, () -> {
                    time.set(T0.plusMillis(5));
                    store.put(RunMarker.prefix("n") + "run-1", ObjectContent.ofBytes(new byte[1]));
                    store.put("n/b", ObjectContent.ofBytes("fresh".getBytes(StandardCharsets.UTF_8)));
                })
                .run(null);
        assertThat(r.skipped()).isEmpty();
        assertThat(r.names()).singleElement().satisfies(n -> {
            assertThat(n.deleted()).extracting(VersionEntry::versionId).containsExactly(old.versionId());
            assertThat(n.referenced()).isEqualTo(1);
            assertThat(n.tooNew()).isEqualTo(1);
        });
        assertThat(store.versions("n/b")).hasSize(1);
        assertThat(store.versions("n/a")).extracting(VersionEntry::versionId).containsExactly(current.versionId());
    }

    @Test
    void aLiveMarkerLeavesItsNameAloneAndAStaleOneIsRemoved() {
        put("n/a", "old", T0.minus(Duration.ofDays(2)));
        put("m/a", "orphan", T0.minus(Duration.ofDays(2)));
        put(RunMarker.prefix("n") + "live", "{}", T0.minus(Duration.ofMinutes(4)));
        put(RunMarker.prefix("m") + "dead", "{}", T0.minus(RunMarker.STALE).minusSeconds(1));
        put("other-program/data", "not a backup", T0.minus(Duration.ofDays(2)));
        Pruner.Result r = pruner(Duration.ZERO, () -> {}).run(null);
        assertThat(r.skipped()).extracting(Pruner.NameResult::name).containsExactly("n");
        assertThat(store.versions("other-program/data"))
                .as("no manifest, no marker: not a backup")
                .hasSize(1);
        assertThat(store.versions("n/a")).hasSize(1);
        assertThat(store.versions("m/a"))
                .as("no manifest references it: orphaned by a run that died")
                .isEmpty();
        assertThat(r.staleMarkers()).extracting(VersionEntry::key).containsExactly(RunMarker.prefix("m") + "dead");
        assertThat(store.versions(RunMarker.prefix("m") + "dead")).isEmpty();
        assertThat(store.versions(RunMarker.prefix("n") + "live")).hasSize(1);
    }

    @Test
    void theGracePeriodKeepsRecentVersionsAndADryRunDeletesNothing() {
        put("n/a", "old", T0.minus(Duration.ofMinutes(30)));
        ObjectVersion current = put("n/a", "new", T0.minus(Duration.ofMinutes(20)));
        manifest("n", current);
        assertThat(pruner(Duration.ofHours(1), () -> {})
                        .run(null)
                        .names()
                        .get(0)
                        .tooNew())
                .isEqualTo(1);
        Pruner.Result dry = new Pruner(store, Clock.fixed(T0, ZoneOffset.UTC), Duration.ZERO, true, () -> {}).run(null);
        assertThat(dry.deletedVersions()).isEqualTo(1);
        assertThat(store.versions("n/a")).hasSize(2);
    }
}
