package dev.ballast.testkit;

import dev.ballast.http.DependencyStatus;
import dev.ballast.http.ResilientHttpClient;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestInstanceFactoryContext;
import org.junit.jupiter.api.extension.TestInstancePreConstructCallback;

/**
 * Fails a test that leaves something behind (the idea of OkHttp's {@code OkHttpClientTestRule}):
 * a call still in flight (its bulkhead permit not back) on a {@link ResilientHttpClient} the test
 * {@linkplain #watch(ResilientHttpClient, String...) watches}, a response body it
 * {@linkplain #watch(InputStream) watches} and did not close, or anything else that reports itself
 * through {@link Watched} (the in-memory object store's read streams) is checked after each test;
 * a non-daemon thread the test class started and that still runs once its {@code @AfterAll} ran is
 * checked after the class (a class's fixtures, a server or an executor, grow their worker threads
 * on demand during its tests and stop them at its end). What a test leaves may still be winding
 * down on another thread, so each check is retried for a short grace period (5 s unless told)
 * before the test fails; a clean test pays one pass.
 *
 * <p>Use it as {@code @ExtendWith(LeakCheck.class)}, or as a static {@code @RegisterExtension}
 * field to watch clients and bodies. Process-wide fixtures (a server shared by every test of the
 * JVM) start inside {@link #sharedFixture(Supplier, String...)} so that no test is charged with
 * their threads. {@link #begin()} and {@link #verify()} run both checks by hand. A test double that knows
 * its own leaks (the in-memory object store) {@linkplain #enrol(Watched) enrols} itself in the
 * running test's check when it is made, so a class carrying the extension watches it without a
 * line of its own. Thread-safe.
 */
