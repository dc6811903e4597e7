/**
 * Spring's {@code RestClient} and {@code RestTemplate} over a {@link java.net.http.HttpClient}, normally
 * a {@link dev.ballast.http.ResilientHttpClient}, without losing its retries:
 * {@link dev.ballast.spring.http.BallastClientHttpRequestFactory}. Needs {@code spring-web} only, not
 * Spring Boot.
 */
@NullMarked
package dev.ballast.spring.http;

import org.jspecify.annotations.NullMarked;
