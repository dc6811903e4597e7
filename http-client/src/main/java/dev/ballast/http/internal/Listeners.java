package dev.ballast.http.internal;

import dev.ballast.http.CallRejectedException;
import dev.ballast.http.HttpClientListener;
import dev.ballast.http.HttpClientListener.Decision;
import dev.ballast.http.HttpClientListener.RetryDecisionEvent;
import dev.ballast.http.breaker.BreakerListener;
import dev.ballast.http.breaker.BreakerState;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fans events out to the SLF4J log and to every registered {@link HttpClientListener}. The log line
 * carries only the fields of {@link RetryDecisionEvent}: no header value, no query string, no
 * exception message (messages may echo URLs), so credentials cannot leak through it.
 */
public final class Listeners implements BreakerListener {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ballast.http.ResilientHttpClient");

    private final List<HttpClientListener> listeners;

    public Listeners(List<HttpClientListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    void attemptStarted(String correlationId, String dependency, int attempt) {
        each(l -> l.onAttemptStarted(correlationId, dependency, attempt));
    }

    void decision(RetryDecisionEvent e) {
        String format = "http retry decision correlationId={} dependency={} method={} path={} attempt={} maxAttempts={}"
                + " elapsedMs={} delayMs={} errorClass={} status={} outcome={} reason=\"{}\"";
        Object[] args = {e.correlationId(), e.dependency(), e.method(), e.path(), e.attempt(), e.maxAttempts(),
            e.elapsed().toMillis(), e.delay().toMillis(), e.errorClass() == null ? "-" : e.errorClass(),
            e.statusCode() < 0 ? "-" : e.statusCode(), e.decision().logName(), e.reason()};
        if (e.decision() == Decision.GAVE_UP || e.decision() == Decision.REJECTED) {
            LOG.warn(format, args);
        } else if (e.decision() == Decision.SUCCEEDED && e.attempt() == 1) {
            LOG.debug(format, args);
        } else {
            LOG.info(format, args);
        }
        each(l -> l.onRetryDecision(e));
    }

    void rejected(String dependency, CallRejectedException rejection) {
        each(l -> l.onRejected(dependency, rejection));
    }

    @Override
    public void onStateTransition(String dependency, BreakerState from, BreakerState to) {
        if (to == BreakerState.OPEN) {
            LOG.warn("circuit breaker transition dependency={} from={} to={}", dependency, from, to);
        } else {
            LOG.info("circuit breaker transition dependency={} from={} to={}", dependency, from, to);
        }
        each(l -> l.onBreakerStateTransition(dependency, from, to));
    }

    private void each(Consumer<HttpClientListener> event) {
        for (HttpClientListener listener : listeners) {
            try {
                event.accept(listener);
            } catch (RuntimeException e) {
                // A listener must never change the outcome of a call; its bug is reported, not propagated.
                LOG.warn("HttpClientListener {} threw {}", listener.getClass().getName(), e.getClass().getName(), e);
            }
        }
    }
}
