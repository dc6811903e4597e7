package dev.ballast.spring.http;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.BodySubscribers;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * A whole response body read into memory, at most a limit. A body that declares its length gets the
 * JDK's own {@code ofByteArray} subscriber (which {@code ResilientHttpClient} passes through without a
 * thread hand-off); one without a {@code Content-Length} is counted as it arrives.
 */
final class LimitedBodies {

    private LimitedBodies() {}

    static BodyHandler<byte[]> ofByteArray(int maxBytes) {
        return info -> {
            OptionalLong declared = info.headers().firstValueAsLong("Content-Length");
            if (declared.isPresent()) {
                if (declared.getAsLong() > maxBytes) {
                    // Thrown by the caller's handler: the caller's limit, never retried or counted against the
                    // dependency.
                    throw tooLarge(declared.getAsLong() + " bytes", maxBytes);
                }
                return BodySubscribers.ofByteArray();
            }
            return new Counting(maxBytes);
        };
    }

    private static ResponseBodyTooLargeException tooLarge(String size, int maxBytes) {
        return new ResponseBodyTooLargeException(
                "response body of " + size + " exceeds maxBufferedResponseBytes (" + maxBytes
                        + " bytes); raise the limit or read it with ResponseBody.STREAMED"
                        + " (ballast.http.request-factory.response-body=streamed)");
    }

    private static final class Counting implements BodySubscriber<byte[]> {
        private final int maxBytes;
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private final CompletableFuture<byte[]> result = new CompletableFuture<>();

        Counting(int maxBytes) {
            this.maxBytes = maxBytes;
        }

        @Override
        public CompletionStage<byte[]> getBody() {
            return result;
        }

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            subscription.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(List<ByteBuffer> item) {
            if (result.isDone()) {
                return;
            }
            for (ByteBuffer buffer : item) {
                if ((long) bytes.size() + buffer.remaining() > maxBytes) {
                    ResponseBodyTooLargeException tooLarge = tooLarge("more than " + maxBytes + " bytes", maxBytes);
                    result.completeExceptionally(tooLarge);
                    // Thrown, so that the client sees the caller's own failure (not the dependency's) and
                    // cancels the exchange.
                    throw tooLarge;
                }
                byte[] chunk = new byte[buffer.remaining()];
                buffer.get(chunk);
                bytes.write(chunk, 0, chunk.length);
            }
        }

        @Override
        public void onError(Throwable throwable) {
            result.completeExceptionally(throwable);
        }

        @Override
        public void onComplete() {
            result.complete(bytes.toByteArray());
        }
    }
}
