package dev.ballast.http.internal;

import dev.ballast.http.CallObserver;
import dev.ballast.http.CallRejectedException;
import dev.ballast.http.CircuitOpenException;
import dev.ballast.http.HttpClientListener;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.RetryDecision;
import dev.ballast.http.Ticker;
import dev.ballast.http.breaker.BreakerState;
import dev.ballast.http.classify.Outcome;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Fans events out to the SLF4J log and to every registered {@link HttpClientListener}; itself the
 * listener the breakers report to, so a transition is logged once, here. An event is built only
 * when a registered listener overrides its method or its log level is enabled, so a healthy call
 * allocates nothing here without listeners, nor with listeners that take only the plain-number
 * events ({@code onAttemptEnded}, {@code onCallEnded}). The log line carries only the fields of the
 * decision event: no header value, no query string, no exception message (messages may echo URLs),
 * so credentials cannot leak through it.
 *
 * <p>Levels, one line per event: a decision to give up is WARN; what happens at the rate of calls
 * is DEBUG: a success without a retry (hedged or not), an answer simply returned without a retry (a
 * 404, a 400), a hedged attempt, a bulkhead rejection. A circuit-open rejection is not logged per call at all: it is counted
 * per dependency, and the first one of each open period logs one INFO line. Everything else (a
 * retry, a success or answer after retries, a call not retried for the request's sake) is INFO.
 * Breaker transitions are logged once each: WARN when opening, INFO otherwise.
 */
public final class Listeners implements HttpClientListener {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ballast.http.ResilientHttpClient");

    /** The exchange start of an attempt that never had an exchange (rejected): its duration is zero. */
    static final long NO_EXCHANGE = Long.MIN_VALUE;

    private final HttpClientListener[] listeners;
    /** Whether some listener overrides the method: an event nobody receives is never built. */
    private final boolean starts;

    private final boolean decisions;
    private final boolean rejections;
    private final boolean ends;
    /**
     * Per listener, whether it takes the ends with the correlation id (it overrides one of their forms
     * with the id); else it gets the plain-number forms, and no id is made for it.
     */
    private final boolean[] endsWithId;
    /** Whether some listener takes the ends with the correlation id: then every call is built. */
    private final boolean anyEndsWithId;
    /**
     * The client's call observer, or {@code null} (none set, or one that observes no call): then no call
     * has an observation.
     */
    final @Nullable CallObserver observer;

    public Listeners(List<HttpClientListener> listeners) {
        this(listeners, null);
    }

    public Listeners(List<HttpClientListener> listeners, @Nullable CallObserver observer) {
        this.listeners = listeners.toArray(HttpClientListener[]::new);
        this.observer = observer != null && observer.observesCalls() ? observer : null;
        this.starts = overridden("onAttemptStarted", String.class, String.class, int.class);
        this.decisions = overridden("onRetryDecision", RetryDecisionEvent.class);
        this.rejections = overridden("onRejected", String.class, CallRejectedException.class)
                || overridden("onRejected", String.class, String.class, CallRejectedException.class);
        this.endsWithId = new boolean[this.listeners.length];
        boolean any = false;
        for (int i = 0; i < this.listeners.length; i++) {
            HttpClientListener l = this.listeners[i];
            endsWithId[i] = overrides(
                            l,
                            "onAttemptEnded",
                            String.class,
                            String.class,
                            int.class,
                            Outcome.class,
                            RetryDecision.class,
                            long.class)
                    || overrides(
                            l,
                            "onCallEnded",
                            String.class,
                            String.class,
                            int.class,
                            Outcome.class,
                            RetryDecision.class,
                            long.class);
            any |= endsWithId[i];
        }
        this.anyEndsWithId = any;
        this.ends = any
                || overridden("onAttemptEnded", String.class, int.class, Outcome.class, RetryDecision.class, long.class)
                || overridden("onCallEnded", String.class, int.class, Outcome.class, RetryDecision.class, long.class);
    }

    /** Whether a registered listener overrides the method (a proxy or a forwarding listener always does). */
    private boolean overridden(String method, Class<?>... parameterTypes) {
        for (HttpClientListener listener : listeners) {
            if (overrides(listener, method, parameterTypes)) {
                return true;
            }
        }
        return false;
    }

    private static boolean overrides(HttpClientListener listener, String method, Class<?>... parameterTypes) {
        try {
            return listener.getClass().getMethod(method, parameterTypes).getDeclaringClass()
                    != HttpClientListener.class;
        } catch (NoSuchMethodException e) {
            throw new AssertionError("HttpClientListener declares " + method, e);
        }
    }

    /**
     * Tells every listener the client it was added to; not guarded, so a listener may fail
     * {@code build()} (see {@link HttpClientListener#onClientBuilt}).
     */
    public void clientBuilt(ResilientHttpClient client) {
        for (HttpClientListener listener : listeners) {
            listener.onClientBuilt(client);
        }
    }

    @Override
    public void onAttemptStarted(String correlationId, String dependency, int attempt) {
        for (HttpClientListener listener : listeners) {
            try {
                listener.onAttemptStarted(correlationId, dependency, attempt);
            } catch (Throwable e) {
                failed(listener, e);
            }
        }
    }

    /**
     * Whether nothing observes an attempt before its breaker decides: no listener of attempt starts,
     * decisions or rejections (a circuit-open rejection has no log line of its own). Then a rejected
     * call may skip building the call altogether ({@link #rejectedBeforeCall} reports its
     * plain-number ends).
     */
    boolean quiet() {
        return !starts && !decisions && !rejections && !anyEndsWithId && observer == null;
    }

    /**
     * Logs the first circuit-open rejection of an open period, once: the rejections that follow are
     * counted ({@link dev.ballast.http.DependencyStatus#circuitOpenRejections()}), not logged.
     */
    static void firstRejectionOfOpenPeriod(String dependency, CircuitOpenException rejection) {
        LOG.info(
                "circuit breaker open dependency={} rejects calls without sending them for the next {} ms;"
                        + " further rejections in this open period are counted (circuitOpenRejections), not logged",
                dependency,
                rejection.remainingOpenTime().toMillis());
    }

    /**
     * The first attempt of a call that was not built ({@link #quiet()}) was refused by the open
     * breaker: the only events anyone receives are the plain-number ends, sent without building
     * anything.
     *
     * @param callStartNanos the ticker reading when the call started
     */
    void rejectedBeforeCall(Dependency dependency, long callStartNanos, Ticker ticker) {
        if (!ends) {
            return;
        }
        long callNanos = ticker.read() - callStartNanos;
        String name = dependency.name();
        for (HttpClientListener listener : listeners) {
            try {
                listener.onAttemptEnded(name, 1, Outcome.PERMANENT, RetryDecision.REJECTED, 0);
                listener.onCallEnded(name, 1, Outcome.PERMANENT, RetryDecision.REJECTED, callNanos);
            } catch (Throwable e) {
                failed(listener, e);
            }
        }
    }

    void attemptStarted(Call call, int attempt) {
        if (starts) {
            onAttemptStarted(call.correlationId(), call.dependency.name(), attempt);
        }
    }

    /**
     * The level of a decision's log line, or {@code null} for none; {@code retried} is whether the
     * call has retried (a hedged attempt is no retry).
     */
    private static @Nullable Level level(AttemptOutcome o, boolean retried) {
        return switch (o.decision()) {
            case GAVE_UP -> Level.WARN;
            case REJECTED -> o.stop() == StopReason.CIRCUIT_OPEN ? null : Level.DEBUG;
            case SUCCEEDED -> retried ? Level.INFO : Level.DEBUG;
            case ABORTED ->
                o.stop() == StopReason.OTHER_ATTEMPT_IN_FLIGHT
                                || !retried && o.stop() == StopReason.NOT_RETRYABLE && o.response() != null
                        ? Level.DEBUG
                        : Level.INFO;
            default -> Level.INFO;
        };
    }

    private static boolean enabled(@Nullable Level level) {
        return level != null
                && switch (level) {
                    case WARN -> LOG.isWarnEnabled();
                    case INFO -> LOG.isInfoEnabled();
                    default -> LOG.isDebugEnabled();
                };
    }

    /** The decision about an attempt rejected without any network call. */
    void decision(Call call, AttemptOutcome o) {
        decision(call, o, NO_EXCHANGE);
    }

    /**
     * The decision about an attempt.
     *
     * @param exchangeStartNanos the ticker reading when its exchange started, or {@link #NO_EXCHANGE}
     */
    void decision(Call call, AttemptOutcome o, long exchangeStartNanos) {
        RetryDecision decision = o.decision();
        Level level = level(o, call.retried);
        boolean log = enabled(level);
        CallContext context = call.context;
        boolean observed = context != null && context.observed();
        if (!log && !decisions && !ends && !observed) {
            return;
        }
        long now = call.ticker().read();
        if (log || decisions || observed) {
            RetryDecisionEvent e = event(call, o, decision, log ? level : null, now);
            if (observed) {
                context.decided(e, o, exchangeStartNanos != NO_EXCHANGE);
            }
        }
        if (ends) {
            ended(
                    call,
                    o,
                    decision,
                    exchangeStartNanos == NO_EXCHANGE ? 0 : now - exchangeStartNanos,
                    now - call.startNanos);
        }
    }

    private void ended(Call call, AttemptOutcome o, RetryDecision decision, long attemptNanos, long callNanos) {
        String dependency = call.dependency.name();
        String id = anyEndsWithId ? call.correlationId() : null;
        for (int i = 0; i < listeners.length; i++) {
            HttpClientListener listener = listeners[i];
            try {
                if (id != null && endsWithId[i]) {
                    listener.onAttemptEnded(id, dependency, o.attempt(), o.outcome(), decision, attemptNanos);
                } else {
                    listener.onAttemptEnded(dependency, o.attempt(), o.outcome(), decision, attemptNanos);
                }
            } catch (Throwable e) {
                failed(listener, e);
            }
        }
        if (o.retry()) {
            return;
        }
        for (int i = 0; i < listeners.length; i++) {
            HttpClientListener listener = listeners[i];
            try {
                if (id != null && endsWithId[i]) {
                    listener.onCallEnded(id, dependency, o.attempt(), o.outcome(), decision, callNanos);
                } else {
                    listener.onCallEnded(dependency, o.attempt(), o.outcome(), decision, callNanos);
                }
            } catch (Throwable e) {
                failed(listener, e);
            }
        }
    }

    /** Builds the decision event; logs it at {@code level} unless that is null, and hands it to the listeners. */
    private RetryDecisionEvent event(
            Call call, AttemptOutcome o, RetryDecision decision, @Nullable Level level, long now) {
        int status = o.response() != null ? o.response().statusCode() : o.status();
        RetryDecisionEvent e = new RetryDecisionEvent(
                call.correlationId(),
                call.dependency.name(),
                call.request.method(),
                call.path(),
                o.attempt(),
                call.maxAttempts(),
                Duration.ofNanos(now - call.startNanos),
                Duration.ofNanos(o.delayNanos()),
                o.failure() == null ? null : o.failure().getClass().getName(),
                status,
                decision,
                o.reason());
        if (level != null) {
            String format = "http retry decision correlationId={} dependency={} method={} path={} attempt={}"
                    + " maxAttempts={} elapsedMs={} delayMs={} errorClass={} status={} outcome={} reason=\"{}\"";
            Object[] args = {
                e.correlationId(),
                e.dependency(),
                e.method(),
                e.path(),
                e.attempt(),
                e.maxAttempts(),
                e.elapsed().toMillis(),
                e.delay().toMillis(),
                e.errorClass() == null ? "-" : e.errorClass(),
                e.statusCode() < 0 ? "-" : e.statusCode(),
                decision.logName(),
                e.reason()
            };
            switch (level) {
                case WARN -> LOG.warn(format, args);
                case INFO -> LOG.info(format, args);
                default -> LOG.debug(format, args);
            }
        }
        if (decisions) {
            onRetryDecision(e);
        }
        return e;
    }

    @Override
    public void onRetryDecision(RetryDecisionEvent event) {
        for (HttpClientListener listener : listeners) {
            try {
                listener.onRetryDecision(event);
            } catch (Throwable e) {
                failed(listener, e);
            }
        }
    }

    /** A hedged attempt is sent; one DEBUG line, since hedging happens at the rate of slow calls. */
    void hedged(Call call, int attempt, long waitedNanos) {
        if (LOG.isDebugEnabled()) {
            LOG.debug(
                    "http hedge correlationId={} dependency={} method={} path={} attempt={} afterMs={}",
                    call.correlationId(),
                    call.dependency.name(),
                    call.request.method(),
                    call.path(),
                    attempt,
                    Durations.toMillis(waitedNanos));
        }
        if (listeners.length > 0) {
            onHedge(call.correlationId(), call.dependency.name(), attempt, Duration.ofNanos(waitedNanos));
        }
        CallContext context = call.context;
        if (context != null) {
            context.hedgeStarted(attempt, waitedNanos);
        }
    }

    @Override
    public void onHedge(String correlationId, String dependency, int attempt, Duration delay) {
        for (HttpClientListener listener : listeners) {
            try {
                listener.onHedge(correlationId, dependency, attempt, delay);
            } catch (Throwable e) {
                failed(listener, e);
            }
        }
    }

    void rejected(Call call, CallRejectedException rejection) {
        if (rejections) {
            onRejected(call.correlationId(), call.dependency.name(), rejection);
        }
    }

    @Override
    public void onRejected(String correlationId, String dependency, CallRejectedException rejection) {
        for (HttpClientListener listener : listeners) {
            try {
                listener.onRejected(correlationId, dependency, rejection);
            } catch (Throwable e) {
                failed(listener, e);
            }
        }
    }

    @Override
    public void onBreakerStateTransition(String dependency, BreakerState from, BreakerState to) {
        if (to == BreakerState.OPEN) {
            LOG.warn("circuit breaker transition dependency={} from={} to={}", dependency, from, to);
        } else {
            LOG.info("circuit breaker transition dependency={} from={} to={}", dependency, from, to);
        }
        for (HttpClientListener listener : listeners) {
            try {
                listener.onBreakerStateTransition(dependency, from, to);
            } catch (Throwable e) {
                failed(listener, e);
            }
        }
    }

    @Override
    public void onDependencyEvicted(String dependency) {
        for (HttpClientListener listener : listeners) {
            try {
                listener.onDependencyEvicted(dependency);
            } catch (Throwable e) {
                failed(listener, e);
            }
        }
    }

    /**
     * A listener threw: logged, never propagated. A listener must never change the outcome of a call,
     * and a failure thrown into the pipeline on a completion thread would leave the call's future
     * incomplete (and {@code close()} waiting for it). That holds for an {@code Error} too (a
     * {@code NoClassDefFoundError} of a metrics class missing at run time, a {@code StackOverflowError}
     * of a recursive listener), logged at ERROR, and for a {@link VirtualMachineError} (out of memory):
     * the call still ends, and the JVM's condition is left to whatever meets it next.
     */
    private static void failed(HttpClientListener listener, Throwable e) {
        try {
            if (e instanceof Error) {
                LOG.error(
                        "HttpClientListener {} threw {}; the call goes on without that listener's callback",
                        listener.getClass().getName(),
                        e.getClass().getName(),
                        e);
            } else {
                LOG.warn(
                        "HttpClientListener {} threw {}",
                        listener.getClass().getName(),
                        e.getClass().getName(),
                        e);
            }
        } catch (Throwable logFailure) {
            // Logging failed too (out of memory, a broken appender): the call must still go on.
        }
    }
}
