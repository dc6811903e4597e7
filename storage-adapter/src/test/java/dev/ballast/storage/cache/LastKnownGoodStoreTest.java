package dev.ballast.storage.cache;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.storage.AlreadyExistsException;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.PreconditionFailedException;
import dev.ballast.storage.StaleReadException;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.object.Freshness;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.Source;
import dev.ballast.test.FakeObjectStore;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

@Timeout(30)
@ExtendWith(LeakCheck.class)
class LastKnownGoodStoreTest {

    private final FakeObjectStore store = new FakeObjectStore();
    private final FakeTime clock = new FakeTime(Instant.parse("2026-01-01T00:00:00Z"));
    private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    private PrintStream originalStderr;

    /** slf4j-simple (the test binding) writes to whatever System.err is at the time of the call. */
    @BeforeEach
    void captureLogs() {
        originalStderr = System.err;
        System.setErr(new PrintStream(stderr, true, UTF_8));
    }

    @AfterEach
    void releaseLogs() {
        System.setErr(originalStderr);
        originalStderr.print(stderr.toString(UTF_8));
    }

    private List<String> warnings() {
        return stderr.toString(UTF_8).lines().filter(l -> l.contains("WARN")).toList();
    }

    private LastKnownGoodStore lkg(LastKnownGoodConfig config) {
        return LastKnownGoodStore.wrap(store, config, clock);
    }

    /** A cache over the store holding "v1" of key "k", read once, so its last-known-good copy is kept. */
    private LastKnownGoodStore warmed() {
        LastKnownGoodStore objects = lkg(LastKnownGoodConfig.ofDefaults());
        objects.put("k", text("v1"));
        read(objects.get("k"));
        return objects;
    }

    private static ObjectContent text(String s) {
        return ObjectContent.ofBytes(s.getBytes(UTF_8));
    }

    private static String read(ObjectRead read) {
        try (read) {
            return new String(read.readAllBytes(), UTF_8);
        }
    }

    @Test
    void whenTheStoreIsDownAPreviouslyReadObjectIsServedMarkedWithItsAgeAndReason() {
        LastKnownGoodStore objects = lkg(LastKnownGoodConfig.ofDefaults());
        ObjectVersion written = objects.put("cfg.json", text("{\"v\":1}"));
        ObjectRead live = objects.get("cfg.json");
        assertThat(live.source()).isEqualTo(Source.LIVE);
        assertThat(live.degraded()).isFalse();
        assertThat(read(live)).isEqualTo("{\"v\":1}");

        clock.advance(Duration.ofMinutes(5));
        store.down(true);
        ObjectRead degraded = objects.get("cfg.json");

        assertThat(degraded.source()).isEqualTo(Source.CACHE);
        assertThat(degraded.degraded()).isTrue();
        assertThat(degraded.age()).isEqualTo(Duration.ofMinutes(5));
        assertThat(degraded.version()).isEqualTo(written);
        // The store could not say whether it holds a newer version: not FRESH beside degraded() (issue 24).
        assertThat(degraded.freshness()).isEqualTo(Freshness.UNKNOWN);
        assertThat(degraded.degradedReason())
                .hasValueSatisfying(r -> assertThat(r).contains("unreachable"));
        assertThat(read(degraded)).isEqualTo("{\"v\":1}");
        assertThat(objects.counters().degradedReads()).isEqualTo(1);
        assertThat(objects.counters().cachedObjects()).isEqualTo(1);

        assertThat(warnings()).singleElement().satisfies(line -> {
            assertThat(line)
                    .contains(
                            "Degraded read",
                            "'cfg.json'",
                            "http://fake-s3.test:9000",
                            "bucket 'bucket'",
                            "data age PT5M",
                            written.versionId(),
                            "connection refused");
        });

        objects.get("cfg.json").close();
        assertThat(objects.counters().degradedReads()).isEqualTo(2);
    }

