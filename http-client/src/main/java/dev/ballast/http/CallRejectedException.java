package dev.ballast.http;

import java.io.IOException;
import java.util.Objects;
import java.util.Optional;

/**
 * A call that Ballast rejected before any network I/O: nothing was sent to the dependency.
 *
 * <p>It is an {@link IOException} so that {@code HttpClient.send} keeps the JDK's checked-exception
 * contract. A rejection is never retried (it is classified
 * {@link dev.ballast.http.classify.Outcome#PERMANENT}) and is never recorded on a circuit breaker:
 * retrying it would only hammer the very protection that produced it.
 *
 * <p>Rejections are cheap, because an open circuit may reject thousands of calls a second: like
 * resilience4j's {@code CallNotPermittedException}, a rejection carries no stack trace (the
 * message names the dependency, which is what tells callers apart), and its message is built only
 * when {@link #getMessage()} is called. Suppressed exceptions (earlier attempts of the same call)
 * are kept.
 *
 * <p>The hierarchy is sealed: a rejection is a {@link CircuitOpenException}, a
 * {@link BulkheadFullException} or a {@link ConcurrencyLimitExceededException}, so callers can switch
 * over it exhaustively.
 */
public abstract sealed class CallRejectedException extends IOException
        permits CircuitOpenException, BulkheadFullException, ConcurrencyLimitExceededException {

    private static final long serialVersionUID = 1L;

    /** The dependency key whose protection rejected the call. */
    private final String dependency;

    CallRejectedException(String dependency) {
        super((String) null);
        this.dependency = Objects.requireNonNull(dependency, "dependency");
    }

    /**
     * Returns the dependency key whose protection rejected the call, for example
     * {@code "https://api.example.com:443"}.
     *
     * @return the dependency key
     */
    public String dependency() {
        return dependency;
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

    /**
     * Returns the message, built on first use from the rejection's fields.
     *
     * @return the message
     */
    @Override
    public abstract String getMessage();

    /**
     * Does not fill in a stack trace: a rejection is an expected, frequent outcome whose cause is
     * the dependency's state, not the calling code.
     *
     * @return this exception
     */
    @Override
    public final Throwable fillInStackTrace() {
        return this;
    }
}
