package dev.ballast.cli;

import dev.ballast.http.HttpClientListener;
import dev.ballast.http.RetryDecision;
import dev.ballast.http.breaker.BreakerState;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts what a command's summary reports from the HTTP layer of an S3 store: attempts retried and
 * breaker trips ({@code attempts retried 0, breaker trips 0}). Thread-safe.
 */
final class HttpCounting implements HttpClientListener {
    final LongAdder retries = new LongAdder();
    final LongAdder breakerTrips = new LongAdder();

    @Override
    public void onRetryDecision(HttpClientListener.RetryDecisionEvent event) {
        if (event.decision() == RetryDecision.RETRYING) {
            retries.increment();
        }
    }

    @Override
    public void onBreakerStateTransition(String dependency, BreakerState from, BreakerState to) {
        if (to == BreakerState.OPEN) {
            breakerTrips.increment();
        }
    }
}