    @Test
    void aReadRefusedBeforeAnythingWasSentWithNothingCachedSaysItsOutcomeIsKnown() {
        LastKnownGoodStore objects = lkg(LastKnownGoodConfig.ofDefaults());
        store.down(true); // refused before a byte was sent, as by an open circuit breaker

        assertThatThrownBy(() -> objects.get("never-read"))
                .isInstanceOfSatisfying(
                        StorageUnavailableException.class,
                        e -> assertThat(e.outcomeUnknown()).isFalse());
    }

    @Test
    void aDegradedReadOfAVersionAskedForByIdKeepsItsVerdict() {
        LastKnownGoodStore objects = warmed();
        String versionId = store.storedVersions("k").get(0).versionId();
        store.down(true);

        try (ObjectRead degraded = objects.get("k", ReadOptions.version(versionId))) {
            assertThat(degraded.degraded()).isTrue();
            assertThat(degraded.freshness()).isEqualTo(Freshness.FRESH);
        }
    }

    @Test
    void withNothingCachedTheReadFailsNamingTheKeyAndTheCause() {
        LastKnownGoodStore objects = lkg(LastKnownGoodConfig.ofDefaults());
        store.down(true);
        assertThatThrownBy(() -> objects.get("never-read"))
                .isInstanceOfSatisfying(StorageUnavailableException.class, e -> {
                    assertThat(e.key()).isEqualTo("never-read");
                    assertThat(e.getMessage())
                            .contains("'never-read'", "no last-known-good copy is cached", "connection refused");
                    assertThat(e.getCause())
                            .isInstanceOf(StorageUnavailableException.class)
                            .hasRootCauseInstanceOf(java.net.ConnectException.class);
                });
        assertThat(objects.counters().unavailableReads()).isEqualTo(1);
        assertThat(objects.counters().degradedReads()).isZero();
    }

    @Test
    void aCopyOlderThanTheMaximumStalenessIsNeverServed() {
        LastKnownGoodStore objects = lkg(LastKnownGoodConfig.builder()
                .maxStaleness(Duration.ofHours(1))
                .expiryJitter(0)
                .build());
        objects.put("k", text("old"));
        read(objects.get("k"));
        store.down(true);

        clock.advance(Duration.ofMinutes(59));
        assertThat(read(objects.get("k"))).isEqualTo("old");

        clock.advance(Duration.ofMinutes(1));
        assertThatThrownBy(() -> objects.get("k"))
                .isInstanceOf(StorageUnavailableException.class)
                .hasMessageContaining("'k'")
                .hasMessageContaining("has expired (maximum staleness PT1H");
        assertThat(objects.counters().cachedObjects()).isZero();
    }

    @Test
    void expiryIsJitteredSoEntriesFetchedTogetherLapseAtDifferentTimes() {
        Deque<Double> draws = new ArrayDeque<>(List.of(0.0, 0.8));
        RandomGenerator scripted = new RandomGenerator() {
            @Override
            public long nextLong() {
                throw new AssertionError("only nextDouble is expected");
            }

            @Override
            public double nextDouble() {
                return draws.removeFirst();
            }
        };
        LastKnownGoodStore objects = lkg(LastKnownGoodConfig.builder()
                .maxStaleness(Duration.ofHours(1))
                .expiryJitter(0.5)
                .random(() -> scripted)
                .build());
        objects.put("a", text("A"));
        objects.put("b", text("B"));
        read(objects.get("a")); // u = 0.0: expires after 60 min
        read(objects.get("b")); // u = 0.8: expires after 60 * (1 - 0.4) = 36 min
        store.down(true);

        clock.advance(Duration.ofMinutes(35));
        assertThat(read(objects.get("a"))).isEqualTo("A");
        assertThat(read(objects.get("b"))).isEqualTo("B");
        clock.advance(Duration.ofMinutes(2));
        assertThat(read(objects.get("a"))).isEqualTo("A");
        assertThatThrownBy(() -> objects.get("b")).isInstanceOf(StorageUnavailableException.class);
    }

