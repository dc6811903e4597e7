package dev.ballast.spring.boot;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/** The {@code /actuator/ballast} endpoint ({@link BallastEndpoint}), when Spring Boot Actuator is present. */
@AutoConfiguration(after = BallastHttpAutoConfiguration.class)
@ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
public final class BallastEndpointAutoConfiguration {

    /** Created by Spring. */
    public BallastEndpointAutoConfiguration() {}

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(BallastDependencies.class)
    @ConditionalOnAvailableEndpoint
    BallastEndpoint ballastEndpoint(BallastDependencies dependencies) {
        return new BallastEndpoint(dependencies);
    }
}
