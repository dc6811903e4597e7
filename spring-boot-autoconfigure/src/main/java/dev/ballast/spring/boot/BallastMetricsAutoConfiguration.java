package dev.ballast.spring.boot;

import dev.ballast.http.micrometer.HttpClientMetrics;
import dev.ballast.storage.micrometer.StorageMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * {@link HttpClientMetrics} for the {@code ResilientHttpClient} bean when the application has a
 * {@link MeterRegistry} bean (Spring Boot's metrics, e.g. with {@code spring-boot-starter-actuator}):
 * it is the client's listener, and Spring Boot binds it to the registry as it binds every
 * {@code MeterBinder}. The {@code ballast.http.*} meters (Prometheus: {@code ballast_http_*}) are
 * listed in {@code MetricNames}. When the storage is configured ({@link BallastStorageAutoConfiguration})
 * and {@code ballast-storage-adapter} is on the class path, {@link StorageMetrics} too: a
 * {@code StorageListener} the {@code StorageFacade} bean is given, bound the same way (the
 * {@code ballast.storage.*} meters, docs/telemetry.md).
 */
@AutoConfiguration(
        afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration")
@ConditionalOnClass({HttpClientMetrics.class, MeterRegistry.class})
@ConditionalOnBean(MeterRegistry.class)
public final class BallastMetricsAutoConfiguration {

    /** Created by Spring. */
    public BallastMetricsAutoConfiguration() {}

    @Bean
    @ConditionalOnMissingBean
    HttpClientMetrics ballastHttpClientMetrics() {
        return HttpClientMetrics.create();
    }

    /** {@link StorageMetrics}, in a class of its own so that it is read only when the storage adapter is there. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "dev.ballast.storage.StorageFacade")
    @Conditional(BallastStorageAutoConfiguration.StorageConfigured.class)
    static class Storage {
        @Bean
        @ConditionalOnMissingBean
        StorageMetrics ballastStorageMetrics() {
            return StorageMetrics.create();
        }
    }
}
