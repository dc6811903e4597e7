package dev.ballast.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class CallRejectedExceptionTest {

    @Test
    void circuitOpenExceptionNamesDependencyAndRemainingTime() {
        CircuitOpenException e = new CircuitOpenException("api.example.com:443", Duration.ofMillis(1234));

        assertThat(e).isInstanceOf(IOException.class).isInstanceOf(CallRejectedException.class);
        assertThat(e.dependency()).isEqualTo("api.example.com:443");
        assertThat(e.remainingOpenTime()).isEqualTo(Duration.ofMillis(1234));
        assertThat(e.getMessage())
                .isEqualTo(
                        "Circuit breaker 'api.example.com:443' is OPEN and does not permit further calls (retry in 1234 ms)");
    }

    @Test
    void aHalfOpenRejectionSaysSoAndHasNoRemainingOpenTime() {
        CircuitOpenException e = CircuitOpenException.halfOpenProbesInFlight("api:443");

        assertThat(e.dependency()).isEqualTo("api:443");
        assertThat(e.remainingOpenTime()).isZero();
        assertThat(e.getMessage())
                .isEqualTo("Circuit breaker 'api:443' is HALF_OPEN and all probe calls are in flight (retry in 0 ms)");
    }

    @Test
    void bulkheadFullExceptionNamesDependencyLimitAndWait() {
        BulkheadFullException e = new BulkheadFullException("db:5432", 8, Duration.ofMillis(250));

        assertThat(e).isInstanceOf(CallRejectedException.class);
        assertThat(e.dependency()).isEqualTo("db:5432");
        assertThat(e.maxConcurrentCalls()).isEqualTo(8);
        assertThat(e.maxWait()).isEqualTo(Duration.ofMillis(250));
        assertThat(e.getMessage()).contains("'db:5432'", "8 concurrent calls", "250 ms");
    }

    @Test
    void rejectionsAreSealedIntoExactlyThreeKinds() {
        assertThat(CallRejectedException.class.getPermittedSubclasses())
                .containsExactlyInAnyOrder(
                        CircuitOpenException.class,
                        BulkheadFullException.class,
                        ConcurrencyLimitExceededException.class);
    }

    @Test
    void badArgumentsAreRejectedWithTheirNames() {
        assertThatThrownBy(() -> new CircuitOpenException(null, Duration.ZERO))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("dependency");
        assertThatThrownBy(() -> new CircuitOpenException("a", Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("remainingOpenTime must be >= 0");
        assertThatThrownBy(() -> new BulkheadFullException("a", 0, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxConcurrentCalls must be >= 1 but was 0");
        assertThatThrownBy(() -> new BulkheadFullException("a", 1, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("maxWait");
        assertThatThrownBy(() -> new ConcurrencyLimitExceededException("a", 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("limit must be >= 1 but was 0");
        assertThatThrownBy(() -> new ConcurrencyLimitExceededException(null, 1))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("dependency");
        assertThatThrownBy(() -> new ConcurrencyLimitExceededException("a", 1, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("waited");
        assertThatThrownBy(() -> new ConcurrencyLimitExceededException("a", 1, Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("waited must be >= 0 but was PT-0.001S");
    }

    @Test
    void systemTickerAdvancesWithNanoTime() {
        Ticker ticker = Ticker.systemTicker();
        long before = System.nanoTime();
        long reading = ticker.read();
        assertThat(reading).isGreaterThanOrEqualTo(before);
        assertThat(Ticker.systemTicker()).isSameAs(ticker);
    }
}
