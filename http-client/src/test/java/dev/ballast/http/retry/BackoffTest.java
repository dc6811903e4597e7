package dev.ballast.http.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.LongSummaryStatistics;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

@Timeout(10)
class BackoffTest {

    private static final Duration BASE = Duration.ofMillis(100);
    private static final Duration CAP = Duration.ofSeconds(10);

    /** Retry numbers 1..64 and a few huge ones. */
    private static int[] retryNumbers() {
        return IntStream.concat(
                        IntStream.rangeClosed(1, 64),
                        IntStream.of(65, 1_000, 1 << 20, Integer.MAX_VALUE - 1, Integer.MAX_VALUE))
                .toArray();
    }

    /** {@code min(cap, base * 2^(n-1))} computed exactly, independently of the code under test. */
    private static long exponentialNanos(Duration base, Duration cap, int retryNumber) {
        if (retryNumber > 200) {
            return cap.toNanos();
        }
        BigInteger d = BigInteger.valueOf(base.toNanos()).shiftLeft(retryNumber - 1);
        return d.min(BigInteger.valueOf(cap.toNanos())).longValueExact();
    }

    static Stream<Backoff> shapes() {
        return Stream.of(
                Backoff.exponential(BASE, CAP, Jitter.NONE),
                Backoff.exponential(Duration.ofNanos(1), Backoff.MAX_CAP, Jitter.NONE),
                Backoff.exponential(Duration.ofSeconds(1), Duration.ofSeconds(1), Jitter.NONE),
                Backoff.exponential(Duration.ofNanos(3), Duration.ofDays(365), Jitter.NONE));
    }

    @ParameterizedTest
    @EnumSource(Jitter.class)
    void everyDelayIsWithinItsJittersBoundsForEveryRetryNumber(Jitter jitter) {
        for (Backoff shape : shapes().toList()) {
            Backoff backoff = Backoff.exponential(shape.base(), shape.cap(), jitter);
            RandomGenerator random = new SplittableRandom(20261129L);
            Duration previous = Duration.ZERO;
            for (int n : retryNumbers()) {
                for (int sample = 0; sample < 20; sample++) {
                    Duration delay = backoff.delay(n, previous, random);
                    long nanos = delay.toNanos();
                    long exponential = exponentialNanos(backoff.base(), backoff.cap(), n);

                    assertThat(delay)
                            .as("n=%d %s", n, backoff)
                            .isGreaterThanOrEqualTo(Duration.ZERO)
                            .isLessThanOrEqualTo(backoff.cap());
                    switch (jitter) {
                        case NONE -> assertThat(nanos).isEqualTo(exponential);
                        case FULL -> assertThat(nanos).isBetween(0L, exponential);
                        case EQUAL -> assertThat(nanos).isBetween(exponential / 2, exponential);
                        case DECORRELATED -> {
                            long floor = backoff.base().toNanos();
                            long previousOrBase = Math.max(floor, previous.toNanos());
                            long ceiling = BigInteger.valueOf(previousOrBase)
                                    .multiply(BigInteger.valueOf(3))
                                    .min(BigInteger.valueOf(backoff.cap().toNanos()))
                                    .longValueExact();
                            assertThat(nanos)
                                    .as("n=%d previous=%s", n, previous)
                                    .isBetween(floor, ceiling);
                        }
                    }
                    previous = delay;
                }
            }
        }
    }

    @Test
    void noJitterDoublesFromBaseUpToTheCap() {
        Backoff backoff = Backoff.exponential(BASE, CAP, Jitter.NONE);
        RandomGenerator unused = new ThrowingRandom();

        assertThat(backoff.delay(1, Duration.ZERO, unused)).isEqualTo(Duration.ofMillis(100));
        assertThat(backoff.delay(2, Duration.ZERO, unused)).isEqualTo(Duration.ofMillis(200));
        assertThat(backoff.delay(3, Duration.ZERO, unused)).isEqualTo(Duration.ofMillis(400));
        assertThat(backoff.delay(7, Duration.ZERO, unused)).isEqualTo(Duration.ofMillis(6400));
        assertThat(backoff.delay(8, Duration.ZERO, unused)).isEqualTo(CAP);
        assertThat(backoff.delay(Integer.MAX_VALUE, Duration.ZERO, unused)).isEqualTo(CAP);
    }

    @Test
    void noOverflowAtTheLargestCap() {
        Backoff backoff = Backoff.exponential(Duration.ofNanos(1), Backoff.MAX_CAP, Jitter.NONE);
        RandomGenerator unused = new ThrowingRandom();

        assertThat(backoff.delay(63, Duration.ZERO, unused)).isEqualTo(Duration.ofNanos(1L << 62));
        assertThat(backoff.delay(64, Duration.ZERO, unused)).isEqualTo(Backoff.MAX_CAP);
        assertThat(backoff.delay(Integer.MAX_VALUE, Duration.ZERO, unused)).isEqualTo(Backoff.MAX_CAP);
    }

