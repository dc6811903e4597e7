package dev.ballast.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A wrong ballast.* value stops the sample service's start-up, naming the property and the rule it breaks. */
@Timeout(120)
class SpringBootStartupFailureIT {

    @TempDir
    Path data;

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "ballast.http.retry.max-attempts=0 | ballast.http.retry.max-attempts | maxAttempts must be >= 1 but was 0",
                "ballast.http.total-timeout=-1s | ballast.http.total-timeout | totalTimeout must be positive but was PT-1S",
                "ballast.http.retry.backoff.cap=1ms | ballast.http.retry.backoff.cap | cap",
                "ballast.http.defaults.breaker.sliding-window-size=0 | ballast.http.defaults.breaker.sliding-window-size"
                        + " | slidingWindowSize must be >= 1 but was 0",
                "ballast.http.dependencies[http://127.0.0.1:1].bulkhead.max-concurrent-calls=0"
                        + " | ballast.http.dependencies[http://127.0.0.1:1].bulkhead.max-concurrent-calls"
                        + " | maxConcurrentCalls must be >= 1 but was 0",
                "ballast.http.defaults.concurrency-limit.min-limit=0 | ballast.http.defaults.concurrency-limit.min-limit"
                        + " | minLimit must be >= 1 but was 0",
                "ballast.http.defaults.concurrency-limit.latency-tolerance=1 | ballast.http.defaults.concurrency-limit"
                        + ".latency-tolerance | latencyTolerance must be > 1 and <= 100.0 but was 1.0",
                "ballast.http.defaults.concurrency-limit.window=5ms | ballast.http.defaults.concurrency-limit.window"
                        + " | window must be >= PT0.01S and <= PT1M but was PT0.005S",
                "ballast.http.dependencies[http://127.0.0.1:1].concurrency-limit.min-window-samples=0"
                        + " | ballast.http.dependencies[http://127.0.0.1:1].concurrency-limit.min-window-samples"
                        + " | minWindowSamples must be >= 1 and <= 1000 but was 0",
                "ballast.http.dependencies[http://127.0.0.1:1].concurrency-limit.initial-limit=5"
                        + " | ballast.http.dependencies[http://127.0.0.1:1].concurrency-limit.initial-limit"
                        + " | initialLimit must be >= minLimit (20) and <= maxLimit (10000) but was 5",
                "ballast.http.defaults.concurrency-limit.max-limit=10 | ballast.http.defaults.concurrency-limit.max-limit"
                        + " | maxLimit must be >= minLimit (20) but was 10",
                "ballast.http.defaults.concurrency-limit.max-waiting-calls=-1"
                        + " | ballast.http.defaults.concurrency-limit.max-waiting-calls"
                        + " | maxWaitingCalls must be >= 0 but was -1",
                "ballast.http.dependencies[ftp://files.example].retry-budget.ratio=0.5 | ballast.http.dependencies[ftp://files.example]"
                        + " | ftp://files.example",
                "ballast.http.defaults.hedging.delay-percentile=95 | ballast.http.defaults.hedging.delay | hedging needs a delay",
                "ballast.storage.last-known-good.expiry-jitter=2 | ballast.storage.last-known-good.expiry-jitter"
                        + " | expiryJitter must be in [0, 1) but was 2.0",
                "ballast.storage.s3.bucket=b | ballast.storage.local-objects | not both",
            })
    void aValueTheBuildersRefuseStopsStartUpNamingTheProperty(String setting, String property, String reason) {
        // when
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        PrintStream original = System.out;
        Throwable failure;
        System.setOut(new PrintStream(new TeeOutputStream(original, console), true, StandardCharsets.UTF_8));
        try {
            failure = catchThrowable(() -> BootedApp.start(data, "http://127.0.0.1:1", List.of(), "--" + setting));
        } finally {
            System.setOut(original);
        }

        // then
        assertThat(failure).isNotNull();
        InvalidBallastPropertyException invalid = findCause(failure);
        assertThat(invalid.property()).isEqualTo(property);
        assertThat(invalid.reason()).contains(reason);
        // and Spring Boot's start-up report, on the console, says so in words
        assertThat(console.toString(StandardCharsets.UTF_8))
                .contains("APPLICATION FAILED TO START")
                .contains("Property '" + property + "' has a value Ballast does not accept: " + invalid.reason())
                .contains("Update '" + property + "'");
    }

    /** Writes to both. */
    private static final class TeeOutputStream extends OutputStream {
        private final OutputStream first;
        private final OutputStream second;

        TeeOutputStream(OutputStream first, OutputStream second) {
            this.first = first;
            this.second = second;
        }

        @Override
        public void write(int b) throws IOException {
            first.write(b);
            second.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            first.write(b, off, len);
            second.write(b, off, len);
        }
    }

    private static InvalidBallastPropertyException findCause(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof InvalidBallastPropertyException invalid) {
                return invalid;
            }
        }
        throw new AssertionError("no InvalidBallastPropertyException in the causes of " + failure, failure);
    }
}
