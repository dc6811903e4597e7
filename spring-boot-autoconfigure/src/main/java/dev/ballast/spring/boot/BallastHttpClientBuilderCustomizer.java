package dev.ballast.spring.boot;

import dev.ballast.http.ResilientHttpClient;

/**
 * A bean that adjusts the {@code ResilientHttpClient} bean's builder after the {@code ballast.http.*}
 * properties were applied: for what properties cannot say (a {@code ResponseClassifier}, a
 * {@code dependencyResolver}, an {@code SSLContext}). Customizers run in {@code @Order}; listeners are
 * better declared as {@code HttpClientListener} beans, which the client adds by themselves.
 */
@FunctionalInterface
public interface BallastHttpClientBuilderCustomizer {

    /**
     * Adjusts the builder.
     *
     * @param builder the builder, with the properties applied
     */
    void customize(ResilientHttpClient.Builder builder);
}
