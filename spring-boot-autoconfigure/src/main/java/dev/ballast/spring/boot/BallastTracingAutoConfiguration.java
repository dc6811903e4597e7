package dev.ballast.spring.boot;

import dev.ballast.http.CallObserver;
import dev.ballast.http.opentelemetry.BallastTracing;
import dev.ballast.storage.opentelemetry.StorageTracing;
import io.opentelemetry.api.OpenTelemetry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * OpenTelemetry traces when {@code ballast-opentelemetry} is on the class path and the application has
 * an {@link OpenTelemetry} bean (its own, or Spring Boot's OpenTelemetry SDK auto-configuration's):
 * {@link BallastTracing} as the {@code ResilientHttpClient} bean's observer (a span per call, its
 * attempts under it), and, when the storage is configured, {@link StorageTracing} as one of the
 * {@code StorageFacade} bean's listeners (a span per storage operation, the S3 calls nested under it;
 * {@code aws.s3.bucket} is {@code ballast.storage.s3.bucket}). Each backs off when the application
 * defines its own bean of that type (a {@link CallObserver} of its own replaces {@code BallastTracing}).
 * The span tree is in docs/telemetry.md.
 */
@AutoConfiguration(
        before = {BallastHttpAutoConfiguration.class, BallastStorageAutoConfiguration.class},
        afterName = {
            "org.springframework.boot.opentelemetry.autoconfigure.OpenTelemetrySdkAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.opentelemetry.OpenTelemetryAutoConfiguration"
        })
@ConditionalOnClass({BallastTracing.class, OpenTelemetry.class})
@ConditionalOnBean(OpenTelemetry.class)
public final class BallastTracingAutoConfiguration {

    /** Created by Spring. */
    public BallastTracingAutoConfiguration() {}

    @Bean
    @ConditionalOnMissingBean(CallObserver.class)
    BallastTracing ballastTracing(OpenTelemetry openTelemetry) {
        return BallastTracing.create(openTelemetry);
    }

    /** {@link StorageTracing}, in a class of its own so that it is read only when the storage adapter is there. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "dev.ballast.storage.StorageFacade")
    @Conditional(BallastStorageAutoConfiguration.StorageConfigured.class)
    static class Storage {
        @Bean
        @ConditionalOnMissingBean
        StorageTracing ballastStorageTracing(OpenTelemetry openTelemetry, Environment environment) {
            String bucket = environment.getProperty(BallastStorageAutoConfiguration.PREFIX + ".s3.bucket");
            return bucket == null || bucket.isBlank()
                    ? StorageTracing.create(openTelemetry)
                    : StorageTracing.create(openTelemetry, bucket);
        }
    }
}
