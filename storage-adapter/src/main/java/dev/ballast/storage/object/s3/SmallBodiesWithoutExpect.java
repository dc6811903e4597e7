package dev.ballast.storage.object.s3;

import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;

/**
 * Takes {@code Expect: 100-continue} off requests whose body is at most {@link #MAX_BYTES}: the AWS
 * SDK adds it to every PutObject and UploadPart, and the client then sends the headers, waits for the
 * server's {@code 100 Continue} and only then the body, one more round trip per request. The header
 * only saves sending a body the server refuses on its headers alone (RFC 9110 section 10.1.1;
 * <a href="https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html">PutObject</a>: "If the
 * message is rejected based on the headers, the body of the message is not sent"), which for a small
 * body costs less than the round trip does for every accepted one: manifest parts, index files,
 * snapshots, run markers and block tables go without it, packs and their 8 MiB parts keep it. A
 * request without a {@code Content-Length} is left as it is. Stateless and thread-safe.
 */
final class SmallBodiesWithoutExpect implements ExecutionInterceptor {
    /** The largest body sent without waiting for {@code 100 Continue}: 1 MiB. */
    static final long MAX_BYTES = 1024 * 1024;

    @Override
    public SdkHttpRequest modifyHttpRequest(Context.ModifyHttpRequest context, ExecutionAttributes attributes) {
        return withoutExpectIfSmall(context.httpRequest());
    }

    static SdkHttpRequest withoutExpectIfSmall(SdkHttpRequest request) {
        if (request.firstMatchingHeader("Expect").isEmpty()) {
            return request;
        }
        long length;
        try {
            length = request.firstMatchingHeader("Content-Length")
                    .map(Long::parseLong)
                    .orElse(-1L);
        } catch (NumberFormatException e) {
            return request;
        }
        if (length < 0 || length > MAX_BYTES) {
            return request;
        }
        return request.toBuilder().removeHeader("Expect").build();
    }
}
