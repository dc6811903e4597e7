package dev.ballast.storage.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class ObjectKeysTest {

    @ParameterizedTest
    @ValueSource(
            strings = {
                "a",
                "a//b",
                "x y+z",
                "caf\u00e9",
                "cafe\u0301",
                "dir/",
                "a/./b",
                "..x",
                "x..",
                "emoji-\ud83d\ude00"
            })
    void acceptsKeysUnchanged(String key) {
        assertThat(ObjectKeys.validate(key, false)).isSameAs(key);
    }

    @Test
    void lengthIsCountedInUtf8BytesUpTo1024() {
        assertThat(ObjectKeys.validate("k".repeat(1024), false)).hasSize(1024);
        assertThat(ObjectKeys.validate("\u00e9".repeat(512), false)).hasSize(512);
        assertThatThrownBy(() -> ObjectKeys.validate("\u00e9".repeat(513), false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 1024 UTF-8 bytes but was 1026 bytes");
        assertThatThrownBy(() -> ObjectKeys.validate("", false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("was empty");
        assertThatThrownBy(() -> ObjectKeys.validate(null, false))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("key");
    }

    @ParameterizedTest
    @ValueSource(strings = {"a\u0000b", "tab\there", "line\n", "del\u007f", "c1\u0085"})
    void rejectsControlCharactersNamingThem(String key) {
        assertThatThrownBy(() -> ObjectKeys.validate(key, true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("control characters")
                .hasMessageContaining(String.format(
                        "U+%04X",
                        key.chars().filter(Character::isISOControl).findFirst().orElseThrow()));
    }

    @Test
    void rejectsUnpairedSurrogatesWhichCannotRoundTrip() {
        assertThatThrownBy(() -> ObjectKeys.validate("bad\ud800", false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unpaired surrogates");
    }

    @Test
    void dotDotSegmentsAndLeadingSlashAreRejectedUnlessAllowed() {
        for (String key : new String[] {"..", "../x", "a/../b", "a/.."}) {
            assertThatThrownBy(() -> ObjectKeys.validate(key, false))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'..' segment")
                    .hasMessageContaining(key);
            assertThat(ObjectKeys.validate(key, true)).isEqualTo(key);
        }
        assertThatThrownBy(() -> ObjectKeys.validate("/etc/x", false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("start with '/'");
        assertThat(ObjectKeys.validate("/etc/x", true)).isEqualTo("/etc/x");
    }

    @Test
    void theReservedPrefixIsRejectedEvenWhenPathsAreAllowed() {
        assertThatThrownBy(() -> ObjectKeys.validate(".ballast/probe/1", true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("reserved prefix");
        assertThat(ObjectKeys.validate(".ballastx", false)).isEqualTo(".ballastx");
    }
}
