/**
 * Spring Boot auto-configuration of Ballast: the {@code ballast.http.*}, {@code ballast.storage.*} and
 * {@code ballast.health.*} properties, the {@link dev.ballast.http.ResilientHttpClient} and
 * {@link dev.ballast.storage.StorageFacade} beans, {@code RestClient} and {@code RestTemplate} routed
 * through the client, Micrometer meters, health indicators and the {@code /actuator/ballast}
 * endpoint. The property reference is docs/spring-boot.md.
 */
@NullMarked
package dev.ballast.spring.boot;

import org.jspecify.annotations.NullMarked;
