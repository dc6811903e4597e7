package dev.ballast.it.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.http.DependencyConfig;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.bulkhead.BulkheadConfig;
import dev.ballast.it.support.FaultProxyFixture;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.S3MockServer;
import dev.ballast.storage.object.Source;
import dev.ballast.storage.object.s3.S3Endpoint;
import dev.ballast.storage.object.s3.S3StoreConfig;
import dev.ballast.testkit.LeakCheck;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Faults around reads: a caller abandoning a download half-way must give back its connection and
 * its bulkhead permit and must never leave a partial copy in the last-known-good cache; a store
 * that comes back after an outage must be read live again, not served from the cache forever.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@ExtendWith(LeakCheck.class)
class StorageFacadeFaultsIT {
    @AutoClose
    private FaultProxyFixture fixture;

    @Test
    void readsAbandonedHalfWayReleaseTheirBulkheadPermits() throws Exception {
        // Two permits: a leaked permit per abandoned read would refuse the third read.
        try (ResilientHttpClient http = ResilientHttpClient.newBuilder()
                        .defaultDependency(DependencyConfig.builder()
                                .bulkhead(BulkheadConfig.builder(2).build())
                                .build())
                        .build();
                StorageFacade facade = StorageFacade.newBuilder()
                        .s3(S3Endpoint.newBuilder()
                                .endpoint(S3MockServer.endpoint())
                                .region("us-east-1")
                                .credentials("ballast", "ballast-secret")
                                .pathStyle(true)
                                .httpClient(http)
                                .build())
                        .bucket("abandon-" + UUID.randomUUID().toString().substring(0, 8))
                        .s3Config(S3StoreConfig.builder()
                                .createBucket(true)
                                .enableVersioning(true)
                                .build())
                        .build()) {
            ObjectStore objects = facade.objects();
            byte[] big = new byte[3 * 1024 * 1024];
            new Random(3).nextBytes(big);
            objects.put("big.bin", ObjectContent.ofBytes(big));

            for (int i = 0; i < 8; i++) {
                try (ObjectRead read = objects.get("big.bin");
                        InputStream in = read.stream()) {
                    assertThat(in.readNBytes(1000)).isEqualTo(Arrays.copyOf(big, 1000));
                }
            }

            try (ObjectRead read = objects.get("big.bin")) {
                assertThat(read.source()).isEqualTo(Source.LIVE);
                assertThat(read.readAllBytes()).isEqualTo(big);
            }
        }
    }

    @Test
    void aHalfReadObjectIsNeverCachedAndTheStoreIsReadLiveAgainOnceItRecovers() throws Exception {
        fixture = FaultProxyFixture.create();
        ObjectStore objects = fixture.facade.objects();
        byte[] v1 = "{\"v\":1,\"pad\":\"................................\"}".getBytes(StandardCharsets.UTF_8);
        objects.put("settings.json", ObjectContent.ofBytes(v1));
        objects.put("half.json", ObjectContent.ofBytes(v1));
        try (ObjectRead read = objects.get("settings.json")) {
            assertThat(read.readAllBytes()).isEqualTo(v1);
        }
        try (ObjectRead read = objects.get("half.json");
                InputStream in = read.stream()) {
            assertThat(in.readNBytes(5)).hasSize(5);
        }

        fixture.proxy.stop();
        assertThatThrownBy(() -> objects.get("half.json"))
                .as("a copy read only in part is no last-known-good copy")
                .isInstanceOf(StorageUnavailableException.class);
        boolean open = false;
        for (int i = 0; i < 10 && !open; i++) {
            try (ObjectRead degraded = objects.get("settings.json")) {
                assertThat(degraded.degraded()).isTrue();
                assertThat(degraded.readAllBytes()).isEqualTo(v1);
                open = degraded.degradedReason()
                        .orElse("")
                        .toLowerCase(java.util.Locale.ROOT)
                        .contains("open");
            }
        }
        assertThat(open).as("circuit breaker opened").isTrue();

        // While the facade could not reach it, another writer stored a newer version.
        byte[] v2 = "{\"v\":2}".getBytes(StandardCharsets.UTF_8);
        fixture.server.put("settings.json", ObjectContent.ofBytes(v2));
        fixture.proxy.restart();
        // Past the breaker's open state: 10 minutes, +20 % jitter at most.
        fixture.time.advance(Duration.ofMinutes(13));

        try (ObjectRead live = objects.get("settings.json")) {
            assertThat(live.source()).isEqualTo(Source.LIVE);
            assertThat(live.degraded()).isFalse();
            assertThat(live.degradedReason()).isEmpty();
            assertThat(live.readAllBytes()).isEqualTo(v2);
        }
        try (ObjectRead live = objects.get("half.json")) {
            assertThat(live.source()).isEqualTo(Source.LIVE);
            assertThat(live.readAllBytes()).isEqualTo(v1);
        }
    }
}
