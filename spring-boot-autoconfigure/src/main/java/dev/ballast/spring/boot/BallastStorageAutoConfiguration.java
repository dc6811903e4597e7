package dev.ballast.spring.boot;

import dev.ballast.http.ResilientHttpClient;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.StorageListener;
import dev.ballast.storage.cache.LastKnownGoodConfig;
import dev.ballast.storage.object.s3.S3Endpoint;
import dev.ballast.storage.object.s3.S3StoreConfig;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

/**
 * The {@link StorageFacade} bean, built from {@link BallastStorageProperties} once
 * {@code ballast.storage.local-objects}, {@code ballast.storage.s3.bucket} or
 * {@code ballast.storage.block-root} is set. S3 requests go through the {@code ResilientHttpClient}
 * bean. Every {@code StorageListener} bean ({@code StorageMetrics} from
 * {@link BallastMetricsAutoConfiguration}, {@code StorageTracing} from
 * {@link BallastTracingAutoConfiguration}, the application's own) is told what the storage does,
 * through one {@code StorageListener.of(...)} in the beans' order. Closed (volumes and object store) when the application context closes. Backs off when the
 * application defines its own {@code StorageFacade}.
 */
@AutoConfiguration(after = BallastHttpAutoConfiguration.class)
@ConditionalOnClass(StorageFacade.class)
@Conditional(BallastStorageAutoConfiguration.StorageConfigured.class)
@EnableConfigurationProperties(BallastStorageProperties.class)
public final class BallastStorageAutoConfiguration {

    static final String PREFIX = "ballast.storage";

    /** Created by Spring. */
    public BallastStorageAutoConfiguration() {}

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    StorageFacade storageFacade(
            BallastStorageProperties properties,
            ObjectProvider<ResilientHttpClient> client,
            ObjectProvider<StorageListener> listeners) {
        StorageFacade.Builder builder = StorageFacade.newBuilder();
        List<StorageListener> all = listeners.orderedStream().toList();
        if (!all.isEmpty()) {
            builder.listener(StorageListener.of(all.toArray(StorageListener[]::new)));
        }
        if (properties.blockRoot() != null) {
            builder.localRoot(properties.blockRoot());
        }
        BallastStorageProperties.S3 s3 = properties.s3();
        if (s3.bucket() != null && properties.localObjects() != null) {
            throw new InvalidBallastPropertyException(
                    PREFIX + ".local-objects",
                    "objects go to one store: set ballast.storage.s3.bucket (S3) or ballast.storage.local-objects"
                            + " (a local directory), not both",
                    new IllegalStateException("both s3.bucket and local-objects are set"));
        }
        if (s3.bucket() != null) {
            S3Endpoint endpoint = HttpClientSettings.checked(
                    PREFIX + ".s3", List.of("endpoint", "region", "accessKey", "secretKey"), () -> {
                        S3Endpoint.Builder b =
                                S3Endpoint.newBuilder().region(s3.region()).checksumMode(s3.checksumMode());
                        if (s3.endpoint() != null) {
                            b.endpoint(s3.endpoint());
                        }
                        String accessKey = s3.accessKey();
                        String secretKey = s3.secretKey();
                        if (accessKey != null && secretKey != null) {
                            b.credentials(accessKey, secretKey, s3.sessionToken());
                        } else if (accessKey != null || secretKey != null) {
                            String missing = accessKey == null ? "access-key" : "secret-key";
                            throw new InvalidBallastPropertyException(
                                    PREFIX + ".s3." + missing,
                                    "static credentials need both access-key and secret-key; set " + missing
                                            + ", or neither to use the AWS SDK's default credentials chain",
                                    new IllegalArgumentException(missing + " is not set"));
                        }
                        if (s3.pathStyle() != null) {
                            b.pathStyle(s3.pathStyle());
                        }
                        client.ifAvailable(b::httpClient);
                        return b.build();
                    });
            builder.s3(endpoint)
                    .bucket(s3.bucket())
                    .s3Config(S3StoreConfig.builder()
                            .createBucket(s3.createBucket())
                            .enableVersioning(s3.enableVersioning())
                            .build());
        }
        if (properties.localObjects() != null) {
            builder.localObjects(properties.localObjects());
        }
        BallastStorageProperties.LastKnownGood lkg = properties.lastKnownGood();
        if (lkg.anySet()) {
            builder.lastKnownGood(lastKnownGood(lkg, s3.bucket() != null));
        }
        return HttpClientSettings.checked(PREFIX, List.of(), builder::build);
    }

    private static LastKnownGoodConfig lastKnownGood(BallastStorageProperties.LastKnownGood lkg, boolean s3) {
        return HttpClientSettings.checked(
                PREFIX + ".last-known-good",
                List.of("maxEntries", "maxObjectBytes", "maxTotalBytes", "maxStaleness", "expiryJitter"),
                () -> {
                    LastKnownGoodConfig.Builder b = LastKnownGoodConfig.builder()
                            // Unset: on for S3, off for the local store, as StorageFacade.Builder decides.
                            .enabled(lkg.enabled() != null ? lkg.enabled() : s3);
                    if (lkg.maxEntries() != null) {
                        b.maxEntries(lkg.maxEntries());
                    }
                    if (lkg.maxObjectSize() != null) {
                        b.maxObjectBytes(lkg.maxObjectSize().toBytes());
                    }
                    if (lkg.maxTotalSize() != null) {
                        b.maxTotalBytes(lkg.maxTotalSize().toBytes());
                    }
                    if (lkg.maxStaleness() != null) {
                        b.maxStaleness(lkg.maxStaleness());
                    }
                    if (lkg.expiryJitter() != null) {
                        b.expiryJitter(lkg.expiryJitter());
                    }
                    return b.build();
                },
                Map.of("maxObjectBytes", "max-object-size", "maxTotalBytes", "max-total-size"));
    }

    /** Any of the settings that say where objects or volumes live. */
    static final class StorageConfigured extends AnyNestedCondition {

        StorageConfigured() {
            super(ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnProperty(prefix = PREFIX, name = "local-objects")
        static final class LocalObjects {}

        @ConditionalOnProperty(prefix = PREFIX, name = "s3.bucket")
        static final class Bucket {}

        @ConditionalOnProperty(prefix = PREFIX, name = "block-root")
        static final class BlockRoot {}
    }
}
