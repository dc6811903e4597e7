package dev.ballast.http;

/**
 * Thrown instead of sending a request when the dependency's adaptive concurrency limit
 * ({@link dev.ballast.http.limit.ConcurrencyLimitConfig}) had as many attempts in flight as its
 * latency allows now. Nothing was sent. Like every {@link CallRejectedException} it has no stack
 * trace and builds its message lazily, for example
 * {@code Concurrency limit of 'https://api.example.com:443' reached: 20 attempts in flight, as many as its latency allows now}.
 *
 * <p>The limit came down because the dependency's median latency more than doubled (by default)
 * while calls piled up: it is queueing, and more calls would only wait in its queue. Shed the load
 * or degrade; the limit grows back as soon as the latency holds.
 */
public final class ConcurrencyLimitExceededException extends CallRejectedException {

    private static final long serialVersionUID = 1L;

    /** The limit at the time of the rejection. */
    private final int limit;

    /**
     * Creates the exception.
     *
     * @param dependency the dependency key
     * @param limit      the limit at the time of the rejection; at least 1
     * @throws NullPointerException     if {@code dependency} is {@code null}
     * @throws IllegalArgumentException if {@code limit} is below 1
     */
    public ConcurrencyLimitExceededException(String dependency, int limit) {
        super(dependency);
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be >= 1 but was " + limit);
        }
        this.limit = limit;
    }

    @Override
    public String getMessage() {
        return "Concurrency limit of '" + dependency() + "' reached: " + limit
                + " attempts in flight, as many as its latency allows now";
    }

    /**
     * Returns the limit at the time of the rejection.
     *
     * @return the limit; at least 1
     */
    public int limit() {
        return limit;
    }
}
