package dev.ballast.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.cache.LastKnownGoodConfig;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.test.FakeObjectStore;
import dev.ballast.testkit.FakeTime;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/** ballastStorage follows the facade's degraded reads: DOWN (or the configured status) for a window after one, then UP. */
@Timeout(30)
class BallastStorageHealthIndicatorTest {

    @Test
    void aReadServedFromTheLastKnownGoodCacheTurnsHealthDegradedForTheWindow() {
        // given a facade over a store that has served "price" once
        FakeTime time = new FakeTime();
        FakeObjectStore store = new FakeObjectStore();
        try (StorageFacade facade = StorageFacade.newBuilder()
                .objectStore(store)
                .lastKnownGood(LastKnownGoodConfig.ofDefaults())
                .clock(time)
                .build()) {
            facade.objects().put("price", ObjectContent.ofBytes("42".getBytes(StandardCharsets.UTF_8)));
            try (ObjectRead fresh = facade.objects().get("price")) {
                assertThat(fresh.readAllBytes())
                        .asString(StandardCharsets.UTF_8)
                        .isEqualTo("42");
                assertThat(fresh.degraded()).isFalse();
            }
            BallastStorageHealthIndicator health =
                    new BallastStorageHealthIndicator(facade, "DEGRADED", Duration.ofMinutes(1), time);
            assertThat(health.health().getStatus()).isEqualTo(Status.UP);

            // when the store goes down and the read is served from the cache
            store.down(true);
            try (ObjectRead cached = facade.objects().get("price")) {
                assertThat(cached.degraded()).isTrue();
                assertThat(cached.readAllBytes())
                        .asString(StandardCharsets.UTF_8)
                        .isEqualTo("42");
            }

            // then
            Health degraded = health.health();
            assertThat(degraded.getStatus()).isEqualTo(new Status("DEGRADED"));
            assertThat(degraded.getDetails()).containsEntry("degradedReads", 1L);

            // and once the window has passed without another degraded read
            time.advance(Duration.ofSeconds(59));
            assertThat(health.health().getStatus()).isEqualTo(new Status("DEGRADED"));
            time.advance(Duration.ofSeconds(2));
            assertThat(health.health().getStatus()).isEqualTo(Status.UP);
        }
    }
}
