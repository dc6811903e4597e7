package dev.ballast.it.http;

import dev.ballast.http.CallRejectedException;
import dev.ballast.http.HttpClientListener;
import dev.ballast.http.RetryDecision;
import dev.ballast.http.breaker.BreakerState;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Records every event the client reports, so tests can compare our attempt counts with the server's. */
final class RecordingListener implements HttpClientListener {

    final AtomicInteger attemptsStarted = new AtomicInteger();
    final List<RetryDecisionEvent> decisions = new CopyOnWriteArrayList<>();
    final List<String> transitions = new CopyOnWriteArrayList<>();
    final List<CallRejectedException> rejections = new CopyOnWriteArrayList<>();
    private volatile CountDownLatch retrying = new CountDownLatch(1);

    @Override
    public void onAttemptStarted(String correlationId, String dependency, int attempt) {
        attemptsStarted.incrementAndGet();
    }

    @Override
    public void onRetryDecision(RetryDecisionEvent event) {
        decisions.add(event);
        if (event.decision() == RetryDecision.RETRYING) {
            retrying.countDown();
        }
    }

    @Override
    public void onBreakerStateTransition(String dependency, BreakerState from, BreakerState to) {
        transitions.add(from + "->" + to);
    }

    @Override
    public void onRejected(String dependency, CallRejectedException rejection) {
        rejections.add(rejection);
    }

    /** Waits (bounded) for the first {@code RETRYING} decision. */
    boolean awaitRetrying() throws InterruptedException {
        return retrying.await(10, TimeUnit.SECONDS);
    }

    RetryDecisionEvent lastDecision() {
        return decisions.get(decisions.size() - 1);
    }
}
