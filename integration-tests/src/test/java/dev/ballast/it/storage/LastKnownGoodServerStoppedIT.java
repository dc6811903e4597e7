package dev.ballast.it.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.http.CircuitOpenException;
import dev.ballast.it.support.FaultProxyFixture;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.Source;
import dev.ballast.testkit.LeakCheck;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The S3 server stops (the proxy refuses connections): a previously read object comes back from the
 * last-known-good cache, marked; an unread one fails with {@link StorageUnavailableException}; and
 * once the circuit breaker is open, reads cost no network call at all.
 */
@Timeout(120)
@ExtendWith(LeakCheck.class)
class LastKnownGoodServerStoppedIT {

    @AutoClose
    private FaultProxyFixture fixture;

    @Test
    void aStoppedServerDegradesVisiblyAndAnOpenBreakerStopsNetworkCalls() throws Exception {
        fixture = FaultProxyFixture.create();
        byte[] settings = "{\"mode\":\"safe\"}".getBytes(StandardCharsets.UTF_8);
        ObjectVersion written = fixture.facade.objects().put("settings.json", ObjectContent.ofBytes(settings));
        fixture.facade.objects().put("unread.json", ObjectContent.ofBytes(settings));
        try (ObjectRead live = fixture.facade.objects().get("settings.json")) {
            assertThat(live.source()).isEqualTo(Source.LIVE);
            assertThat(live.readAllBytes()).isEqualTo(settings);
        }
        fixture.time.advance(Duration.ofMinutes(3));

        fixture.proxy.stop();

        try (ObjectRead degraded = fixture.facade.objects().get("settings.json")) {
            assertThat(degraded.degraded()).isTrue();
            assertThat(degraded.source()).isEqualTo(Source.CACHE);
            assertThat(degraded.age()).isEqualTo(Duration.ofMinutes(3)).isPositive();
            assertThat(degraded.version().versionId()).isEqualTo(written.versionId());
            assertThat(degraded.degradedReason()).isPresent();
            assertThat(degraded.readAllBytes()).isEqualTo(settings);
        }
        assertThatThrownBy(() -> fixture.facade.objects().get("unread.json"))
                .isInstanceOfSatisfying(StorageUnavailableException.class, e -> {
                    assertThat(e.key()).isEqualTo("unread.json");
                    assertThat(e.getMessage()).contains("'unread.json'", "no last-known-good copy is cached");
                    assertThat(e.getCause()).isNotNull();
                });

        // Keep failing until the breaker for the proxy's host:port opens (a bounded number of reads).
        boolean open = false;
        for (int i = 0; i < 10 && !open; i++) {
            try {
                fixture.facade.objects().get("unread.json").close();
            } catch (StorageUnavailableException e) {
                open = hasCause(e, CircuitOpenException.class);
            }
        }
        assertThat(open).as("circuit breaker opened").isTrue();

        // The server is back, but the breaker is open: nothing reaches the network.
        fixture.proxy.restart();
        int connections = fixture.proxy.connections();
        int requests = fixture.proxy.requests();
        try (ObjectRead degraded = fixture.facade.objects().get("settings.json")) {
            assertThat(degraded.degraded()).isTrue();
            assertThat(degraded.degradedReason())
                    .hasValueSatisfying(r -> assertThat(r).containsIgnoringCase("open"));
            assertThat(degraded.readAllBytes()).isEqualTo(settings);
        }
        assertThatThrownBy(() -> fixture.facade.objects().get("unread.json"))
                .isInstanceOf(StorageUnavailableException.class)
                .satisfies(
                        e -> assertThat(hasCause(e, CircuitOpenException.class)).isTrue());
        assertThat(fixture.proxy.connections())
                .as("connections after the breaker opened")
                .isEqualTo(connections);
        assertThat(fixture.proxy.requests())
                .as("requests after the breaker opened")
                .isEqualTo(requests);

        assertThat(fixture.facade.stats().degradedReads()).isEqualTo(2);
        assertThat(fixture.facade.stats().unavailableReads()).isGreaterThanOrEqualTo(2);
    }

    /**
     * Field input: warm the cache with a get, stop the endpoint, a get serves the degraded copy, a put
     * is refused by the open breaker before any byte is sent, and the next get still serves the
     * degraded copy: a write that never left the process drops nothing.
     */
    @Test
    void aPutRefusedByTheOpenBreakerKeepsTheLastKnownGoodCopy() throws Exception {
        fixture = FaultProxyFixture.create();
        byte[] settings = "{\"mode\":\"safe\"}".getBytes(StandardCharsets.UTF_8);
        ObjectStore objects = fixture.facade.objects();
        objects.put("settings.json", ObjectContent.ofBytes(settings));
        try (ObjectRead live = objects.get("settings.json")) {
            assertThat(live.readAllBytes()).isEqualTo(settings);
        }

        fixture.proxy.stop();
        // Gets serve the degraded copy until the breaker opens (a bounded number of them).
        boolean open = false;
        for (int i = 0; i < 10 && !open; i++) {
            try (ObjectRead read = objects.get("settings.json")) {
                assertThat(read.readAllBytes()).isEqualTo(settings);
                open = read.degraded()
                        && read.degradedReason()
                                .orElse("")
                                .toLowerCase(java.util.Locale.ROOT)
                                .contains("circuit breaker");
            }
        }
        assertThat(open).as("circuit breaker opened").isTrue();
        // Back up, so that a request that left the process would be seen; the breaker stays open.
        fixture.proxy.restart();
        int connections = fixture.proxy.connections();
        int requests = fixture.proxy.requests();

        byte[] edited = "{\"mode\":\"fast\"}".getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> objects.put("settings.json", ObjectContent.ofBytes(edited)))
                .isInstanceOfSatisfying(StorageUnavailableException.class, e -> {
                    assertThat(hasCause(e, CircuitOpenException.class)).isTrue();
                    assertThat(e.outcomeUnknown()).isFalse();
                });
        assertThat(objects.putAsync("settings.json", ObjectContent.ofBytes(edited)))
                .failsWithin(Duration.ofSeconds(30))
                .withThrowableOfType(ExecutionException.class)
                .satisfies(
                        e -> assertThat(hasCause(e, CircuitOpenException.class)).isTrue());
        assertThat(fixture.proxy.connections())
                .as("connections while the breaker is open")
                .isEqualTo(connections);
        assertThat(fixture.proxy.requests())
                .as("requests while the breaker is open")
                .isEqualTo(requests);

        try (ObjectRead degraded = objects.get("settings.json")) {
            assertThat(degraded.degraded()).isTrue();
            assertThat(degraded.readAllBytes()).isEqualTo(settings);
        }
    }

    private static boolean hasCause(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }
}
