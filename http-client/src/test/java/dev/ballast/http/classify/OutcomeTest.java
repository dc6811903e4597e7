package dev.ballast.http.classify;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Timeout(10)
class OutcomeTest {

    @ParameterizedTest(name = "{0}: breaker failure {1}, retried when idempotent {2}, otherwise {3}")
    @CsvSource({
        "SUCCESS,   false, false, false",
        "TRANSIENT, true,  true,  true",
        "PERMANENT, false, false, false",
        "AMBIGUOUS, true,  true,  false",
        "THROTTLED, false, true,  true",
    })
    void eachOutcomeDecidesBreakerAndRetry(
            Outcome outcome, boolean breakerFailure, boolean retriedWhenIdempotent, boolean retriedOtherwise) {
        assertThat(outcome.isBreakerFailure()).isEqualTo(breakerFailure);
        assertThat(outcome.isRetryable(true)).isEqualTo(retriedWhenIdempotent);
        assertThat(outcome.isRetryable(false)).isEqualTo(retriedOtherwise);
    }
}