    @Test
    void fullJitterSpreadsOverTheWholeRange() {
        LongSummaryStatistics stats = sample(Backoff.exponential(BASE, CAP, Jitter.FULL), 10);

        assertThat(stats.getMin()).isLessThan(CAP.toNanos() / 10);
        assertThat(stats.getMax()).isGreaterThan(CAP.toNanos() * 9 / 10);
    }

    @Test
    void equalJitterSpreadsOverTheUpperHalf() {
        LongSummaryStatistics stats = sample(Backoff.exponential(BASE, CAP, Jitter.EQUAL), 10);

        assertThat(stats.getMin()).isBetween(CAP.toNanos() / 2, CAP.toNanos() * 6 / 10);
        assertThat(stats.getMax()).isGreaterThan(CAP.toNanos() * 9 / 10);
    }

    @Test
    void decorrelatedJitterGrowsFromThePreviousDelay() {
        Backoff backoff = Backoff.exponential(BASE, CAP, Jitter.DECORRELATED);
        RandomGenerator random = new SplittableRandom(7);

        LongSummaryStatistics first = new LongSummaryStatistics();
        LongSummaryStatistics afterTwoSeconds = new LongSummaryStatistics();
        for (int i = 0; i < 1_000; i++) {
            first.accept(backoff.delay(1, Duration.ZERO, random).toNanos());
            afterTwoSeconds.accept(
                    backoff.delay(1, Duration.ofSeconds(2), random).toNanos());
        }

        assertThat(first.getMax()).isLessThanOrEqualTo(Duration.ofMillis(300).toNanos());
        assertThat(afterTwoSeconds.getMax()).isGreaterThan(Duration.ofSeconds(5).toNanos());
        assertThat(backoff.delay(1, Duration.ofSeconds(Long.MAX_VALUE), random)).isLessThanOrEqualTo(CAP);
        assertThat(backoff.delay(1, ChronoUnit.FOREVER.getDuration(), random)).isLessThanOrEqualTo(CAP);
    }

    @Test
    void theSameSeedGivesTheSameDelays() {
        Backoff backoff = Backoff.exponential(BASE, CAP, Jitter.FULL);

        assertThat(backoff.delay(5, Duration.ZERO, new SplittableRandom(3)))
                .isEqualTo(backoff.delay(5, Duration.ZERO, new SplittableRandom(3)));
    }

    private static LongSummaryStatistics sample(Backoff backoff, int retryNumber) {
        RandomGenerator random = new SplittableRandom(11);
        LongSummaryStatistics stats = new LongSummaryStatistics();
        for (int i = 0; i < 2_000; i++) {
            stats.accept(backoff.delay(retryNumber, Duration.ZERO, random).toNanos());
        }
        return stats;
    }

    @Test
    void accessorsReturnWhatWasGiven() {
        Backoff backoff = Backoff.exponential(BASE, CAP, Jitter.EQUAL);

        assertThat(backoff.base()).isEqualTo(BASE);
        assertThat(backoff.cap()).isEqualTo(CAP);
        assertThat(backoff.jitter()).isEqualTo(Jitter.EQUAL);
        assertThat(backoff)
                .isEqualTo(Backoff.exponential(BASE, CAP, Jitter.EQUAL))
                .hasSameHashCodeAs(Backoff.exponential(BASE, CAP, Jitter.EQUAL))
                .isNotEqualTo(Backoff.exponential(BASE, CAP, Jitter.FULL));
        assertThat(backoff.toString()).contains("PT0.1S", "PT10S", "EQUAL");
    }

    @Test
    void badArgumentsAreRejected() {
        assertThatThrownBy(() -> Backoff.exponential(Duration.ZERO, CAP, Jitter.FULL))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("base must be > 0 but was PT0S");
        assertThatThrownBy(() -> Backoff.exponential(Duration.ofMillis(-1), CAP, Jitter.FULL))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Backoff.exponential(CAP, BASE, Jitter.FULL))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cap must be >= base");
        assertThatThrownBy(() -> Backoff.exponential(BASE, Backoff.MAX_CAP.plusNanos(1), Jitter.FULL))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cap must be <=");
        assertThatThrownBy(() -> Backoff.exponential(BASE, CAP, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("jitter");

        Backoff backoff = Backoff.exponential(BASE, CAP, Jitter.FULL);
        RandomGenerator random = new SplittableRandom(1);
        assertThatThrownBy(() -> backoff.delay(0, Duration.ZERO, random))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("retryNumber must be >= 1 but was 0");
        assertThatThrownBy(() -> backoff.delay(1, Duration.ofMillis(-1), random))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("previousDelay must be >= 0");
        assertThatThrownBy(() -> backoff.delay(1, null, random))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("previousDelay");
        assertThatThrownBy(() -> backoff.delay(1, Duration.ZERO, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("random");
    }

    /** Proves that {@link Jitter#NONE} draws no randomness. */
    private static final class ThrowingRandom implements RandomGenerator {
        @Override
        public long nextLong() {
            throw new AssertionError("NONE must not draw randomness");
        }
    }
}
