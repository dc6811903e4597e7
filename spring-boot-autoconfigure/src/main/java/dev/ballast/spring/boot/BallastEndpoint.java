package dev.ballast.spring.boot;

import dev.ballast.http.DependencyStatus;
import java.util.List;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * {@code /actuator/ballast}: every dependency the {@code ResilientHttpClient} bean holds state for,
 * with its circuit breaker state, bulkhead permits, retry budget balance and rejection counts
 * ({@link DependencyStatus}). Expose it with {@code management.endpoints.web.exposure.include=ballast}.
 */
@Endpoint(id = "ballast")
public final class BallastEndpoint {

    private final BallastDependencies dependencies;

    /**
     * Creates the endpoint.
     *
     * @param dependencies what it reports
     */
    public BallastEndpoint(BallastDependencies dependencies) {
        this.dependencies = dependencies;
    }

    /**
     * Returns the report.
     *
     * @return every dependency's status, sorted by key
     */
    @ReadOperation
    public Report dependencies() {
        return new Report(dependencies.statuses());
    }

    /**
     * The endpoint's answer.
     *
     * @param dependencies every dependency's status, sorted by key
     */
    public record Report(List<DependencyStatus> dependencies) {}
}
