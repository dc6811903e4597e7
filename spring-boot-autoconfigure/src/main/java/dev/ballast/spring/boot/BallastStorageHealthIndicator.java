package dev.ballast.spring.boot;

import dev.ballast.storage.StorageFacade;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * {@code ballastStorage}: UP while the storage facade serves every read from its store, else
 * {@code ballast.health.degraded-storage-status} (DOWN by default) for
 * {@code ballast.health.degraded-storage-window} after the last read it served from its
 * last-known-good cache (degraded) or failed as unavailable, with the facade's counters. It reads the
 * counters only; it makes no request to the store.
 */
final class BallastStorageHealthIndicator implements HealthIndicator {

    private final StorageFacade facade;
    private final Status degradedStatus;
    private final Duration window;
    private final Clock clock;
    private long seenDegraded;
    private @Nullable Instant lastDegraded;

    BallastStorageHealthIndicator(StorageFacade facade, String degradedStatus, Duration window, Clock clock) {
        this.facade = facade;
        this.degradedStatus = new Status(degradedStatus);
        this.window = window;
        this.clock = clock;
    }

    @Override
    public Health health() {
        StorageFacade.Stats stats = facade.stats();
        long degraded = stats.degradedReads() + stats.unavailableReads();
        Instant now = clock.instant();
        boolean recent;
        synchronized (this) {
            if (degraded > seenDegraded) {
                seenDegraded = degraded;
                lastDegraded = now;
            }
            recent = lastDegraded != null && now.isBefore(lastDegraded.plus(window));
        }
        Health.Builder health = recent ? Health.status(degradedStatus) : Health.up();
        return health.withDetail("degradedReads", stats.degradedReads())
                .withDetail("unavailableReads", stats.unavailableReads())
                .withDetail("staleReadsDetected", stats.staleReadsDetected())
                .withDetail("integrityFailures", stats.integrityFailures())
                .withDetail("openVolumes", stats.openVolumes())
                .build();
    }
}
