package dev.ballast.http.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.http.idempotency.IdempotencyKeyConfig.Policy;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(10)
class IdempotencyKeyConfigTest {

    @ParameterizedTest(name = "{0} idempotent: {1}")
    @CsvSource({
        "GET, true",
        "HEAD, true",
        "OPTIONS, true",
        "TRACE, true",
        "PUT, true",
        "DELETE, true",
        "POST, false",
        "PATCH, false",
        "CONNECT, false",
        "PROPFIND, false",
        "get, false",
        "Put, false",
        "delete, false",
    })
    void idempotentMethodsAreTheSixOfRfc9110AndCaseSensitive(String method, boolean idempotent) {
        assertThat(IdempotencyKeyConfig.isIdempotentMethod(method)).isEqualTo(idempotent);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "POST,   true,  true, false",
        "PATCH,  true,  true, false",
        "GET,    true,  false, false",
        "PUT,    true,  false, false",
        "DELETE, true,  false, false",
        "post,   true,  true, false",
    })
    void shouldAddFollowsThePolicy(String method, boolean always, boolean nonIdempotentOnly, boolean never) {
        assertThat(IdempotencyKeyConfig.builder().policy(Policy.ALWAYS).build().shouldAdd(method))
                .isEqualTo(always);
        assertThat(IdempotencyKeyConfig.ofDefaults().shouldAdd(method)).isEqualTo(nonIdempotentOnly);
        assertThat(IdempotencyKeyConfig.builder().policy(Policy.NEVER).build().shouldAdd(method))
                .isEqualTo(never);
    }

    @Test
    void defaultsAreNonIdempotentMethodsIdempotencyKeyHeaderAndRandomUuids() {
        IdempotencyKeyConfig keys = IdempotencyKeyConfig.ofDefaults();

        assertThat(keys.policy()).isEqualTo(Policy.NON_IDEMPOTENT_METHODS);
        assertThat(keys.headerName()).isEqualTo("Idempotency-Key").isEqualTo(IdempotencyKeyConfig.DEFAULT_HEADER);
        Set<String> generated = new HashSet<>();
        for (int i = 0; i < 1_000; i++) {
            String key = keys.newKey();
            assertThat(UUID.fromString(key).version()).isEqualTo(4);
            generated.add(key);
        }
        assertThat(generated).hasSize(1_000);
    }

    @Test
    void headerNameAndGeneratorAreConfigurable() {
        AtomicInteger counter = new AtomicInteger();
        IdempotencyKeyConfig keys = IdempotencyKeyConfig.builder()
                .headerName("X-Request-Id")
                .generator(() -> "key-" + counter.incrementAndGet())
                .build();

        assertThat(keys.headerName()).isEqualTo("X-Request-Id");
        assertThat(keys.newKey()).isEqualTo("key-1");
        assertThat(keys.newKey()).isEqualTo("key-2");

        IdempotencyKeyConfig copy = keys.toBuilder().policy(Policy.ALWAYS).build();
        assertThat(copy.headerName()).isEqualTo("X-Request-Id");
        assertThat(copy.newKey()).isEqualTo("key-3");
        assertThat(keys.policy()).isEqualTo(Policy.NON_IDEMPOTENT_METHODS);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "Idempotency Key", "Key:", "Ключ", "key\r\n"})
    void headerNamesMustBeTokens(String headerName) {
        assertThatThrownBy(() ->
                        IdempotencyKeyConfig.builder().headerName(headerName).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("headerName must be a non-empty RFC 9110 token");
    }

    @Test
    void aGeneratorThatReturnsNoKeyIsReported() {
        IdempotencyKeyConfig nullKeys =
                IdempotencyKeyConfig.builder().generator(() -> null).build();
        IdempotencyKeyConfig blankKeys =
                IdempotencyKeyConfig.builder().generator(() -> " ").build();

        assertThatThrownBy(nullKeys::newKey)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("null");
        assertThatThrownBy(blankKeys::newKey)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("' '");
    }

    @Test
    void nullsAreRejectedByName() {
        assertThatThrownBy(() -> IdempotencyKeyConfig.isIdempotentMethod(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("method");
        assertThatThrownBy(() -> IdempotencyKeyConfig.ofDefaults().shouldAdd(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("method");
        assertThatThrownBy(() -> IdempotencyKeyConfig.builder().policy(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("policy");
        assertThatThrownBy(() -> IdempotencyKeyConfig.builder().headerName(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("headerName");
        assertThatThrownBy(() -> IdempotencyKeyConfig.builder().generator(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("generator");
    }

    @ParameterizedTest
    @ValueSource(strings = {"POST", "PATCH", "GET", "PUT", "CONNECT"})
    void disabledKeysNoRequestAsPolicyNeverDoes(String method) {
        IdempotencyKeyConfig disabled = IdempotencyKeyConfig.disabled();

        assertThat(disabled.shouldAdd(method)).isFalse();
        assertThat(disabled.enabled()).isFalse();
        assertThat(disabled.policy()).isEqualTo(Policy.NEVER);
        assertThat(disabled.headerName()).isEqualTo(IdempotencyKeyConfig.DEFAULT_HEADER);
        assertThat(IdempotencyKeyConfig.ofDefaults().enabled()).isTrue();
        assertThat(IdempotencyKeyConfig.builder().policy(Policy.ALWAYS).build().enabled())
                .isTrue();
    }
}
