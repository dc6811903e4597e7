package dev.ballast.http.breaker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@Timeout(10)
class BreakerConfigTest {

    @Test
    void defaultsAreTheDocumentedConstants() {
        BreakerConfig config = BreakerConfig.ofDefaults();

        assertThat(config.failureRateThreshold())
                .isEqualTo(50.0)
                .isEqualTo(BreakerConfig.DEFAULT_FAILURE_RATE_THRESHOLD);
        assertThat(config.slidingWindowSize()).isEqualTo(20);
        assertThat(config.minimumNumberOfCalls()).isEqualTo(10);
        assertThat(config.consecutiveFailureThreshold()).isEqualTo(5);
        assertThat(config.slowCallRateThreshold()).isEqualTo(100.0);
        assertThat(config.slowCallDurationThreshold())
                .isEqualTo(Duration.ofSeconds(60))
                .isEqualTo(BreakerConfig.DEFAULT_SLOW_CALL_DURATION_THRESHOLD);
        assertThat(config.waitDurationInOpenState()).isEqualTo(Duration.ofSeconds(5));
        assertThat(config.openStateJitter()).isEqualTo(0.2);
        assertThat(config.permittedNumberOfCallsInHalfOpenState()).isEqualTo(1);
        assertThat(config.maxWaitDurationInHalfOpenState()).isEqualTo(Duration.ofSeconds(60));
        assertThat(BreakerConfig.builder().build()).isEqualTo(config).hasSameHashCodeAs(config);
    }

    @Test
    void toBuilderCopiesEveryOption() {
        BreakerConfig config = BreakerConfig.builder()
                .failureRateThreshold(25)
                .slidingWindowSize(50)
                .minimumNumberOfCalls(50)
                .consecutiveFailureThreshold(0)
                .slowCallRateThreshold(30)
                .slowCallDurationThreshold(Duration.ofSeconds(3))
                .waitDurationInOpenState(Duration.ofMillis(300))
                .openStateJitter(0)
                .permittedNumberOfCallsInHalfOpenState(4)
                .maxWaitDurationInHalfOpenState(Duration.ofSeconds(2))
                .build();

        BreakerConfig copy = config.toBuilder().build();

        assertThat(copy).isEqualTo(config);
        assertThat(copy.toString())
                .contains(
                        "failureRateThreshold=25.0",
                        "slidingWindowSize=50",
                        "permittedNumberOfCallsInHalfOpenState=4",
                        "maxWaitDurationInHalfOpenState=PT2S",
                        "slowCallRateThreshold=30.0",
                        "slowCallDurationThreshold=PT3S");
        assertThat(config.toBuilder()
                        .slowCallDurationThreshold(Duration.ofSeconds(4))
                        .build())
                .isNotEqualTo(config);
        assertThat(config.toBuilder().slidingWindowSize(60).build()).isNotEqualTo(config);
    }

    static Stream<Arguments> invalid() {
        return Stream.of(
                bad(b -> b.failureRateThreshold(0), "failureRateThreshold must be > 0 and <= 100 but was 0.0"),
                bad(b -> b.failureRateThreshold(100.5), "failureRateThreshold must be > 0 and <= 100 but was 100.5"),
                bad(b -> b.failureRateThreshold(Double.NaN), "failureRateThreshold must be > 0 and <= 100 but was NaN"),
                bad(b -> b.slidingWindowSize(0), "slidingWindowSize must be >= 1 but was 0"),
                bad(
                        b -> b.minimumNumberOfCalls(0),
                        "minimumNumberOfCalls must be >= 1 and <= slidingWindowSize (20) but was 0"),
                bad(
                        b -> b.minimumNumberOfCalls(21),
                        "minimumNumberOfCalls must be >= 1 and <= slidingWindowSize (20) but was 21"),
                bad(b -> b.consecutiveFailureThreshold(-1), "consecutiveFailureThreshold must be >= 0 but was -1"),
                bad(b -> b.slowCallRateThreshold(0), "slowCallRateThreshold must be > 0 and <= 100 but was 0.0"),
                bad(b -> b.slowCallRateThreshold(101), "slowCallRateThreshold must be > 0 and <= 100 but was 101.0"),
                bad(b -> b.slowCallDurationThreshold(Duration.ZERO), "slowCallDurationThreshold must be > 0"),
                bad(b -> b.waitDurationInOpenState(Duration.ZERO), "waitDurationInOpenState must be > 0"),
                bad(b -> b.waitDurationInOpenState(Duration.ofDays(365 * 200)), "waitDurationInOpenState must be > 0"),
                bad(b -> b.openStateJitter(1.0), "openStateJitter must be >= 0 and < 1 but was 1.0"),
                bad(b -> b.openStateJitter(-0.1), "openStateJitter must be >= 0 and < 1 but was -0.1"),
                bad(
                        b -> b.permittedNumberOfCallsInHalfOpenState(0),
                        "permittedNumberOfCallsInHalfOpenState must be >= 1 but was 0"),
                bad(
                        b -> b.maxWaitDurationInHalfOpenState(Duration.ofSeconds(-1)),
                        "maxWaitDurationInHalfOpenState must be > 0"));
    }

    private static Arguments bad(UnaryOperator<BreakerConfig.Builder> change, String message) {
        return Arguments.of(change, message);
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("invalid")
    void invalidOptionsAreRejectedWithWhatWouldBeAccepted(UnaryOperator<BreakerConfig.Builder> change, String message) {
        assertThatThrownBy(() -> change.apply(BreakerConfig.builder()).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(message);
    }

    @Test
    void nullDurationsAreRejectedByName() {
        assertThatThrownBy(() -> BreakerConfig.builder().waitDurationInOpenState(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("waitDurationInOpenState");
        assertThatThrownBy(() -> BreakerConfig.builder().maxWaitDurationInHalfOpenState(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("maxWaitDurationInHalfOpenState");
        assertThatThrownBy(() -> BreakerConfig.builder().slowCallDurationThreshold(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("slowCallDurationThreshold");
    }
}
