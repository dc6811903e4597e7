package dev.ballast.spring.boot;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code ballast.health.*} properties: what the {@code ballastHttp} and {@code ballastStorage}
 * health indicators report.
 *
 * @param openCircuitStatus the status of {@code ballastHttp} while any dependency's circuit breaker is
 *     OPEN. DOWN by default, which turns {@code /actuator/health} DOWN (HTTP 503); a custom status such
 *     as {@code DEGRADED} keeps it visible without that, once listed in
 *     {@code management.endpoint.health.status.order}
 * @param degradedStorageStatus the status of {@code ballastStorage} while the storage facade serves
 *     reads from its last-known-good cache, or fails them as unavailable
 * @param degradedStorageWindow how long after the last degraded or unavailable read
 *     {@code ballastStorage} keeps reporting it
 */
@ConfigurationProperties("ballast.health")
public record BallastHealthProperties(
        @DefaultValue("DOWN") String openCircuitStatus,
        @DefaultValue("DOWN") String degradedStorageStatus,
        @DefaultValue("1m") Duration degradedStorageWindow) {}
