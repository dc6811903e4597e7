package dev.ballast.storage.object;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The value rules of {@link ByteRange} and {@link ObjectMetadata} that keep every store answering alike. */
class RangeAndMetadataRulesTest {

    @Test
    void aRangeReachingPastAnyObjectRunsToTheEndAndNamesNoOverflowedByte() {
        ByteRange huge = ByteRange.of(6, Long.MAX_VALUE);

        assertThat(huge).isEqualTo(ByteRange.from(6));
        assertThat(huge.header()).isEqualTo("bytes=6-");
        assertThat(huge.resolve("small", 11)).isEqualTo(ByteRange.of(6, 5));
        assertThat(ByteRange.of(0, Long.MAX_VALUE).header()).isEqualTo("bytes=0-");
        assertThat(ByteRange.of(1L << 40, 1L << 40).header()).isEqualTo("bytes=1099511627776-2199023255551");
    }

    @Test
    void metadataValuesThatHttpWouldTrimOrDropAreRefusedOnEveryStoreAlike() {
        assertThatThrownBy(() ->
                        ObjectMetadata.builder().contentType(" text/plain ").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("The contentType value ' text/plain ' is not accepted: use 1 to 1,024 printable US-ASCII"
                        + " characters (0x20 to 0x7E), not starting or ending with a space (leave it unset for none)");
        assertThatThrownBy(() -> ObjectMetadata.builder().cacheControl("").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("The cacheControl value '' is not accepted");
        assertThatThrownBy(() -> ObjectMetadata.builder().user("k", " v  x ").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("The user metadata 'k' value ' v  x ' is not accepted");

        assertThat(ObjectMetadata.builder().user("k", "v  x").build().user()).containsEntry("k", "v  x");
    }
}
