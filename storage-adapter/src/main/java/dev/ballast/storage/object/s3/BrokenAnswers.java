package dev.ballast.storage.object.s3;

import java.io.UncheckedIOException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * An {@link S3Client} that raises an answer broken off while the SDK parsed its XML body as an {@link
 * SdkClientException}, as the SDK raises every other request that got no usable answer. The SDK's XML
 * unmarshaller ({@code XmlResponseParserUtils}) lets the {@link java.io.IOException} of a body cut in the
 * middle through as an {@link UncheckedIOException}, which no {@code catch (SdkException)} of the store
 * saw: a connection cut while a backup opened its bucket (the read of its versioning), or while {@code
 * init}, {@code key add}, {@code forget} or {@code prune} listed or wrote, ended in "A local file operation
 * failed", exit 1, where an endpoint that fails is exit 3 (a fault tester's). As an {@code
 * SdkClientException} it is translated as any lost answer is ({@link S3Errors#translate}): the store
 * unavailable, its outcome unknown for a write. (The SDK's interceptors cannot do this: their {@code
 * modifyException} must return the type they were given.) Thread-safe as the client is.
 */
final class BrokenAnswers implements InvocationHandler {
    private final S3Client client;

    private BrokenAnswers(S3Client client) {
        this.client = client;
    }

    /** {@code client}, its broken-off answers raised as {@link SdkClientException}s. */
    static S3Client wrap(S3Client client) {
        return (S3Client) Proxy.newProxyInstance(
                S3Client.class.getClassLoader(), new Class<?>[] {S3Client.class}, new BrokenAnswers(client));
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(client, args);
        } catch (InvocationTargetException e) {
            Throwable failure = e.getCause();
            if (failure instanceof UncheckedIOException broken) {
                throw SdkClientException.builder()
                        .message("The answer broke off while it was read ("
                                + broken.getCause().getMessage() + ")")
                        .cause(broken.getCause())
                        .build();
            }
            throw failure;
        }
    }
}