    @Test
    void bytesThatFailVerificationAreNeverCached() {
        LastKnownGoodStore objects = lkg(LastKnownGoodConfig.ofDefaults());
        objects.put("k", text("payload"));
        store.corruptNextRead();
        ObjectRead corrupt = objects.get("k");
        assertThatThrownBy(corrupt::readAllBytes).isInstanceOf(IntegrityException.class);

        store.down(true);
        assertThatThrownBy(() -> objects.get("k")).isInstanceOf(StorageUnavailableException.class);
        assertThat(objects.counters().integrityFailures()).isEqualTo(1);
        assertThat(objects.counters().cachedObjects()).isZero();
    }

    @Test
    void bytesNotMatchingTheRecordedSha256AreRefusedEvenIfTheStoreMissedIt() {
        LastKnownGoodStore objects = lkg(LastKnownGoodConfig.ofDefaults());
        objects.put("k", text("payload"));
        store.silentlyCorruptNextRead();
        ObjectRead corrupt = objects.get("k");
        assertThatThrownBy(corrupt::readAllBytes)
                .isInstanceOf(IntegrityException.class)
                .hasMessageContaining("recorded SHA-256");
        assertThat(objects.counters().cachedObjects()).isZero();
    }

    @Test
    void aPartlyReadObjectIsNotCached() throws IOException {
        LastKnownGoodStore objects = lkg(LastKnownGoodConfig.ofDefaults());
        objects.put("k", text("0123456789"));
        try (ObjectRead partial = objects.get("k")) {
            InputStream in = partial.stream();
            assertThat(in.readNBytes(4)).hasSize(4);
        }
        try (ObjectRead skipping = objects.get("k")) {
            InputStream in = skipping.stream();
            assertThat(in.skip(3)).isEqualTo(3);
            assertThat(in.readAllBytes()).hasSize(7);
        }
        assertThat(objects.counters().cachedObjects()).isZero();
    }

    @Test
    void objectsAboveTheSizeLimitAreNotCached() {
        LastKnownGoodStore objects =
                lkg(LastKnownGoodConfig.builder().maxObjectBytes(4).build());
        objects.put("small", text("1234"));
        objects.put("large", text("12345"));
        read(objects.get("small"));
        read(objects.get("large"));
        store.down(true);
        assertThat(read(objects.get("small"))).isEqualTo("1234");
        assertThatThrownBy(() -> objects.get("large")).isInstanceOf(StorageUnavailableException.class);
    }

    @Test
    void aWriteThroughTheDecoratorDropsTheOlderCopy() {
        LastKnownGoodStore objects = lkg(LastKnownGoodConfig.ofDefaults());
        objects.put("k", text("v1"));
        read(objects.get("k"));
        objects.put("k", text("v2"));
        store.down(true);
        assertThatThrownBy(() -> objects.get("k")).isInstanceOf(StorageUnavailableException.class);

        store.down(false);
        read(objects.get("k"));
        store.down(true);
        assertThat(read(objects.get("k"))).isEqualTo("v2");
    }

    @Test
    void aWriteWhoseOutcomeIsUnknownAlsoDropsTheCopy() {
        LastKnownGoodStore objects = warmed();
        store.loseNextWriteAnswer();
        assertThatThrownBy(() -> objects.put("k", text("v2")))
                .isInstanceOfSatisfying(
                        StorageUnavailableException.class,
                        e -> assertThat(e.outcomeUnknown()).isTrue());
        store.down(true);
        assertThatThrownBy(() -> objects.get("k"))
                .isInstanceOf(StorageUnavailableException.class)
                .hasMessageContaining("no last-known-good copy is cached");
    }

    @Test
    void anAsyncWriteWhoseOutcomeIsUnknownAlsoDropsTheCopy() {
        LastKnownGoodStore objects = warmed();
        store.loseNextWriteAnswer();
        assertThat(objects.putAsync("k", text("v2"))).isCompletedExceptionally();
        store.down(true);
        assertThatThrownBy(() -> objects.get("k"))
                .isInstanceOf(StorageUnavailableException.class)
                .hasMessageContaining("no last-known-good copy is cached");
    }

