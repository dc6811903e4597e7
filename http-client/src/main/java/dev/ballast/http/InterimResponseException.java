package dev.ballast.http;

import java.net.ProtocolException;

/**
 * An attempt's failure when the wrapped client handed over a 1xx (informational) response as if it
 * were the answer to the request. RFC 9110 §15.2: a 1xx response is interim, sent before the final
 * response, and never the answer to a request; a client must be able to parse one or more of them
 * before the final response, even one it did not expect.
 *
 * <p>{@code java.net.http.HttpClient} (JDK 17 to 25) does so when a request asked for
 * {@code Expect: 100-continue} ({@code HttpRequest.Builder.expectContinue(true)}): after the first
 * {@code 100 Continue} it sends the body and takes the next response head as final, so a second
 * interim response (the Werkzeug server behind {@code moto_server} sends {@code 100 Continue} twice,
 * other servers send {@code 102 Processing} or {@code 103 Early Hints}) is returned as the response,
 * and one other than 100 before the body is taken as a failed expectation. Its "body" is then
 * whatever follows on the connection, the real answer included, so it is never read: the exchange is
 * cancelled (the JDK closes an HTTP/1.1 connection rather than reuse it) and the attempt fails with
 * this exception.
 *
 * <p>Whether the server acted on the request is unknown (it may have read the body and answered, as
 * {@code moto_server} does), so the default {@link dev.ballast.http.classify.ClassificationTable}
 * classifies it {@link dev.ballast.http.classify.Outcome#AMBIGUOUS AMBIGUOUS}: retried only for an
 * idempotent method (RFC 9110 §9.2.2) or a request carrying an idempotency key, with a body that can
 * be sent again, and never for a body marked {@code nonIdempotent()}. The call never ends with the
 * 1xx status as its response, and no breaker or listener sees it as one.
 */
public final class InterimResponseException extends ProtocolException {

    private static final long serialVersionUID = 1L;

    private final int statusCode;

    /**
     * Creates the exception.
     *
     * @param statusCode the interim status the wrapped client returned, 100 to 199
     * @param method the request's method
     * @param path the request's path, without its query
     * @throws IllegalArgumentException if {@code statusCode} is not 100 to 199
     */
    public InterimResponseException(int statusCode, String method, String path) {
        super(message(statusCode, method, path));
        this.statusCode = statusCode;
    }

    private static String message(int statusCode, String method, String path) {
        if (statusCode < 100 || statusCode > 199) {
            throw new IllegalArgumentException("statusCode must be between 100 and 199 but was " + statusCode);
        }
        return "the HTTP client returned the interim response " + statusCode + " as the answer to " + method
                + " " + path + " (RFC 9110 section 15.2: a 1xx response is never the answer to a request);"
                + " the server may or may not have processed the request";
    }

    /**
     * The interim status code the wrapped client returned as the response.
     *
     * @return 100 to 199
     */
    public int statusCode() {
        return statusCode;
    }
}
