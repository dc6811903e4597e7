package dev.ballast.http.breaker;

/**
 * Receives circuit-breaker events. Every method has a no-op default, so an implementation overrides
 * only what it needs.
 *
 * <p>Methods are called synchronously, while the breaker's internal lock is held, so that a listener
 * sees the transitions of one breaker exactly once and in order: keep them short, do not block and do
 * not call back into the same breaker from another thread. An exception thrown by a listener is logged
 * and otherwise ignored; it never changes the breaker's state.
 */
public interface BreakerListener {

    /** The listener that ignores every event. */
    BreakerListener NONE = new BreakerListener() {
    };

    /**
     * Called once for each state transition of a breaker.
     *
     * @param dependency the breaker's dependency key
     * @param from       the state before the transition
     * @param to         the state after the transition; never equal to {@code from}
     */
    default void onStateTransition(String dependency, BreakerState from, BreakerState to) {
    }
}