    /**
     * Field input: warm the cache with a get, stop the endpoint, a get serves the degraded copy, a put
     * is refused before any byte is sent, and the next get must still serve the degraded copy.
     */
    @Test
    void aWriteRefusedBeforeAnyByteWasSentKeepsTheCopy() {
        LastKnownGoodStore objects = warmed();
        store.down(true);
        assertThat(objects.get("k").degraded()).isTrue();

        assertThatThrownBy(() -> objects.put("k", text("v2")))
                .isInstanceOfSatisfying(
                        StorageUnavailableException.class,
                        e -> assertThat(e.outcomeUnknown()).isFalse());
        assertThatThrownBy(() -> objects.putIfMatch("k", "\"etag\"", text("v2")))
                .isInstanceOf(StorageUnavailableException.class);
        assertThatThrownBy(() -> objects.putIfAbsent("k", text("v2"))).isInstanceOf(StorageUnavailableException.class);
        assertThatThrownBy(() -> objects.delete("k")).isInstanceOf(StorageUnavailableException.class);
        assertThat(objects.putAsync("k", text("v2"))).isCompletedExceptionally();

        try (ObjectRead again = objects.get("k")) {
            assertThat(again.degraded()).isTrue();
            assertThat(read(again)).isEqualTo("v1");
        }
        assertThat(objects.counters().degradedReads()).isEqualTo(2);
    }

    @Test
    void aWriteTheStoreRefusedKeepsTheCopy() {
        LastKnownGoodStore objects = warmed();

        assertThatThrownBy(() -> objects.putIfMatch("k", "\"not-the-current-etag\"", text("v2")))
                .isInstanceOf(PreconditionFailedException.class);
        assertThatThrownBy(() -> objects.putIfAbsent("k", text("v2"))).isInstanceOf(AlreadyExistsException.class);
        assertThatThrownBy(() -> objects.put("bad\u0000key", text("v2"))).isInstanceOf(IllegalArgumentException.class);

        store.down(true);
        assertThat(read(objects.get("k"))).isEqualTo("v1");
    }

    @Test
    void aReadThatStartedBeforeAWriteNeverCommits() {
        LastKnownGoodStore objects = lkg(LastKnownGoodConfig.ofDefaults());
        objects.put("k", text("v1"));
        ObjectRead before = objects.get("k");
        objects.put("k", text("v2"));
        assertThat(read(before)).isEqualTo("v1");
        store.down(true);
        assertThatThrownBy(() -> objects.get("k")).isInstanceOf(StorageUnavailableException.class);
    }

    @Test
    void deletesAndNotFoundAnswersDropTheCopy() {
        LastKnownGoodStore objects = lkg(LastKnownGoodConfig.ofDefaults());
        objects.put("deleted-here", text("x"));
        objects.put("deleted-elsewhere", text("y"));
        read(objects.get("deleted-here"));
        read(objects.get("deleted-elsewhere"));
        objects.delete("deleted-here");
        store.delete("deleted-elsewhere"); // behind the decorator's back
        assertThatThrownBy(() -> objects.get("deleted-elsewhere")).isInstanceOf(ObjectNotFoundException.class);

        store.down(true);
        assertThatThrownBy(() -> objects.get("deleted-here")).isInstanceOf(StorageUnavailableException.class);
        assertThatThrownBy(() -> objects.get("deleted-elsewhere")).isInstanceOf(StorageUnavailableException.class);
    }

    @Test
    void staleReadsAreCountedAndNeverReplaceTheCachedCopy() {
        LastKnownGoodStore objects = lkg(LastKnownGoodConfig.ofDefaults());
        objects.put("k", text("v1"));
        read(objects.get("k"));
        store.staleNextRead();
        ObjectRead stale = objects.get("k", ReadOptions.latest().withAcceptStale(true));
        assertThat(stale.freshness()).isEqualTo(Freshness.STALE);
        read(stale);
        store.staleExceptionNextRead();
        assertThatThrownBy(() -> objects.get("k")).isInstanceOf(StaleReadException.class);
        assertThat(objects.counters().staleReadsDetected()).isEqualTo(2);
        assertThat(objects.counters().cachedObjects()).isEqualTo(1);
    }

