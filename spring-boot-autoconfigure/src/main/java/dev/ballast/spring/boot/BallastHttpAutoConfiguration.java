package dev.ballast.spring.boot;

import dev.ballast.http.CallObserver;
import dev.ballast.http.HttpClientListener;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.Ticker;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The {@link ResilientHttpClient} bean, built from {@link BallastHttpProperties}, with every
 * {@link HttpClientListener} bean as a listener (the metrics of {@link BallastMetricsAutoConfiguration},
 * {@link BallastDependencies}, the application's own), then every
 * {@link BallastHttpClientBuilderCustomizer}. A {@code CallObserver} bean, if any, is its observer
 * ({@code BallastTracing} from {@link BallastTracingAutoConfiguration}; two such beans fail the
 * context). A {@link Ticker} bean, if any, is its elapsed-time
 * source (tests pass a fake one). Closed when the application context closes, after the web server
 * has drained its requests. Backs off when the application defines its own {@code ResilientHttpClient}.
 */
@AutoConfiguration(after = BallastMetricsAutoConfiguration.class)
@ConditionalOnClass(ResilientHttpClient.class)
@EnableConfigurationProperties(BallastHttpProperties.class)
public final class BallastHttpAutoConfiguration {

    /** Created by Spring. */
    public BallastHttpAutoConfiguration() {}

    @Bean
    @ConditionalOnMissingBean
    BallastDependencies ballastDependencies() {
        return new BallastDependencies();
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    ResilientHttpClient resilientHttpClient(
            BallastHttpProperties properties,
            ObjectProvider<HttpClientListener> listeners,
            ObjectProvider<CallObserver> observer,
            ObjectProvider<Ticker> ticker,
            ObjectProvider<BallastHttpClientBuilderCustomizer> customizers) {
        ResilientHttpClient.Builder builder = ResilientHttpClient.newBuilder();
        HttpClientSettings.apply(properties, builder);
        ticker.ifAvailable(builder::ticker);
        listeners.orderedStream().forEach(builder::listener);
        observer.ifAvailable(builder::observer); // one per client: two CallObserver beans fail here, named
        customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        return HttpClientSettings.build(properties, builder);
    }
}
