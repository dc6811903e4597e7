package dev.ballast.http.breaker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.http.CircuitOpenException;
import dev.ballast.http.ManualTicker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class BreakerRegistryTest {

    private final ManualTicker ticker = new ManualTicker();

    @Test
    void oneBreakerPerDependencyWithItsOwnConfig() throws Exception {
        BreakerConfig strict = BreakerConfig.builder().consecutiveFailureThreshold(1).build();
        CircuitBreakerTest.RecordingListener listener = new CircuitBreakerTest.RecordingListener();
        BreakerRegistry registry = new BreakerRegistry(
                dependency -> dependency.startsWith("strict") ? strict : BreakerConfig.ofDefaults(),
                ticker, () -> new SplittableRandom(1), listener);

        CircuitBreaker a = registry.forDependency("strict:443");
        CircuitBreaker b = registry.forDependency("lenient:443");

        assertThat(registry.forDependency("strict:443")).isSameAs(a);
        assertThat(a.config()).isEqualTo(strict);
        assertThat(b.config()).isEqualTo(BreakerConfig.ofDefaults());
        a.acquirePermission().onFailure();
        b.acquirePermission().onFailure();
        assertThat(a.state()).isEqualTo(BreakerState.OPEN);
        assertThat(b.state()).as("breakers are isolated per dependency").isEqualTo(BreakerState.CLOSED);
        assertThat(listener.dependencies()).containsExactly("strict:443");
        ticker.advance(Duration.ofSeconds(2));
        assertThatThrownBy(a::acquirePermission).isInstanceOf(CircuitOpenException.class);
    }

    @Test
    void concurrentFirstCallsGetTheSameBreakerAndConfigIsAskedOnce() throws Exception {
        AtomicInteger configCalls = new AtomicInteger();
        BreakerRegistry registry = new BreakerRegistry(d -> {
            configCalls.incrementAndGet();
            return BreakerConfig.ofDefaults();
        }, ticker, () -> new SplittableRandom(1), BreakerListener.NONE);
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<CircuitBreaker>> results = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                results.add(pool.submit(() -> {
                    start.await();
                    return registry.forDependency("api:443");
                }));
            }
            start.countDown();
            var distinct = ConcurrentHashMap.<CircuitBreaker>newKeySet();
            for (Future<CircuitBreaker> result : results) {
                distinct.add(result.get(10, TimeUnit.SECONDS));
            }

            assertThat(distinct).hasSize(1);
            assertThat(configCalls.get()).isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void nullsAreRejected() {
        BreakerRegistry registry = new BreakerRegistry(d -> null, ticker, () -> new SplittableRandom(1), BreakerListener.NONE);

        assertThatThrownBy(() -> registry.forDependency("api:443"))
                .isInstanceOf(NullPointerException.class).hasMessage("configFor returned null for dependency 'api:443'");
        assertThatThrownBy(() -> registry.forDependency(null))
                .isInstanceOf(NullPointerException.class).hasMessage("dependency");
        assertThatThrownBy(() -> new BreakerRegistry(null, ticker, () -> new SplittableRandom(1), BreakerListener.NONE))
                .isInstanceOf(NullPointerException.class).hasMessage("configFor");
    }
}
