package dev.ballast.spring.boot;

import dev.ballast.http.ResilientHttpClient;
import dev.ballast.storage.StorageFacade;
import java.time.Clock;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code ballastHttp} and {@code ballastStorage} health indicators ({@code ballast.health.*}),
 * when Spring Boot's health support is present; off with {@code management.health.ballast.enabled=false}.
 */
@AutoConfiguration(after = {BallastHttpAutoConfiguration.class, BallastStorageAutoConfiguration.class})
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnEnabledHealthIndicator("ballast")
@EnableConfigurationProperties(BallastHealthProperties.class)
public final class BallastHealthAutoConfiguration {

    /** Created by Spring. */
    public BallastHealthAutoConfiguration() {}

    @Bean
    @ConditionalOnBean({ResilientHttpClient.class, BallastDependencies.class})
    HealthIndicator ballastHttpHealthIndicator(BallastDependencies dependencies, BallastHealthProperties properties) {
        return new BallastHttpHealthIndicator(dependencies, properties.openCircuitStatus());
    }

    /** Only with storage-adapter on the class path. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(StorageFacade.class)
    static final class Storage {

        @Bean
        @ConditionalOnBean(StorageFacade.class)
        HealthIndicator ballastStorageHealthIndicator(StorageFacade facade, BallastHealthProperties properties) {
            return new BallastStorageHealthIndicator(
                    facade, properties.degradedStorageStatus(), properties.degradedStorageWindow(), Clock.systemUTC());
        }
    }
}
