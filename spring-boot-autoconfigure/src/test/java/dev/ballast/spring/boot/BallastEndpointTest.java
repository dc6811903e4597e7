package dev.ballast.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.http.DependencyStatus;
import dev.ballast.http.breaker.BreakerState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What {@code /actuator/ballast} shows of a dependency's concurrency limit and bulkhead. */
@Timeout(30)
class BallastEndpointTest {

    @Test
    void aDependencyWithTheDefaultsShowsItsLimitAndInFlightAndNoBulkhead() {
        // given: the client's status of a dependency without a fixed bulkhead (sized Integer.MAX_VALUE)
        DependencyStatus status = new DependencyStatus(
                "https://api.example.com:443",
                BreakerState.CLOSED,
                Integer.MAX_VALUE - 3,
                Integer.MAX_VALUE,
                12.5,
                1,
                0,
                3,
                140,
                7,
                java.time.Duration.ZERO);

        // when
        BallastEndpoint.Dependency shown = BallastEndpoint.Dependency.of(status);

        // then
        assertThat(shown)
                .isEqualTo(new BallastEndpoint.Dependency(
                        "https://api.example.com:443", BreakerState.CLOSED, 140, 3, null, 12.5, 1, 7, 0));
    }

    @Test
    void aFixedBulkheadIsShownAndATurnedOffLimitIsNot() {
        // given: a bulkhead of 16 with 5 held, the concurrency limit disabled (reported as Integer.MAX_VALUE)
        DependencyStatus status = new DependencyStatus(
                "https://batch.internal:443",
                BreakerState.OPEN,
                11,
                16,
                0.0,
                4,
                2,
                5,
                Integer.MAX_VALUE,
                0,
                java.time.Duration.ofSeconds(3));

        // when
        BallastEndpoint.Dependency shown = BallastEndpoint.Dependency.of(status);

        // then
        assertThat(shown.concurrencyLimit()).isNull();
        assertThat(shown.attemptsInFlight()).isEqualTo(5);
        assertThat(shown.bulkhead()).isEqualTo(new BallastEndpoint.Bulkhead(16, 11));
        assertThat(shown.bulkheadFullRejections()).isEqualTo(2);
        assertThat(shown.circuitOpenRejections()).isEqualTo(4);
    }
}
