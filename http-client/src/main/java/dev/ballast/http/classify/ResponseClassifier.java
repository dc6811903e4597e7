package dev.ballast.http.classify;

import java.net.http.HttpHeaders;

/**
 * Sorts the result of one attempt into an {@link Outcome}. The pipeline calls it once per attempt:
 * {@link #classifyResponse} when the dependency answered (or {@link #classifyKeyedResponse} when the
 * request carries an idempotency key), {@link #classifyFailure} when the attempt ended with an
 * exception.
 *
 * <p>A classifier reads the status code and headers only, never the body: the body may not have
 * been read yet, may be huge, and may be empty or HTML on exactly the errors that matter.
 *
 * <p>Implementations must be thread-safe and must not throw; they are called on the request path.
 */
public interface ResponseClassifier {

    /**
     * Classifies an HTTP response.
     *
     * @param statusCode the response status code, for example {@code 503}
     * @param headers    the response headers
     * @return the outcome
     */
    Outcome classifyResponse(int statusCode, HttpHeaders headers);

    /**
     * Classifies an HTTP response to a request that carries an idempotency key
     * (draft-ietf-httpapi-idempotency-key-header), whose protocol gives some statuses a meaning of
     * their own: a 409 Conflict says an earlier request with the same key is still being processed.
     * The default implementation is {@link #classifyResponse(int, HttpHeaders)}.
     *
     * @param statusCode the response status code, for example {@code 409}
     * @param headers    the response headers
     * @return the outcome
     */
    default Outcome classifyKeyedResponse(int statusCode, HttpHeaders headers) {
        return classifyResponse(statusCode, headers);
    }

    /**
     * Classifies an attempt that ended with an exception instead of a response. Implementations walk
     * the cause chain: the JDK wraps the informative exception (for example a
     * {@code CertificateException} inside an {@code SSLHandshakeException}, or a
     * {@code ConnectException} inside a {@code CompletionException}).
     *
     * @param failure the exception
     * @return the outcome; never {@link Outcome#SUCCESS} for the default table
     */
    Outcome classifyFailure(Throwable failure);

    /**
     * Returns the documented default table, {@link ClassificationTable#ofDefaults()}.
     *
     * @return the default classifier
     */
    static ResponseClassifier ofDefaults() {
        return ClassificationTable.ofDefaults();
    }
}
