package dev.ballast.storage.object.s3.transport;

import dev.ballast.http.ReplayableBodyPublisher;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpRequest.BodyPublishers;
import java.util.Optional;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;

/**
 * Workaround: how the SDK's request content becomes a {@code java.net.http} body, since the JDK
 * frames the body itself and takes no {@code Content-Length} or {@code Expect} header from callers
 * (see {@link RestrictedHeaders}).
 * <ul>
 *   <li>A known length goes through {@link BodyPublishers#fromPublisher(java.util.concurrent.Flow.Publisher, long)},
 *       so exactly that {@code Content-Length} is sent (signed by SigV4, never chunked) and the exchange
 *       fails if the content yields more or fewer bytes. Without a length the JDK uses chunked
 *       transfer coding (RFC 9112 section 7.1).</li>
 *   <li>Content is never buffered: every subscription opens a fresh stream from the SDK's
 *       {@link ContentStreamProvider}. The JDK subscribes once per transmission, so a layer below
 *       that re-sends the same request (a retry in {@code ResilientHttpClient}) sends the content from
 *       its first byte, and the body is a {@link ReplayableBodyPublisher}, which tells
 *       {@code ResilientHttpClient} it may be re-sent.</li>
 *   <li>A zero length sends {@code Content-Length: 0} and no content. GET and DELETE without a length
 *       use the JDK's bodiless forms, which send no length on JDK 19 and later. HEAD has no bodiless
 *       form in the Java 17 API ({@code HttpRequest.Builder.HEAD()} arrived in Java 18), so a HEAD may
 *       carry an unsigned {@code Content-Length: 0}, which servers accept.</li>
 *   <li>{@code Expect: 100-continue} (RFC 9110 section 10.1.1), which the SDK puts on every
 *       PutObject and UploadPart, is dropped: the JDK is never asked for it
 *       ({@link HttpRequest.Builder#expectContinue(boolean)} stays off). A client may always send
 *       the content without the expectation, and the JDK's handling of it breaks uploads: after the
 *       first {@code 100 Continue} it takes the next response head as final, so a server that sends
 *       a second interim response (Werkzeug, under {@code moto_server}, writes {@code 100 Continue}
 *       twice) answers every large upload with "HTTP 100" (RFC 9110 section 15.2: a 1xx is never an
 *       answer); JDK 17 waits for the {@code 100 Continue} without any bound of its own (JDK 25: 5 s)
 *       on a server or proxy that never sends one; and a {@code 417 Expectation Failed} is not
 *       repeated without the expectation (section 10.1.1 says it should be). What the expectation
 *       would save is the content of a request refused on its headers alone: such a refusal still
 *       comes back as its status (the JDK hands over an answer that arrives while it sends, see
 *       {@link ErrorBodies}), only after more bytes were sent.</li>
 * </ul>
 * Stateless.
 */
final class RequestBodies {
    private RequestBodies() {}

    /**
     * Sets the method and body of {@code target} for {@code request}.
     *
     * @param nonIdempotentEffect whether to mark the body so the layer below never repeats the request
     * @throws IllegalArgumentException if {@code Content-Length} is not a non-negative number, or is
     *     positive while there is no content
     */
    static void apply(
            SdkHttpRequest request,
            Optional<ContentStreamProvider> content,
            boolean nonIdempotentEffect,
            HttpRequest.Builder target) {
        long contentLength = contentLength(request);
        SdkHttpMethod method = request.method();
        if (contentLength == 0 || content.isEmpty()) {
            if (contentLength > 0) {
                throw new IllegalArgumentException(
                        "Content-Length is " + contentLength + " but the request has no content to send");
            }
            bodiless(target, method, contentLength == 0, nonIdempotentEffect);
            return;
        }
        ReplayableBodyPublisher body = replayable(content.get(), contentLength);
        target.method(method.name(), nonIdempotentEffect ? body.nonIdempotent() : body);
    }

    private static void bodiless(
            HttpRequest.Builder target, SdkHttpMethod method, boolean explicitZero, boolean nonIdempotentEffect) {
        if (nonIdempotentEffect) {
            target.method(
                    method.name(),
                    ReplayableBodyPublisher.ofSupplier(BodyPublishers::noBody, 0)
                            .nonIdempotent());
            return;
        }
        if (!explicitZero && method == SdkHttpMethod.GET) {
            target.GET();
        } else if (!explicitZero && method == SdkHttpMethod.DELETE) {
            target.DELETE();
        } else {
            target.method(method.name(), BodyPublishers.noBody());
        }
    }

    private static ReplayableBodyPublisher replayable(ContentStreamProvider provider, long contentLength) {
        // BodyPublishers.ofInputStream calls its supplier once per subscription and closes the stream at
        // its end; the fixed-length wrapper makes the JDK send exactly contentLength as Content-Length.
        return ReplayableBodyPublisher.ofSupplier(
                () -> {
                    BodyPublisher stream = BodyPublishers.ofInputStream(provider::newStream);
                    return contentLength < 0 ? stream : BodyPublishers.fromPublisher(stream, contentLength);
                },
                contentLength < 0 ? -1 : contentLength);
    }

    private static long contentLength(SdkHttpRequest request) {
        Optional<String> header = request.firstMatchingHeader("Content-Length");
        if (header.isEmpty()) {
            return -1;
        }
        String value = header.get().trim();
        try {
            long length = Long.parseLong(value);
            if (length >= 0) {
                return length;
            }
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "Content-Length must be a non-negative decimal number but was '" + value + "'", e);
        }
        throw new IllegalArgumentException(
                "Content-Length must be a non-negative decimal number but was '" + value + "'");
    }
}
