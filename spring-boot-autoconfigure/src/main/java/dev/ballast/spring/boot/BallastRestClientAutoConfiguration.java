package dev.ballast.spring.boot;

import dev.ballast.http.ResilientHttpClient;
import dev.ballast.spring.http.BallastClientHttpRequestFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.restclient.RestTemplateCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.client.ClientHttpRequestFactory;

/**
 * Routes the application's {@code RestClient.Builder} and {@code RestTemplateBuilder} through the
 * {@code ResilientHttpClient} bean with a {@link BallastClientHttpRequestFactory}, so that request
 * bodies are retried and response bodies are read within the attempt
 * ({@code ballast.http.request-factory.*}). Off with {@code ballast.http.request-factory.enabled=false}.
 * A {@code requestFactory(...)} the application sets on a builder itself still wins.
 */
@AutoConfiguration(after = BallastHttpAutoConfiguration.class)
@ConditionalOnClass(ClientHttpRequestFactory.class)
@ConditionalOnBean(ResilientHttpClient.class)
@ConditionalOnProperty(prefix = "ballast.http.request-factory", name = "enabled", matchIfMissing = true)
public final class BallastRestClientAutoConfiguration {

    /** Created by Spring. */
    public BallastRestClientAutoConfiguration() {}

    @Bean
    @ConditionalOnMissingBean
    BallastClientHttpRequestFactory ballastClientHttpRequestFactory(
            ResilientHttpClient client, BallastHttpProperties properties) {
        BallastHttpProperties.RequestFactory settings = properties.requestFactory();
        String prefix = HttpClientSettings.PREFIX + ".request-factory";
        return HttpClientSettings.checked(
                prefix,
                java.util.List.of("maxBufferedRequestBytes", "maxBufferedResponseBytes", "readTimeout"),
                () -> {
                    BallastClientHttpRequestFactory.Builder builder = BallastClientHttpRequestFactory.newBuilder(client)
                            .maxBufferedRequestBytes(
                                    settings.maxBufferedRequestSize().toBytes())
                            .maxBufferedResponseBytes(
                                    settings.maxBufferedResponseSize().toBytes())
                            .responseBody(settings.responseBody());
                    if (settings.readTimeout() != null) {
                        builder.readTimeout(settings.readTimeout());
                    }
                    return builder.build();
                },
                java.util.Map.of(
                        "maxBufferedRequestBytes", "max-buffered-request-size",
                        "maxBufferedResponseBytes", "max-buffered-response-size"));
    }

    /** RestClient: Spring Boot's {@code RestClient.Builder} bean applies every {@code RestClientCustomizer}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(RestClientCustomizer.class)
    static final class RestClientRouting {

        @Bean
        RestClientCustomizer ballastRestClientCustomizer(BallastClientHttpRequestFactory factory) {
            return builder -> builder.requestFactory(factory);
        }

        @Bean
        RestTemplateCustomizer ballastRestTemplateCustomizer(BallastClientHttpRequestFactory factory) {
            return restTemplate -> restTemplate.setRequestFactory(factory);
        }
    }
}
