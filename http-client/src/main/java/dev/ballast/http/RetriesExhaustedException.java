package dev.ballast.http;

import java.io.IOException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Thrown by {@link ResilientHttpClient} when every permitted attempt of one logical call ended in an
 * exception (no attempt produced an HTTP response) and the retry layer gave up: attempts ran out,
 * the retry budget was empty, or the next backoff would have overrun the total timeout.
 *
 * <p>Every attempt's failure is attached with {@link #addSuppressed(Throwable)} in attempt order, so
 * {@code getSuppressed()[0]} is the failure of attempt 1; the last one is also the {@linkplain
 * #getCause() cause}. If the last attempt produced a response, the client returns that response
 * instead of throwing (a drop-in {@code HttpClient} does not throw on status codes).
 *
 * <p>Immutable after construction and thread-safe to read.
 */
public final class RetriesExhaustedException extends IOException {

    private static final long serialVersionUID = 1L;

    private final String dependency;
    private final int attempts;

    /**
     * Creates the exception.
     *
     * @param dependency the dependency key the call was made to, e.g. {@code "https://api.example.com:443"}
     * @param attempts the number of attempts that ran, {@code >= 1}
     * @param reason why the retry layer stopped, e.g. {@code "attempts exhausted"}
     * @param failures every attempt's failure in attempt order; must not be empty
     * @throws NullPointerException if {@code dependency}, {@code reason} or {@code failures} is null
     * @throws IllegalArgumentException if {@code attempts < 1} or {@code failures} is empty
     */
    public RetriesExhaustedException(
            String dependency, int attempts, String reason, List<? extends Throwable> failures) {
        super(message(dependency, attempts, reason, failures), last(failures));
        this.dependency = dependency;
        this.attempts = attempts;
        for (Throwable failure : failures) {
            addSuppressed(failure);
        }
    }

    private static String message(String dependency, int attempts, String reason, List<? extends Throwable> failures) {
        Objects.requireNonNull(dependency, "dependency");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(failures, "failures");
        if (attempts < 1) {
            throw new IllegalArgumentException("attempts must be >= 1 but was " + attempts);
        }
        if (failures.isEmpty()) {
            throw new IllegalArgumentException("failures must not be empty");
        }
        Throwable last = last(failures);
        return "Call to dependency '" + dependency + "' failed after " + attempts
                + (attempts == 1 ? " attempt" : " attempts") + " (" + reason + "); last failure: "
                + last.getClass().getName() + (last.getMessage() == null ? "" : ": " + last.getMessage());
    }

    private static Throwable last(List<? extends Throwable> failures) {
        return failures.get(failures.size() - 1);
    }

    /**
     * Returns the dependency key the call was made to.
     *
     * @return the dependency key
     */
    public String dependency() {
        return dependency;
    }

    /**
     * Returns how many attempts ran, including the first.
     *
     * @return the attempt count, {@code >= 1}
     */
    public int attempts() {
        return attempts;
    }

    /**
     * Returns the correlation id of the call that ended with this exception, as its log lines and
     * listener events carry it ({@link CorrelationIds#of(Throwable)}).
     *
     * @return the id, or empty if this exception did not end a call of a {@link ResilientHttpClient}
     */
    public Optional<String> correlationId() {
        return CorrelationIds.of(this);
    }
}
