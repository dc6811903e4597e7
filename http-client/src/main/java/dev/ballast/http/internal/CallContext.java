package dev.ballast.http.internal;

import dev.ballast.http.CallObserver;
import dev.ballast.http.CallObserver.AttemptDecision;
import dev.ballast.http.CallObserver.Observation;
import dev.ballast.http.CallObserver.Scope;
import dev.ballast.http.HttpClientListener.RetryDecisionEvent;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * What a call carries onto the threads that run its steps: the caller's SLF4J MDC (for
 * {@code sendAsync} and hedged calls, whose steps run on executor, scheduler and completion threads)
 * and the {@link CallObserver}'s observation of the call. A call has one only when there is something
 * to carry: without an observer and with an empty MDC, {@link Call#context} stays {@code null} and no
 * step pays for any of this.
 *
 * <p>Every observation callback is guarded: what it throws is logged and the call goes on.
 */
final class CallContext {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ballast.http.ResilientHttpClient");

    private final @Nullable Observation observation;
    /** Whether the observation takes the attempt events ({@link Observation#observesAttemptEvents()}). */
    private final boolean attemptEvents;
    /** The caller's MDC at {@code sendAsync}, or {@code null} when it was empty or the call runs on the caller's thread. */
    private final @Nullable Map<String, String> mdc;
    /** The thread that started the call, whose MDC is the caller's own already. */
    private final Thread caller = Thread.currentThread();

    private CallContext(@Nullable Observation observation, @Nullable Map<String, String> mdc) {
        this.observation = observation;
        this.attemptEvents = observation != null && attemptEvents(observation);
        this.mdc = mdc;
    }

    private static boolean attemptEvents(Observation observation) {
        try {
            return observation.observesAttemptEvents();
        } catch (Throwable e) {
            failed("observesAttemptEvents", e);
            return true;
        }
    }

    /**
     * Gives {@code call} its context, if it needs one; on the caller's thread, before the call's first
     * step.
     *
     * @param async whether the call's steps may run on other threads than the caller's
     * @throws RuntimeException what the observer's {@code callStarted} threw
     */
    static void attach(Call call, @Nullable CallObserver observer, boolean async) {
        Observation observation = null;
        if (observer != null) {
            observation = observer.callStarted(
                    new CallObserver.CallStart(call.correlationId(), call.dependency.name(), call.request, async));
        }
        Map<String, String> mdc = async ? MDC.getCopyOfContextMap() : null;
        if (mdc != null && mdc.isEmpty()) {
            mdc = null;
        }
        if (observation != null || mdc != null) {
            call.context = new CallContext(observation, mdc);
        }
    }

    /** Opens the call's scope on this thread: {@code call}'s, or none if it has no context. */
    static Scope enter(Call call) {
        CallContext context = call.context;
        return context == null ? Scope.NONE : context.enter();
    }

    private Scope enter() {
        Scope observed = Scope.NONE;
        if (observation != null) {
            try {
                observed = observation.makeCurrent();
            } catch (Throwable e) {
                failed("makeCurrent", e);
            }
        }
        Map<String, String> carried = mdc;
        if (carried == null || Thread.currentThread() == caller) {
            return observed;
        }
        Map<String, String> previous = MDC.getCopyOfContextMap();
        MDC.setContextMap(carried);
        Scope inner = observed;
        return () -> {
            if (previous == null || previous.isEmpty()) {
                MDC.clear();
            } else {
                MDC.setContextMap(previous);
            }
            close(inner);
        };
    }

    private static void close(Scope scope) {
        try {
            scope.close();
        } catch (Throwable e) {
            failed("Scope.close", e);
        }
    }

    /** The request attempt {@code attempt} sends: the observation may have added headers. */
    static HttpRequest sending(Call call, int attempt, HttpRequest request) {
        CallContext context = call.context;
        if (context == null || context.observation == null) {
            return request;
        }
        try {
            HttpRequest sent = context.observation.attemptSending(attempt, request);
            return sent == null ? request : sent;
        } catch (Throwable e) {
            failed("attemptSending", e);
            return request;
        }
    }

    void decided(RetryDecisionEvent event, AttemptOutcome outcome, boolean sent) {
        Observation observed = observation;
        if (!attemptEvents || observed == null) {
            return;
        }
        try {
            observed.attemptDecided(new AttemptDecision(event, outcome.failure(), outcome.retryAfter(), sent));
        } catch (Throwable e) {
            failed("attemptDecided", e);
        }
    }

    void hedgeStarted(int attempt, long waitedNanos) {
        Observation observed = observation;
        if (!attemptEvents || observed == null) {
            return;
        }
        try {
            observed.hedgeStarted(attempt, Duration.ofNanos(waitedNanos));
        } catch (Throwable e) {
            failed("hedgeStarted", e);
        }
    }

    static void attemptCancelled(Call call, int attempt) {
        CallContext context = call.context;
        if (context == null || !context.attemptEvents || context.observation == null) {
            return;
        }
        try {
            context.observation.attemptCancelled(attempt);
        } catch (Throwable e) {
            failed("attemptCancelled", e);
        }
    }

    static void ended(Call call, @Nullable HttpResponse<?> response, @Nullable Throwable failure) {
        CallContext context = call.context;
        if (context == null || context.observation == null) {
            return;
        }
        try {
            context.observation.callEnded(response, failure);
        } catch (Throwable e) {
            failed("callEnded", e);
        }
    }

    /** Whether the observation takes the attempt events: then each decision builds its event for it. */
    boolean observed() {
        return attemptEvents;
    }

    private static void failed(String method, Throwable e) {
        try {
            LOG.warn(
                    "CallObserver {} threw {}; the call goes on",
                    method,
                    e.getClass().getName(),
                    e);
        } catch (Throwable logFailure) {
            // the call must go on
        }
    }
}
