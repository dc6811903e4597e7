package dev.ballast.spring.boot;

import dev.ballast.http.DependencyStatus;
import dev.ballast.http.breaker.BreakerState;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * {@code ballastHttp}: UP while no dependency's circuit breaker is OPEN and refusing calls, else
 * {@code ballast.health.open-circuit-status} (DOWN by default), with each dependency's breaker state
 * and the OPEN ones listed. A HALF_OPEN breaker is probing and reports UP, and so does an OPEN one whose
 * wait is over: its next call is a probe, so a load balancer that took the instance out on DOWN puts it
 * back and sends the traffic that lets the breaker close (nothing probes without a call). Reads the
 * client's state only; it makes no call.
 */
final class BallastHttpHealthIndicator implements HealthIndicator {

    private final BallastDependencies dependencies;
    private final Status openCircuitStatus;

    BallastHttpHealthIndicator(BallastDependencies dependencies, String openCircuitStatus) {
        this.dependencies = dependencies;
        this.openCircuitStatus = new Status(openCircuitStatus);
    }

    @Override
    public Health health() {
        List<DependencyStatus> statuses = dependencies.statuses();
        Map<String, String> breakers = new LinkedHashMap<>();
        List<String> open = new java.util.ArrayList<>();
        for (DependencyStatus status : statuses) {
            boolean refusing = status.breakerState() == BreakerState.OPEN
                    && status.remainingOpenTime().compareTo(java.time.Duration.ZERO) > 0;
            breakers.put(
                    status.dependency(),
                    status.breakerState() == BreakerState.OPEN && !refusing
                            ? "OPEN (wait over: the next call is a probe)"
                            : status.breakerState().name());
            if (refusing) {
                open.add(status.dependency());
            }
        }
        Health.Builder health = open.isEmpty() ? Health.up() : Health.status(openCircuitStatus);
        health.withDetail("breakers", breakers);
        if (!open.isEmpty()) {
            health.withDetail("open", open);
        }
        return health.build();
    }
}
