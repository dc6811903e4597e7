package dev.ballast.http.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class RetryConfigTest {

    @Test
    void defaultsAreThreeAttemptsFullJitterFrom100msTo10sAndRetryAfterUpTo30s() {
        RetryConfig config = RetryConfig.ofDefaults();

        assertThat(config.maxAttempts()).isEqualTo(3).isEqualTo(RetryConfig.DEFAULT_MAX_ATTEMPTS);
        assertThat(config.backoff())
                .isEqualTo(Backoff.exponential(Duration.ofMillis(100), Duration.ofSeconds(10), Jitter.FULL));
        assertThat(config.maxRetryAfter()).isEqualTo(Duration.ofSeconds(30));
        assertThat(RetryConfig.builder().build()).isEqualTo(config);
    }

    @Test
    void builderAndToBuilderCarryEveryOption() {
        Backoff backoff = Backoff.exponential(Duration.ofMillis(5), Duration.ofSeconds(1), Jitter.DECORRELATED);
        RetryConfig config = RetryConfig.builder()
                .maxAttempts(1)
                .backoff(backoff)
                .maxRetryAfter(Duration.ZERO)
                .build();

        assertThat(config.maxAttempts()).isEqualTo(1);
        assertThat(config.backoff()).isEqualTo(backoff);
        assertThat(config.maxRetryAfter()).isZero();

        RetryConfig copy = config.toBuilder().maxAttempts(7).build();
        assertThat(copy.maxAttempts()).isEqualTo(7);
        assertThat(copy.backoff()).isEqualTo(backoff);
        assertThat(config.maxAttempts()).isEqualTo(1);
        assertThat(copy.toString()).contains("maxAttempts=7", "DECORRELATED");
    }

    @Test
    void invalidOptionsAreRejectedWithWhatWouldBeAccepted() {
        assertThatThrownBy(() -> RetryConfig.builder().maxAttempts(0).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxAttempts must be >= 1 but was 0");
        assertThatThrownBy(() -> RetryConfig.builder()
                        .maxRetryAfter(Duration.ofSeconds(-1))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxRetryAfter must be >= 0 but was PT-1S");
        assertThatThrownBy(() -> RetryConfig.builder().backoff(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("backoff");
    }
}
