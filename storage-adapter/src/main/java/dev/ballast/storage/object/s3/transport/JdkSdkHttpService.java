package dev.ballast.storage.object.s3.transport;

import java.net.http.HttpClient;
import java.time.Duration;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpConfigurationOption;
import software.amazon.awssdk.http.SdkHttpService;
import software.amazon.awssdk.utils.AttributeMap;

/**
 * Makes {@link JdkSdkHttpClient} the HTTP implementation the AWS SDK finds on the class path
 * ({@code META-INF/services/software.amazon.awssdk.http.SdkHttpService}) for the clients it builds on
 * its own: the STS, SSO and SSO-OIDC clients of its credential providers (assume-role, web identity,
 * IAM Identity Center). Ballast keeps Apache and Netty off the class path, and without an
 * implementation those providers fail with "Unable to load an HTTP implementation".
 *
 * <p>Each client is a {@code JdkSdkHttpClient} over a plain JDK {@link HttpClient} with the SDK's
 * connection timeout (the SDK retries those clients' calls itself, so no {@code ResilientHttpClient}
 * retries under it). The SDK ranks implementations it knows (Apache, URL connection, CRT) above one it
 * does not, so an application that brings its own keeps using it. Stateless and thread-safe.
 */
public final class JdkSdkHttpService implements SdkHttpService {

    /** Called by the SDK's service loader. */
    public JdkSdkHttpService() {}

    @Override
    public SdkHttpClient.Builder createHttpClientBuilder() {
        return new DefaultsBuilder();
    }

    /** Builds a client with the SDK's defaults for the service. */
    private static final class DefaultsBuilder implements SdkHttpClient.Builder<DefaultsBuilder> {
        @Override
        public SdkHttpClient buildWithDefaults(AttributeMap serviceDefaults) {
            Duration connect = serviceDefaults.get(SdkHttpConfigurationOption.CONNECTION_TIMEOUT);
            Duration read = serviceDefaults.get(SdkHttpConfigurationOption.READ_TIMEOUT);
            HttpClient.Builder http = HttpClient.newBuilder().version(JdkSdkHttpClient.DEFAULT_VERSION);
            if (connect != null && !connect.isZero() && !connect.isNegative()) {
                http.connectTimeout(connect);
            }
            return JdkSdkHttpClient.builder(http.build())
                    .responseTimeout(read != null && !read.isZero() && !read.isNegative() ? read : null)
                    .build();
        }
    }
}