    @Test
    void aCallerThatRefusesTheCacheGetsTheStoresFailure() {
        LastKnownGoodStore objects = lkg(LastKnownGoodConfig.ofDefaults());
        objects.put("k", text("v1"));
        read(objects.get("k"));
        store.down(true);
        assertThatThrownBy(() -> objects.get("k", ReadOptions.latest().withAllowCache(false)))
                .isInstanceOf(StorageUnavailableException.class)
                .hasMessageContaining("unreachable");
        assertThat(objects.counters().unavailableReads()).isEqualTo(1);
    }

    @Test
    void aVersionReadIsServedOnlyIfTheCachedCopyIsThatVersion() {
        LastKnownGoodStore objects = lkg(LastKnownGoodConfig.ofDefaults());
        ObjectVersion v1 = objects.put("k", text("v1"));
        read(objects.get("k"));
        store.down(true);
        ObjectRead byVersion = objects.get("k", ReadOptions.version(v1.versionId()));
        assertThat(byVersion.degraded()).isTrue();
        assertThat(read(byVersion)).isEqualTo("v1");
        assertThatThrownBy(() -> objects.get("k", ReadOptions.version("other")))
                .isInstanceOf(StorageUnavailableException.class)
                .hasMessageContaining("version 'other'");
    }

    @Test
    void theCacheIsBoundedByEntriesAndBytesLeastRecentlyUsedFirst() {
        LastKnownGoodStore objects =
                lkg(LastKnownGoodConfig.builder().maxEntries(2).build());
        for (String key : List.of("a", "b")) {
            objects.put(key, text(key));
            read(objects.get(key));
        }
        store.down(true);
        read(objects.get("a")); // a is now more recently used than b
        store.down(false);
        objects.put("c", text("c"));
        read(objects.get("c"));
        store.down(true);
        assertThat(objects.counters().cachedObjects()).isEqualTo(2);
        assertThat(read(objects.get("a"))).isEqualTo("a");
        assertThatThrownBy(() -> objects.get("b")).isInstanceOf(StorageUnavailableException.class);

        LastKnownGoodStore bytesBound = lkg(
                LastKnownGoodConfig.builder().maxObjectBytes(3).maxTotalBytes(5).build());
        store.down(false);
        objects.put("x", text("xxx"));
        objects.put("y", text("yyy"));
        read(bytesBound.get("x"));
        read(bytesBound.get("y"));
        assertThat(bytesBound.counters().cachedObjects()).isEqualTo(1);
        assertThat(bytesBound.counters().cachedBytes()).isEqualTo(3);
    }

    @Test
    void aDisabledCacheKeepsNothing() {
        LastKnownGoodStore objects = lkg(LastKnownGoodConfig.disabled());
        objects.put("k", text("v1"));
        read(objects.get("k"));
        store.down(true);
        assertThatThrownBy(() -> objects.get("k")).isInstanceOf(StorageUnavailableException.class);
        assertThat(objects.counters().cachedObjects()).isZero();
    }

    @Test
    void invalidSettingsAreNamed() {
        assertThatThrownBy(() -> LastKnownGoodConfig.builder().maxEntries(0).build())
                .hasMessage("maxEntries must be >= 1 but was 0");
        assertThatThrownBy(() -> LastKnownGoodConfig.builder()
                        .maxStaleness(Duration.ZERO)
                        .build())
                .hasMessage("maxStaleness must be positive but was PT0S");
        assertThatThrownBy(() -> LastKnownGoodConfig.builder().expiryJitter(1.0).build())
                .hasMessage("expiryJitter must be in [0, 1) but was 1.0");
        assertThatThrownBy(() -> LastKnownGoodConfig.builder()
                        .maxObjectBytes(10)
                        .maxTotalBytes(5)
                        .build())
                .hasMessage("maxTotalBytes must be >= maxObjectBytes (10) but was 5");
        assertThat(LastKnownGoodConfig.ofDefaults().maxObjectBytes()).isEqualTo(1024 * 1024);
        assertThat(LastKnownGoodConfig.ofDefaults().toBuilder()
                        .maxEntries(7)
                        .build()
                        .maxEntries())
                .isEqualTo(7);
    }
}
