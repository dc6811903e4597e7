package dev.ballast.spring.boot;

import dev.ballast.http.DependencyStatus;
import dev.ballast.http.breaker.BreakerState;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * {@code /actuator/ballast}: every dependency the {@code ResilientHttpClient} bean holds state for,
 * with its circuit breaker state, adaptive concurrency limit and attempts in flight, fixed bulkhead (if
 * one is configured), retry budget balance and rejection counts, read from
 * {@link DependencyStatus}. Expose it with {@code management.endpoints.web.exposure.include=ballast}.
 * Thread-safe; it reads state and makes no call.
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
        return new Report(dependencies.statuses().stream().map(Dependency::of).toList());
    }

    /**
     * The endpoint's answer.
     *
     * @param dependencies every dependency's status, sorted by key
     */
    public record Report(List<Dependency> dependencies) {}

    /**
     * One dependency's status.
     *
     * @param dependency the dependency key, {@code scheme://host:port}
     * @param breakerState the circuit breaker's state
     * @param concurrencyLimit the adaptive concurrency limit now (attempts in flight at once); null when
     *     the limit is turned off ({@code concurrency-limit.enabled: false})
     * @param attemptsInFlight attempts sent and not yet ended
     * @param bulkhead the fixed bulkhead; null when none is configured (the default)
     * @param availableRetries the retry budget's balance
     * @param circuitOpenRejections attempts the open breaker refused since the dependency's state was created
     * @param concurrencyLimitRejections attempts the concurrency limit refused since then
     * @param bulkheadFullRejections attempts the fixed bulkhead refused since then
     */
    public record Dependency(
            String dependency,
            BreakerState breakerState,
            @Nullable Integer concurrencyLimit,
            int attemptsInFlight,
            @Nullable Bulkhead bulkhead,
            double availableRetries,
            long circuitOpenRejections,
            long concurrencyLimitRejections,
            long bulkheadFullRejections) {

        /**
         * Reads a dependency's status: a limit or bulkhead size of {@link Integer#MAX_VALUE} is the
         * client's way of saying there is none.
         *
         * @param status the client's status of the dependency
         * @return the endpoint's view of it
         */
        static Dependency of(DependencyStatus status) {
            return new Dependency(
                    status.dependency(),
                    status.breakerState(),
                    status.concurrencyLimit() == Integer.MAX_VALUE ? null : status.concurrencyLimit(),
                    status.attemptsInFlight(),
                    status.maxConcurrentCalls() == Integer.MAX_VALUE
                            ? null
                            : new Bulkhead(status.maxConcurrentCalls(), status.availableBulkheadPermits()),
                    status.availableRetries(),
                    status.circuitOpenRejections(),
                    status.concurrencyLimitRejections(),
                    status.bulkheadFullRejections());
        }
    }

    /**
     * A fixed bulkhead's occupancy.
     *
     * @param maxConcurrentCalls its size
     * @param availablePermits permits not held now
     */
    public record Bulkhead(int maxConcurrentCalls, int availablePermits) {}
}
