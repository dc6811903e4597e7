package dev.ballast.spring.boot;

import dev.ballast.http.DependencyStatus;
import dev.ballast.http.HttpClientListener;
import dev.ballast.http.ResilientHttpClient;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The dependencies a {@link ResilientHttpClient} holds state for, and their status: what the health
 * indicator and the {@code /actuator/ballast} endpoint read. Registered as the client's listener; it
 * learns a dependency from its first attempt and forgets it when the client evicts it, so it holds at
 * most the client's {@code maxDependencies} keys. Thread-safe; each attempt costs a set lookup.
 */
public final class BallastDependencies implements HttpClientListener {

    private final Set<String> keys = ConcurrentHashMap.newKeySet();
    private volatile @Nullable ResilientHttpClient client;

    /** Creates a tracker that knows no dependency yet. */
    public BallastDependencies() {}

    @Override
    public void onClientBuilt(ResilientHttpClient client) {
        this.client = client;
    }

    @Override
    public void onAttemptStarted(String correlationId, String dependency, int attempt) {
        if (!keys.contains(dependency)) {
            keys.add(dependency);
        }
    }

    @Override
    public void onDependencyEvicted(String dependency) {
        keys.remove(dependency);
    }

    /**
     * Returns the status of every dependency the client holds state for, sorted by key.
     *
     * @return a snapshot; empty before the first call or before the client was built
     */
    public List<DependencyStatus> statuses() {
        ResilientHttpClient observed = client;
        if (observed == null) {
            return List.of();
        }
        List<DependencyStatus> statuses = new ArrayList<>();
        for (String key : keys) {
            Optional<DependencyStatus> status = observed.dependencyStatus(key);
            status.ifPresent(statuses::add);
        }
        statuses.sort(Comparator.comparing(DependencyStatus::dependency));
        return statuses;
    }
}
