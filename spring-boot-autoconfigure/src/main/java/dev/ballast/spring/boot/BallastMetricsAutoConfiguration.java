package dev.ballast.spring.boot;

import dev.ballast.http.micrometer.HttpClientMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * {@link HttpClientMetrics} for the {@code ResilientHttpClient} bean when the application has a
 * {@link MeterRegistry} bean (Spring Boot's metrics, e.g. with {@code spring-boot-starter-actuator}):
 * it is the client's listener, and Spring Boot binds it to the registry as it binds every
 * {@code MeterBinder}. The {@code ballast.http.*} meters (Prometheus: {@code ballast_http_*}) are
 * listed in {@code MetricNames}.
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
}
