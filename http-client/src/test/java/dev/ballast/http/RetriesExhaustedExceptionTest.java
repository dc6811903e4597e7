package dev.ballast.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpTimeoutException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class RetriesExhaustedExceptionTest {

    @Test
    void carriesEveryAttemptsFailureInOrderAndTheLastAsCause() {
        IOException first = new ConnectException("refused");
        IOException second = new HttpTimeoutException("timed out");

        RetriesExhaustedException e =
                new RetriesExhaustedException("https://api:443", 2, "attempts exhausted", List.of(first, second));

        assertThat(e).isInstanceOf(IOException.class);
        assertThat(e.getSuppressed()).containsExactly(first, second);
        assertThat(e.getCause()).isSameAs(second);
        assertThat(e.dependency()).isEqualTo("https://api:443");
        assertThat(e.attempts()).isEqualTo(2);
        assertThat(e.getMessage())
                .isEqualTo("Call to dependency 'https://api:443' failed after 2 attempts"
                        + " (attempts exhausted); last failure: java.net.http.HttpTimeoutException: timed out");
    }

    @Test
    void rejectsInvalidArguments() {
        assertThatThrownBy(() -> new RetriesExhaustedException("d", 0, "r", List.of(new IOException())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("attempts must be >= 1 but was 0");
        assertThatThrownBy(() -> new RetriesExhaustedException("d", 1, "r", List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("failures must not be empty");
        assertThatThrownBy(() -> new RetriesExhaustedException(null, 1, "r", List.of(new IOException())))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("dependency");
    }
}
