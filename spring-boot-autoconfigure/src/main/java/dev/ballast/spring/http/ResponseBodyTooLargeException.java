package dev.ballast.spring.http;

/**
 * A response body longer than {@link BallastClientHttpRequestFactory.Builder#maxBufferedResponseBytes(long)}
 * allows with {@link BallastClientHttpRequestFactory.ResponseBody#BUFFERED}. It is the caller's limit,
 * not a failure of the dependency: the call is not retried and the circuit breaker does not count it.
 * Spring sees it as the cause of the {@link java.io.IOException} the request fails with (RestClient and
 * RestTemplate: a {@code ResourceAccessException}).
 */
public final class ResponseBodyTooLargeException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    ResponseBodyTooLargeException(String message) {
        super(message);
    }
}
