package dev.ballast.http.internal;

import dev.ballast.http.InterimResponseException;
import java.net.http.HttpResponse.BodySubscriber;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * What becomes of a 1xx response the wrapped client hands over as final (see
 * {@link InterimResponseException}): RFC 9110 §15.2 makes every 1xx interim, never the answer to a
 * request. Stateless.
 */
final class InterimResponses {

    private InterimResponses() {}

    /** Whether {@code statusCode} is an interim (informational) one, RFC 9110 §15.2. */
    static boolean isInterim(int statusCode) {
        return statusCode >= 100 && statusCode < 200;
    }

    /**
     * A body subscriber that reads nothing: it cancels the body at once (the JDK then closes an
     * HTTP/1.1 connection, whose next bytes are the real answer, instead of reusing it) and fails the
     * exchange with {@code failure}.
     */
    static <T> BodySubscriber<T> refusing(InterimResponseException failure) {
        return new Refusing<>(failure);
    }

    private static final class Refusing<T> implements BodySubscriber<T> {
        private final CompletableFuture<T> body = new CompletableFuture<>();
        private final InterimResponseException failure;

        Refusing(InterimResponseException failure) {
            this.failure = failure;
            body.completeExceptionally(failure);
        }

        @Override
        public CompletionStage<T> getBody() {
            return body;
        }

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            subscription.cancel();
        }

        @Override
        public void onNext(List<ByteBuffer> item) {}

        @Override
        public void onError(Throwable throwable) {}

        @Override
        public void onComplete() {}

        @Override
        public String toString() {
            return "InterimResponses.Refusing[" + failure.statusCode() + "]";
        }
    }
}
