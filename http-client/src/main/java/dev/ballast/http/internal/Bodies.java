package dev.ballast.http.internal;

import java.io.InputStream;
import java.net.http.HttpResponse;
import java.util.concurrent.Flow;

/** Disposal of response bodies that will never reach a caller. Stateless. */
final class Bodies {

    private Bodies() {}

    /** Closes or cancels the body of a response nobody will read, so its connection is released. */
    static void discard(HttpResponse<?> response) {
        Object body = response.body();
        try {
            if (body instanceof InputStream stream) {
                stream.close();
            } else if (body instanceof AutoCloseable closeable) {
                closeable.close();
            } else if (body instanceof Flow.Publisher<?> publisher) {
                publisher.subscribe(CancellingSubscriber.INSTANCE);
            }
        } catch (Exception e) {
            // Closing a body nobody will read can only fail with the connection already gone; nothing to do.
        }
    }

    /** Cancels a publisher body that will never be read, releasing its connection. */
    private enum CancellingSubscriber implements Flow.Subscriber<Object> {
        INSTANCE;

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            subscription.cancel();
        }

        @Override
        public void onNext(Object item) {}

        @Override
        public void onError(Throwable throwable) {}

        @Override
        public void onComplete() {}
    }
}
