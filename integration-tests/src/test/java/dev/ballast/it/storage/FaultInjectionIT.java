package dev.ballast.it.storage;

import static dev.ballast.it.support.FaultProxy.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.it.support.FaultProxy;
import dev.ballast.it.support.FaultProxyFixture;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.StaleReadException;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.object.Freshness;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.VersionEntry;
import dev.ballast.testkit.LeakCheck;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Faults no S3 server stages on demand, injected by a {@link FaultProxy} between the resilient HTTP
 * client and S3Mock: a flipped byte, an acknowledgement lost after the write landed, and a lagging
 * replica serving an older version.
 */
@Timeout(120)
@ExtendWith(LeakCheck.class)
class FaultInjectionIT {

    private FaultProxyFixture fixture;

    @AfterEach
    void tearDown() throws Exception {
        if (fixture != null) {
            fixture.close();
        }
    }

    private static byte[] payload(String text, int repeat) {
        return text.repeat(repeat).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aFlippedByteRaisesIntegrityExceptionAndNothingIsCached() throws Exception {
        fixture = FaultProxyFixture.create();
        byte[] original = payload("ballast-", 256);
        fixture.facade.objects().put("report.bin", ObjectContent.ofBytes(original));

        Predicate<FaultProxy.Request> getReport = request("GET", "report.bin");
        fixture.proxy.flipByteOnce(getReport, 100);
        ObjectRead read = fixture.facade.objects().get("report.bin");
        assertThatThrownBy(read::readAllBytes)
                .isInstanceOf(IntegrityException.class)
                .satisfies(e -> assertThat(((IntegrityException) e).key()).isEqualTo("report.bin"));
        assertThat(fixture.proxy.exchanges(getReport))
                .extracting(FaultProxy.Exchange::fault)
                .contains("flipped byte 100");
        assertThat(fixture.facade.stats().integrityFailures()).isEqualTo(1);
        assertThat(fixture.facade.stats().cachedObjects()).isZero();

        // Nothing was cached: with the server gone there is no copy to fall back on.
        fixture.proxy.stop();
        assertThatThrownBy(() -> fixture.facade.objects().get("report.bin"))
                .isInstanceOf(StorageUnavailableException.class)
                .hasMessageContaining("'report.bin'")
                .hasMessageContaining("no last-known-good copy is cached");
    }

    @Test
    void aPutWhoseAnswerIsLostAfterTheServerStoredItLeavesExactlyOneNewVersion() throws Exception {
        fixture = FaultProxyFixture.create();
        ObjectVersion first = fixture.facade.objects().put("ledger", ObjectContent.ofBytes(payload("v1", 10)));
        assertThat(fixture.server.versions("ledger")).hasSize(1);

        Predicate<FaultProxy.Request> putLedger = request("PUT", "ledger");
        fixture.proxy.dropResponseOnce(putLedger);
        byte[] second = payload("v2", 10);
        ObjectVersion written = fixture.facade.objects().put("ledger", ObjectContent.ofBytes(second));

        assertThat(fixture.proxy.faultsPending())
                .as("the answer to the PUT was dropped")
                .isFalse();
        assertThat(fixture.proxy.exchanges(putLedger))
                .extracting(FaultProxy.Exchange::fault)
                .contains("dropped");
        List<VersionEntry> onServer = fixture.server.versions("ledger");
        assertThat(onServer).as("versions the server holds").hasSize(2);
        assertThat(onServer.get(0).versionId()).isEqualTo(written.versionId());
        assertThat(onServer.get(1).versionId()).isEqualTo(first.versionId());
        try (ObjectRead read = fixture.server.get("ledger")) {
            assertThat(read.readAllBytes()).isEqualTo(second);
        }
    }

    /**
     * Completing one upload ID again cannot make a second version, so the store sends a completion
     * whose answer was lost again, and finds the version its put token names whether the repeat
     * answered with the object or with NoSuchUpload.
     */
    @Test
    void aMultipartCompletionWhoseAnswerIsLostIsRetriedAndLeavesExactlyOneVersion() throws Exception {
        fixture = FaultProxyFixture.create(o -> o.partSize(5L << 20).multipartThreshold(5L << 20));
        byte[] big = new byte[11 << 20];
        new java.util.SplittableRandom(3).nextBytes(big);
        Predicate<FaultProxy.Request> complete = r -> r.method().equals("POST")
                && r.path().endsWith("/big.bin")
                && r.target().contains("uploadId=");
        fixture.proxy.dropResponseOnce(complete);

        ObjectVersion written = fixture.facade.objects().put("big.bin", ObjectContent.ofBytes(big));

        assertThat(fixture.proxy.exchanges(complete))
                .extracting(FaultProxy.Exchange::fault)
                .first()
                .isEqualTo("dropped");
        assertThat(fixture.proxy.exchanges(complete))
                .as("the completion sent again")
                .hasSizeGreaterThanOrEqualTo(2);
        assertThat(fixture.server.versions("big.bin"))
                .extracting(VersionEntry::versionId)
                .containsExactly(written.versionId());
        try (ObjectRead read = fixture.server.get("big.bin")) {
            assertThat(read.readAllBytes()).isEqualTo(big);
        }
    }

    @Test
    void anOlderVersionServedOnceByALaggingReplicaIsDetectedAsStale() throws Exception {
        fixture = FaultProxyFixture.create(options -> options.staleReadAttempts(1));
        fixture.facade.objects().put("config.json", ObjectContent.ofBytes(payload("{\"v\":1}", 1)));
        Predicate<FaultProxy.Request> getConfig = request("GET", "config.json");
        try (ObjectRead v1 = fixture.facade.objects().get("config.json")) {
            assertThat(v1.readAllBytes()).isEqualTo(payload("{\"v\":1}", 1));
        }
        FaultProxy.Response olderAnswer =
                fixture.proxy.exchanges(getConfig).get(0).response();
        ObjectVersion v2 = fixture.facade.objects().put("config.json", ObjectContent.ofBytes(payload("{\"v\":2}", 1)));

        fixture.proxy.serveOnce(getConfig, olderAnswer);
        assertThatThrownBy(() -> fixture.facade.objects().get("config.json"))
                .isInstanceOfSatisfying(StaleReadException.class, e -> {
                    assertThat(e.key()).isEqualTo("config.json");
                    assertThat(e.expectedGeneration()).isEqualTo(v2.generation());
                    assertThat(e.observedGeneration()).isLessThan(v2.generation());
                });
        assertThat(fixture.facade.stats().staleReadsDetected()).isEqualTo(1);

        // The replica lagged once: the next read is the version this facade wrote.
        try (ObjectRead fresh = fixture.facade.objects().get("config.json")) {
            assertThat(fresh.version().versionId()).isEqualTo(v2.versionId());
            assertThat(fresh.freshness()).isEqualTo(Freshness.FRESH);
            assertThat(fresh.readAllBytes()).isEqualTo(payload("{\"v\":2}", 1));
        }
    }

    @Test
    void withBoundedReReadsAOnceLaggingReplicaIsReadPastAndTheFreshVersionReturned() throws Exception {
        fixture = FaultProxyFixture.create();
        fixture.facade.objects().put("state", ObjectContent.ofBytes(payload("old", 1)));
        Predicate<FaultProxy.Request> getState = request("GET", "state");
        fixture.facade.objects().get("state").readAllBytes();
        FaultProxy.Response olderAnswer =
                fixture.proxy.exchanges(getState).get(0).response();
        ObjectVersion v2 = fixture.facade.objects().put("state", ObjectContent.ofBytes(payload("new", 1)));
        int getsBefore = fixture.proxy.exchanges(getState).size();

        fixture.proxy.serveOnce(getState, olderAnswer);
        try (ObjectRead read = fixture.facade.objects().get("state")) {
            assertThat(read.readAllBytes()).isEqualTo(payload("new", 1));
            assertThat(read.version().versionId()).isEqualTo(v2.versionId());
            assertThat(read.freshness()).isEqualTo(Freshness.FRESH);
        }
        assertThat(fixture.proxy
                        .exchanges(getState)
                        .subList(getsBefore, fixture.proxy.exchanges(getState).size()))
                .extracting(FaultProxy.Exchange::fault)
                .as("the stale answer was detected and the object read again")
                .containsExactly("served-recorded", null);
    }
}