public final class LeakCheck
        implements BeforeAllCallback,
                AfterAllCallback,
                TestInstancePreConstructCallback,
                BeforeEachCallback,
                AfterEachCallback {

    /** Something that can tell whether a test left it in use. */
    @FunctionalInterface
    public interface Watched {
        /**
         * Describes what is still in use.
         *
         * @return one sentence naming what was left behind, or {@code null} when nothing was
         */
        String leaks();
    }

    private static final Set<Thread> SHARED_FIXTURE_THREADS = ConcurrentHashMap.newKeySet();
    /** Name prefixes of the worker pools of shared fixtures, which grow while any test uses them. */
    private static final Set<String> SHARED_FIXTURE_POOLS = ConcurrentHashMap.newKeySet();
    /** A pool's workers are named as a family: a prefix and a number ({@code qtp1234-17}, {@code pool-3-thread-2}). */
    private static final Pattern POOL_WORKER = Pattern.compile("(.*\\D)\\d+");
    /** JUnit's own threads (the {@code @Timeout} watcher starts with the first test that has one). */
    private static final String TEST_FRAMEWORK_THREADS = "junit-";
    /** The checks between {@link #begin()} and {@link #verify()}: the tests running now. */
    private static final Set<LeakCheck> RUNNING = ConcurrentHashMap.newKeySet();

    private final Duration grace;
    private final List<Watched> watched = new CopyOnWriteArrayList<>();
    private volatile Set<Thread> threadsBefore;

    /** A check with a 5 s grace period. */
    public LeakCheck() {
        this(Duration.ofSeconds(5));
    }

    /**
     * A check that waits up to {@code grace} for what is still winding down.
     *
     * @param grace how long a leak may take to clear before it fails the test; not negative
     */
    public LeakCheck(Duration grace) {
        if (grace.isNegative()) {
            throw new IllegalArgumentException("grace must be >= 0 but was " + grace);
        }
        this.grace = grace;
    }

    /**
     * Runs {@code start}, a fixture shared by every test of this JVM (started on first use), and
     * exempts from every check the threads it starts, the later workers of the pools those belong
     * to, and the workers of the pools named in {@code workerPools}.
     *
     * @param start starts the fixture
     * @param workerPools name prefixes of its worker pools that start no thread while it starts
     *     (e.g. Spring's {@code "task-"})
     * @param <T> what it returns
     * @return what {@code start} returns
     */
    public static synchronized <T> T sharedFixture(Supplier<T> start, String... workerPools) {
        SHARED_FIXTURE_POOLS.addAll(List.of(workerPools));
        Set<Thread> before = liveThreads();
        try {
            return start.get();
        } finally {
            for (Thread t : liveThreads()) {
                if (!before.contains(t)) {
                    SHARED_FIXTURE_THREADS.add(t);
                    Matcher worker = POOL_WORKER.matcher(t.getName());
                    if (worker.matches() && !worker.group(1).equals("Thread-")) {
                        SHARED_FIXTURE_POOLS.add(worker.group(1));
                    }
                }
            }
        }
    }

    /**
     * Watches {@code watched} in the check of every test running now (none outside a test, e.g.
     * in a {@code @BeforeAll}).
     *
     * @param watched reports what is left in use
     */
    public static void enrol(Watched watched) {
        Objects.requireNonNull(watched, "watched");
        for (LeakCheck check : RUNNING) {
            check.watch(watched);
        }
    }

    /**
     * Watches {@code watched} until the end of the test.
     *
     * @param watched reports what is left in use
     * @param <T> its type
     * @return {@code watched}
     */
    public <T extends Watched> T watch(T watched) {
        this.watched.add(Objects.requireNonNull(watched, "watched"));
        return watched;
    }

    /**
     * Watches {@code client}: after the test, each named dependency must have no attempt in flight
     * and every bulkhead permit back.
     *
     * @param client the client the test built
     * @param dependencies dependency keys as {@link ResilientHttpClient#dependencyStatus(String)}
     *     takes them (e.g. {@code "http://api.test:80"}); one the client never called is clean
     * @return {@code client}
     */
    public ResilientHttpClient watch(ResilientHttpClient client, String... dependencies) {
        Objects.requireNonNull(client, "client");
        List<String> names = List.of(dependencies);
        watched.add(() -> {
            List<String> held = new ArrayList<>();
            for (String name : names) {
                Optional<DependencyStatus> status = client.dependencyStatus(name);
                status.filter(s -> s.attemptsInFlight() != 0 || s.availableBulkheadPermits() != s.maxConcurrentCalls())
                        .ifPresent(s -> held.add(s.dependency() + " has " + s.attemptsInFlight()
                                + " attempt(s) in flight"
                                + (s.maxConcurrentCalls() == Integer.MAX_VALUE
                                        ? ""
                                        : " and holds " + (s.maxConcurrentCalls() - s.availableBulkheadPermits())
                                                + " of " + s.maxConcurrentCalls() + " bulkhead permits")
                                + " (a call still in flight)"));
            }
            return held.isEmpty() ? null : String.join("; ", held);
        });
        return client;
    }

    /**
     * Watches a response body: it must be closed by the end of the test.
     *
     * @param body the body the test received
     * @return a stream reading {@code body} that records its close; read this one
     */
    public InputStream watch(InputStream body) {
        AtomicBoolean closed = new AtomicBoolean();
        String opened = Thread.currentThread().getName();
        watched.add(() -> closed.get() ? null : "a response body opened on " + opened + " was not closed");
        return new FilterInputStream(body) {
            @Override
            public void close() throws IOException {
                closed.set(true);
                super.close();
            }
        };
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        threadsBefore = liveThreads();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        check(true, false);
    }

    /** A store made in a field initializer enrols too: the test instance is made before {@code beforeEach}. */
    @Override
    public void preConstructTestInstance(TestInstanceFactoryContext factoryContext, ExtensionContext context) {
        RUNNING.add(this);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        RUNNING.add(this);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        check(false, true);
    }

    /** Notes the threads running now and watches what enrols from now on; {@link #verify()} checks both. */
    public void begin() {
        threadsBefore = liveThreads();
        RUNNING.add(this);
    }

    /**
     * Checks that nothing was left behind since {@link #begin()}, retrying for the grace period.
     *
     * @throws AssertionError naming every leak that outlived the grace period
     */
    public void verify() {
        check(true, true);
    }

    private void check(boolean threads, boolean resources) {
        if (resources) {
            RUNNING.remove(this);
        }
        try {
            awaitNoLeaks(threads, resources);
        } finally {
            if (resources) {
                watched.clear();
            }
        }
    }

    private void awaitNoLeaks(boolean threads, boolean resources) {
        long deadline = System.nanoTime() + grace.toNanos();
        while (true) {
            List<String> leaks = leaks(threads && threadsBefore != null, resources);
            if (leaks.isEmpty()) {
                return;
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new AssertionError("the test left behind: " + String.join("; ", leaks));
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    private List<String> leaks(boolean threads, boolean resources) {
        List<String> leaks = new ArrayList<>();
        for (Thread t : threads ? liveThreads() : Set.<Thread>of()) {
            if (!t.isDaemon()
                    && !threadsBefore.contains(t)
                    && !SHARED_FIXTURE_THREADS.contains(t)
                    && !t.getName().startsWith(TEST_FRAMEWORK_THREADS)
                    && SHARED_FIXTURE_POOLS.stream().noneMatch(t.getName()::startsWith)) {
                leaks.add("non-daemon thread '" + t.getName() + "' still running");
            }
        }
        for (Watched w : resources ? watched : List.<Watched>of()) {
            String leak = w.leaks();
            if (leak != null) {
                leaks.add(leak);
            }
        }
        return leaks;
    }

    private static Set<Thread> liveThreads() {
        Set<Thread> live = Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive()) {
                live.add(t);
            }
        }
        return live;
    }
}
