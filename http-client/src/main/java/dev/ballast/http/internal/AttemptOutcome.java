package dev.ballast.http.internal;

import dev.ballast.http.HttpClientListener.Decision;
import dev.ballast.http.classify.Outcome;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * What one attempt produced and what the retry layer decided about it. Exactly one of
 * {@code response} and {@code failure} is non-null. This is the value Failsafe's retry policy sees:
 * the decision is made once, by {@link RetryDecider}, and Failsafe only schedules it, so side effects
 * (the retry budget withdrawal) happen exactly once per attempt.
 *
 * @param attempt the attempt number, 1 for the first
 * @param response the response, or null
 * @param failure the failure, or null
 * @param outcome the classification of the response or failure
 * @param decision the retry layer's decision
 * @param delay the backoff before the next attempt; zero unless {@code decision} is {@code RETRYING}
 * @param reason a short reason for the decision log
 */
record AttemptOutcome(int attempt, HttpResponse<?> response, Throwable failure, Outcome outcome, Decision decision,
                      Duration delay, String reason) {

    boolean retry() {
        return decision == Decision.RETRYING;
    }

    AttemptOutcome withFailure(Throwable newFailure) {
        return new AttemptOutcome(attempt, null, newFailure, outcome, decision, delay, reason);
    }

    AttemptOutcome withResponse(HttpResponse<?> newResponse) {
        return new AttemptOutcome(attempt, newResponse, null, outcome, decision, delay, reason);
    }
}
