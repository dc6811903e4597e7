package dev.ballast.http.internal;

import dev.ballast.http.RetriesExhaustedException;
import dev.ballast.http.RetryDecision;
import java.io.IOException;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;

/**
 * How a call that ended without a response to return fails, from its last decision: the same rules
 * for {@code send} and {@code sendAsync}. Stateless.
 * <ul>
 *   <li>the total timeout expired: an {@link HttpTimeoutException}, as the JDK client throws for its
 *       own timeouts, with every attempt's failure suppressed;</li>
 *   <li>the retry layer gave up on a retryable failure: a {@link RetriesExhaustedException} holding
 *       every attempt's failure;</li>
 *   <li>otherwise the last attempt's own failure (a rejection, a permanent failure, the caller's
 *       handler's exception), with the earlier attempts' failures suppressed and, when the retry layer
 *       decided not to retry it, the reason ({@link FailureReasons#withDecision}).</li>
 * </ul>
 */
final class CallResult {

    private CallResult() {}

    static Throwable failure(Call call, AttemptOutcome outcome, Duration totalTimeout) {
        List<Throwable> failures = call.failures();
        Throwable failure = outcome.failure();
        if (failure != null && outcome.stop() == StopReason.TOTAL_TIMEOUT) {
            return totalTimeout(call, outcome.attempt(), totalTimeout, failures);
        }
        if (outcome.decision() == RetryDecision.GAVE_UP && failure != null) {
            return new RetriesExhaustedException(call.dependency.name(), outcome.attempt(), outcome.reason(), failures);
        }
        if (failure == null) {
            // A response whose body was already discarded for a retry that then could not run.
            failure = new IOException("call to dependency '" + call.dependency.name() + "' stopped after attempt "
                    + outcome.attempt() + " (" + outcome.reason() + ")");
        }
        Throwable original = failure;
        failure = FailureReasons.withDecision(call, outcome, failure); // say why it was not retried
        for (Throwable earlier : failures) {
            if (earlier != original && earlier != failure) {
                failure.addSuppressed(earlier);
            }
        }
        return failure;
    }

    /**
     * What {@code send} throws for {@code failure}, as the JDK client's {@code send} does
     * ({@code HttpClientImpl.send}): an {@code IOException} as it is; an
     * {@link IllegalArgumentException} or {@link SecurityException} thrown as it is; anything else
     * (a body handler's {@code RuntimeException}, say) wrapped in an {@code IOException} with its
     * message, the cause kept.
     *
     * @return the {@code IOException} to throw
     * @throws RuntimeException {@code failure} itself when it is thrown unwrapped
     */
    static IOException asSendThrows(Throwable failure) {
        if (failure instanceof IOException io) {
            return io;
        }
        if (failure instanceof IllegalArgumentException || failure instanceof SecurityException) {
            throw (RuntimeException) failure;
        }
        return new IOException(failure.getMessage(), failure);
    }

    private static HttpTimeoutException totalTimeout(
            Call call, int attempts, Duration totalTimeout, List<Throwable> failures) {
        HttpTimeoutException timeout = new HttpTimeoutException("total timeout of " + totalTimeout.toMillis()
                + " ms exceeded for dependency '" + call.dependency.name() + "' after " + attempts
                + (attempts == 1 ? " attempt" : " attempts"));
        failures.forEach(timeout::addSuppressed);
        return timeout;
    }
}
