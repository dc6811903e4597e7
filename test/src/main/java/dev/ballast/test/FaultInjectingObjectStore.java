package dev.ballast.test;

import dev.ballast.storage.AccessDeniedException;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.PutOptions;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.StoreCapabilities;
import dev.ballast.storage.object.VersionEntry;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * An {@link ObjectStore} around any other that injects {@link StoreFault}s by rule, and records every
 * fault it injected ({@link #injected()}).
 *
 * <pre>{@code
 * FaultInjectingObjectStore store = FaultInjectingObjectStore.newBuilder(new FakeObjectStore()).seed(7).build();
 * store.inject(StoreFault.slowDown()).on(StoreOperation.PUT).forKey("a").times(2);   // scripted
 * store.inject(StoreFault.latency(Duration.ofSeconds(2))).withProbability(0.1);    // seeded
 * }</pre>
 *
 * <p><b>Rules.</b> {@link #inject} adds a rule, in force at once, that matches every operation its
 * fault applies to ({@link StoreFault#appliesTo}), every key, any number of times, with probability 1;
 * {@link Rule#on}, {@link Rule#forKey}, {@link Rule#times} and {@link Rule#withProbability} narrow it.
 * Each call consults the rules in the order they were added and takes the first that matches and
 * has calls left (drawing its probability from one {@link SplittableRandom} seeded by
 * {@link Builder#seed}, so a run is repeatable when calls come in the same order): at most one fault
 * per call. A sequence for one key ("stale, then a hang, then a corrupt body") is three rules of
 * {@code times(1)} added in that order.
 *
 * <p><b>Time.</b> {@link StoreFault#latency} passes time with the function given to
 * {@link Builder#passTimeWith} (the default sleeps; a test gives {@code fakeTime::advance} and never
 * sleeps). A {@link StoreFault#hang()} blocks the calling thread until the test calls
 * {@link #releaseHangs()} (the call goes on) or {@link #timeOutHangs()} (it fails as a timeout);
 * {@link #awaitHanging} lets the test wait until the calls it expects are blocked. A bounded hang
 * also gives up after its bound in real time.
 *
 * <p>A stale read costs the delegate one extra read of the current version (to learn its
 * generation), closed at once. Thread-safe: rules and records may be used from any thread.
 */
public final class FaultInjectingObjectStore implements ObjectStore, AutoCloseable {

    private final ObjectStore delegate;
    private final Consumer<Duration> passTime;
    private final SplittableRandom random;
    private final List<Rule> rules = new ArrayList<>();
    private final List<InjectedFault> injected = new CopyOnWriteArrayList<>();
    private long calls;
    private final Object hangs = new Object();
    private long releasedThrough;
    private long timedOutThrough;
    private long hangTickets;
    private int hanging;

    private FaultInjectingObjectStore(Builder builder) {
        this.delegate = builder.delegate;
        this.passTime = builder.passTime;
        this.random = new SplittableRandom(builder.seed);
    }

    /** A builder around {@code delegate}, which the wrapper calls for everything it does not fault. */
    public static Builder newBuilder(ObjectStore delegate) {
        return new Builder(delegate);
    }

    /** A wrapper around {@code delegate} with seed 0 and real sleeps for latency. */
    public static FaultInjectingObjectStore wrap(ObjectStore delegate) {
        return newBuilder(delegate).build();
    }

    /** Configures a {@link FaultInjectingObjectStore}. Not thread-safe. */
    public static final class Builder {
        private final ObjectStore delegate;
        private long seed;
        private Consumer<Duration> passTime = FaultInjectingObjectStore::sleep;

        private Builder(ObjectStore delegate) {
            this.delegate = Objects.requireNonNull(delegate, "delegate");
        }

        /** The seed of the draws of {@link Rule#withProbability}; 0 by default. */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /**
         * How injected latency passes: {@code fakeTime::advance} in a test that runs on
         * {@link FakeTime}; by default the calling thread sleeps.
         */
        public Builder passTimeWith(Consumer<Duration> passTime) {
            this.passTime = Objects.requireNonNull(passTime, "passTime");
            return this;
        }

        public FaultInjectingObjectStore build() {
            return new FaultInjectingObjectStore(this);
        }
    }

    /**
     * One injection rule, made by {@link #inject}; in force from the moment it is made. Its setters
     * return it for chaining and may be called while the store is in use.
     */
    public final class Rule {
        private final StoreFault fault;
        private @Nullable List<StoreOperation> operations;
        private Predicate<@Nullable String> keys = k -> true;
        private long remaining = Long.MAX_VALUE;
        private double probability = 1.0;

        private Rule(StoreFault fault) {
            this.fault = fault;
        }

        /**
         * Only these operations (each must be one the fault applies to).
         *
         * @throws IllegalArgumentException naming an operation the fault cannot be injected into
         */
        public Rule on(StoreOperation... operations) {
            for (StoreOperation op : operations) {
                if (!fault.appliesTo(op)) {
                    throw new IllegalArgumentException(fault + " cannot be injected into " + op + "; it applies to "
                            + java.util.Arrays.stream(StoreOperation.values())
                                    .filter(fault::appliesTo)
                                    .toList());
                }
            }
            synchronized (FaultInjectingObjectStore.this) {
                this.operations = List.of(operations);
            }
            return this;
        }

        /** Only calls about exactly {@code key} (never a listing). */
        public Rule forKey(String key) {
            Objects.requireNonNull(key, "key");
            return forKeys(key::equals);
        }

        /** Only calls whose key {@code keys} accepts (never a listing, whose key is null). */
        public Rule forKeys(Predicate<String> keys) {
            Objects.requireNonNull(keys, "keys");
            synchronized (FaultInjectingObjectStore.this) {
                this.keys = k -> k != null && keys.test(k);
            }
            return this;
        }

        /**
         * At most {@code times} injections, then the rule is spent.
         *
         * @throws IllegalArgumentException if {@code times} is below 1
         */
        public Rule times(long times) {
            if (times < 1) {
                throw new IllegalArgumentException("times must be >= 1 but was " + times);
            }
            synchronized (FaultInjectingObjectStore.this) {
                this.remaining = times;
            }
            return this;
        }

        /**
         * Injects into each matching call with {@code probability}, drawn from the store's seeded
         * generator.
         *
         * @throws IllegalArgumentException unless {@code 0 < probability <= 1}
         */
        public Rule withProbability(double probability) {
            if (!(probability > 0 && probability <= 1)) {
                throw new IllegalArgumentException("probability must be in (0, 1] but was " + probability);
            }
            synchronized (FaultInjectingObjectStore.this) {
                this.probability = probability;
            }
            return this;
        }

        /** Injections left: {@link Long#MAX_VALUE} for an unlimited rule, 0 once spent. */
        public long remaining() {
            synchronized (FaultInjectingObjectStore.this) {
                return remaining;
            }
        }

        private boolean matches(StoreOperation op, @Nullable String key) {
            return remaining > 0
                    && fault.appliesTo(op)
                    && (operations == null || operations.contains(op))
                    && keys.test(key);
        }
    }

    /** Adds a rule injecting {@code fault}; narrow it with the {@link Rule}'s methods. */
    public synchronized Rule inject(StoreFault fault) {
        Rule rule = new Rule(Objects.requireNonNull(fault, "fault"));
        rules.add(rule);
        return rule;
    }

    /** Removes every rule; the faults already injected stay recorded. */
    public synchronized void clearRules() {
        rules.clear();
    }

    /** Every fault injected so far, in order. */
    public List<InjectedFault> injected() {
        return List.copyOf(injected);
    }

    /** The faults injected so far into {@code operation}, in order. */
    public List<InjectedFault> injected(StoreOperation operation) {
        return injected.stream().filter(f -> f.operation() == operation).toList();
    }

    /** How many calls the wrapper has seen, faulted or not. */
    public synchronized long calls() {
        return calls;
    }

    /** The store this one wraps. */
    public ObjectStore delegate() {
        return delegate;
    }

    /** Lets every call hanging now go on to the store. Later hangs block until the next release. */
    public void releaseHangs() {
        synchronized (hangs) {
            releasedThrough = hangTickets;
            hangs.notifyAll();
        }
    }

    /**
     * Makes every call hanging now fail as a timeout would ({@link StorageUnavailableException}, its
     * outcome unknown for a write), as if the caller's deadline had passed: a test on
     * {@link FakeTime} ends a hang this way without waiting.
     */
    public void timeOutHangs() {
        synchronized (hangs) {
            timedOutThrough = hangTickets;
            hangs.notifyAll();
        }
    }

    /** How many calls are blocked in a hang now. */
    public int hanging() {
        synchronized (hangs) {
            return hanging;
        }
    }

    /**
     * Waits until at least {@code count} calls are blocked in a hang, for at most {@code timeout}
     * (real time; a bound against a test that would otherwise wait for ever, not a sleep).
     *
     * @return whether that many were hanging before the timeout
     */
    public boolean awaitHanging(int count, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (hangs) {
            while (hanging < count) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                hangs.wait(Math.max(1, left / 1_000_000));
            }
            return true;
        }
    }

    // ---------------------------------------------------------------- the store

    @Override
    public StoreCapabilities capabilities() {
        return delegate.capabilities();
    }

    @Override
    public boolean confirmsWrites() {
        return delegate.confirmsWrites();
    }

    @Override
    public void prepareWrites(String prefix) {
        delegate.prepareWrites(prefix);
    }

    @Override
    public ObjectVersion put(String key, ObjectContent content) {
        return call(StoreOperation.PUT, key, () -> delegate.put(key, content));
    }

    @Override
    public CompletableFuture<ObjectVersion> putAsync(String key, ObjectContent content) {
        StoreFault fault = draw(StoreOperation.PUT, key);
        if (fault == null) {
            return delegate.putAsync(key, content);
        }
        try {
            return CompletableFuture.completedFuture(
                    apply(fault, StoreOperation.PUT, key, () -> delegate.put(key, content)));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public ObjectVersion putIfAbsent(String key, ObjectContent content) {
        return call(StoreOperation.PUT_IF_ABSENT, key, () -> delegate.putIfAbsent(key, content));
    }

    @Override
    public ObjectVersion putIfMatch(String key, String eTag, ObjectContent content) {
        return call(StoreOperation.PUT_IF_MATCH, key, () -> delegate.putIfMatch(key, eTag, content));
    }

    @Override
    public ObjectVersion put(String key, ObjectContent content, PutOptions options) {
        return call(StoreOperation.PUT, key, () -> delegate.put(key, content, options));
    }

    @Override
    public ObjectVersion putIfAbsent(String key, ObjectContent content, PutOptions options) {
        return call(StoreOperation.PUT_IF_ABSENT, key, () -> delegate.putIfAbsent(key, content, options));
    }

    @Override
    public ObjectVersion putIfMatch(String key, String eTag, ObjectContent content, PutOptions options) {
        return call(StoreOperation.PUT_IF_MATCH, key, () -> delegate.putIfMatch(key, eTag, content, options));
    }

    @Override
    public ObjectRead get(String key) {
        return get(key, ReadOptions.latest());
    }

    @Override
    public ObjectRead get(String key, ReadOptions options) {
        StoreFault fault = draw(StoreOperation.GET, key);
        if (fault == null) {
            return delegate.get(key, options);
        }
        if (fault instanceof StoreFault.StaleVersion) {
            return FaultedReads.stale(delegate, key, options);
        }
        if (fault instanceof StoreFault.TruncatedBody t) {
            return FaultedReads.damaged(delegate.get(key, options), t.afterBytes(), false);
        }
        if (fault instanceof StoreFault.CorruptedBody c) {
            return FaultedReads.damaged(delegate.get(key, options), c.atByte(), true);
        }
        return apply(fault, StoreOperation.GET, key, () -> delegate.get(key, options));
    }

    @Override
    public List<VersionEntry> versions(String key) {
        return call(StoreOperation.VERSIONS, key, () -> delegate.versions(key));
    }

    @Override
    public VersionEntry delete(String key) {
        return call(StoreOperation.DELETE, key, () -> delegate.delete(key));
    }

    @Override
    public boolean deleteVersion(String key, String versionId) {
        return call(StoreOperation.DELETE_VERSION, key, () -> delegate.deleteVersion(key, versionId));
    }

    @Override
    public List<String> list(String prefix) {
        return call(StoreOperation.LIST, null, () -> delegate.list(prefix));
    }

    /**
     * The delegate's listing; a {@link StoreOperation#LIST} fault is drawn when the stream needs its first
     * entry (one draw per listing, however many pages it fetches), and thrown from the stream's traversal
     * as the real store's failure to fetch a page would be.
     */
    @Override
    public java.util.stream.Stream<dev.ballast.storage.object.ListEntry> listing(
            dev.ballast.storage.object.ListRequest request) {
        java.util.Objects.requireNonNull(request, "request");
        return dev.ballast.storage.internal.Listings.lazily(
                () -> call(StoreOperation.LIST, null, () -> delegate.listing(request)));
    }

    /** The delegate's URL: signing one sends nothing, so no fault applies. */
    @Override
    public dev.ballast.storage.object.PresignedRequest presign(dev.ballast.storage.object.PresignRequest request) {
        return delegate.presign(request);
    }

    @Override
    public List<VersionEntry> listVersions(String prefix) {
        return call(StoreOperation.LIST_VERSIONS, null, () -> delegate.listVersions(prefix));
    }

    /** Closes the delegate when it is {@link AutoCloseable}. */
    @Override
    public void close() throws Exception {
        if (delegate instanceof AutoCloseable closeable) {
            closeable.close();
        }
    }

    @Override
    public String toString() {
        return "FaultInjectingObjectStore[" + delegate + "]";
    }

    // ---------------------------------------------------------------- injection

    private <T> T call(StoreOperation op, @Nullable String key, Supplier<T> action) {
        StoreFault fault = draw(op, key);
        return fault == null ? action.get() : apply(fault, op, key, action);
    }

    /** Counts the call and picks the fault of the first matching rule, recording it; null for none. */
    private synchronized @Nullable StoreFault draw(StoreOperation op, @Nullable String key) {
        calls++;
        for (Rule rule : rules) {
            if (rule.matches(op, key) && (rule.probability >= 1.0 || random.nextDouble() < rule.probability)) {
                if (rule.remaining != Long.MAX_VALUE) {
                    rule.remaining--;
                }
                injected.add(new InjectedFault(calls, op, key, rule.fault));
                return rule.fault;
            }
        }
        return null;
    }

    private <T> T apply(StoreFault fault, StoreOperation op, @Nullable String key, Supplier<T> action) {
        String what = op + (key == null ? "" : " of '" + key + "'") + " (injected by "
                + getClass().getSimpleName() + ")";
        if (fault instanceof StoreFault.Latency latency) {
            passTime.accept(latency.delay());
            return action.get();
        }
        if (fault instanceof StoreFault.Hang hang) {
            hang(hang.bound(), op, key, what);
            return action.get();
        }
        if (fault instanceof StoreFault.Refusal refusal) {
            throw refusal(refusal.kind(), what, key);
        }
        if (fault instanceof StoreFault.AnswerLost) {
            action.get();
            throw new StorageUnavailableException(
                    key,
                    what + " failed: the connection was reset after the request was sent; the outcome is unknown",
                    new IOException("Connection reset"),
                    true);
        }
        if (fault instanceof StoreFault.ConditionalWriteRace race && key != null) {
            delegate.put(key, ObjectContent.ofBytes(race.competitor()));
            return action.get();
        }
        throw new IllegalStateException(fault + " cannot be injected into " + op);
    }

    private static RuntimeException refusal(StoreFault.Refusal.Kind kind, String what, @Nullable String key) {
        return switch (kind) {
            case SLOW_DOWN ->
                new StorageUnavailableException(
                        key, what + " failed: HTTP 503 SlowDown (Please reduce your request rate.)", null, false);
            case SERVER_ERROR ->
                new StorageUnavailableException(
                        key, what + " failed: HTTP 500 InternalError (We encountered an internal error.)", null, true);
            case ACCESS_DENIED ->
                new AccessDeniedException(
                        key,
                        what + " failed: HTTP 403 AccessDenied; the store refused these credentials or this operation",
                        null);
            case OUT_OF_SPACE ->
                new StorageUnavailableException(
                        key,
                        what + " failed: HTTP 507 XMinioStorageFull: the store is out of space",
                        new IOException("No space left on device"),
                        false);
        };
    }

    private void hang(@Nullable Duration bound, StoreOperation op, @Nullable String key, String what) {
        long deadline = bound == null ? 0 : System.nanoTime() + bound.toNanos();
        synchronized (hangs) {
            long ticket = ++hangTickets;
            hanging++;
            hangs.notifyAll();
            try {
                while (releasedThrough < ticket) {
                    if (timedOutThrough >= ticket) {
                        throw new StorageUnavailableException(
                                key,
                                what + " failed: no answer before the deadline (the store hung)",
                                new java.net.http.HttpTimeoutException("request timed out"),
                                op.writes());
                    }
                    if (bound == null) {
                        hangs.wait();
                    } else {
                        long left = deadline - System.nanoTime();
                        if (left <= 0) {
                            throw new StorageUnavailableException(
                                    key,
                                    what + " failed: no answer within " + bound + " (the store hung)",
                                    new java.net.http.HttpTimeoutException("request timed out"),
                                    op.writes());
                        }
                        hangs.wait(Math.max(1, left / 1_000_000));
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new StorageUnavailableException(
                        key, what + " failed: interrupted while the store hung", e, op.writes());
            } finally {
                hanging--;
            }
        }
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis(), (int) (d.toNanos() % 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StorageUnavailableException(null, "interrupted during injected latency", e, false);
        }
    }
}
