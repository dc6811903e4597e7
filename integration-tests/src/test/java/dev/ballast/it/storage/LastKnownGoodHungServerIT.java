package dev.ballast.it.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.it.support.FaultProxyFixture;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.cache.LastKnownGoodConfig;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.Source;
import dev.ballast.testkit.LeakCheck;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The field input of issue 24: S3 accepting connections and never answering (a proxy that blackholes
 * it). With the HTTP client's 10 s attempt and 30 s total timeouts, the first two degraded reads took
 * 30 s each; with the last-known-good cache's read deadline (3 s by default) every read answers within
 * it. The only wall-clock check of the suite, with a ceiling far above the deadline and far below the
 * 30 s it was.
 */
@Timeout(120)
@ExtendWith(LeakCheck.class)
class LastKnownGoodHungServerIT {

    /** Generous: the 3 s deadline plus a loaded machine's scheduling, well under the 30 s of before. */
    private static final Duration CEILING = Duration.ofSeconds(12);

    @AutoClose
    private FaultProxyFixture fixture;

    @Test
    void aServerThatAcceptsAndNeverAnswersCostsEachReadNoMoreThanTheReadDeadline() throws Exception {
        fixture = FaultProxyFixture.create();
        byte[] settings = "{\"mode\":\"safe\"}".getBytes(StandardCharsets.UTF_8);
        fixture.facade.objects().put("settings.json", ObjectContent.ofBytes(settings));
        fixture.facade.objects().get("settings.json").readAllBytes();
        fixture.time.advance(Duration.ofSeconds(70));

        fixture.proxy.blackhole();

        for (int read = 1; read <= 3; read++) {
            long start = System.nanoTime();
            try (ObjectRead degraded = fixture.facade.objects().get("settings.json")) {
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                assertThat(took).as("read %d took", read).isLessThan(CEILING);
                assertThat(degraded.source()).isEqualTo(Source.CACHE);
                assertThat(degraded.age()).isEqualTo(Duration.ofSeconds(70));
                assertThat(degraded.degradedReason())
                        .hasValueSatisfying(r -> assertThat(r)
                                .contains("within the read deadline " + LastKnownGoodConfig.DEFAULT_READ_DEADLINE));
                assertThat(degraded.readAllBytes()).isEqualTo(settings);
            }
        }
        long start = System.nanoTime();
        assertThatThrownBy(() -> fixture.facade.objects().get("never-read.json"))
                .isInstanceOfSatisfying(
                        StorageUnavailableException.class,
                        e -> assertThat(e.getMessage())
                                .contains("'never-read.json'", "read deadline", "no last-known-good copy is cached"));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(CEILING);
        assertThat(fixture.facade.stats().degradedReads()).isEqualTo(3);
        assertThat(fixture.proxy.exchanges())
                .as("the reads reached the hung server")
                .anySatisfy(e -> assertThat(e.fault()).isEqualTo("blackholed"));

        // The abandoned reads still wait on the hung server (the HTTP client's timeouts run on the fixture's
        // fake ticker): stopping it closes their connections, so they end and the client can close.
        fixture.proxy.stop();
    }
}
