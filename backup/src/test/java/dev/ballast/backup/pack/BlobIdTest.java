package dev.ballast.backup.pack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A blob ID's hex form, as manifests and index files write it, parses back to the same 32 bytes,
 * in either case; anything else is refused, naming what was given.
 */
class BlobIdTest {

    @Test
    void parsesTheHexOfAnyBytesInEitherCase() {
        Random random = new Random(1);
        for (int i = 0; i < 1000; i++) {
            byte[] bytes = new byte[BlobId.LENGTH];
            random.nextBytes(bytes);
            String hex = HexFormat.of().formatHex(bytes);

            assertThat(BlobId.parse(hex).bytes()).isEqualTo(bytes);
            assertThat(BlobId.parse(hex.toUpperCase(java.util.Locale.ROOT)).bytes())
                    .isEqualTo(bytes);
            assertThat(BlobId.parse(hex).hex()).isEqualTo(hex);
        }
        assertThat(BlobId.parse("00".repeat(32)).bytes()).isEqualTo(new byte[32]);
        assertThat(BlobId.parse("ff".repeat(32)).hex()).isEqualTo("ff".repeat(32));
        assertThat(BlobId.parse("0123456789abcdefABCDEF".repeat(3).substring(0, 64))
                        .hex())
                .isEqualTo("0123456789abcdefabcdef".repeat(3).substring(0, 64));
    }

    @Test
    void refusesAnythingButSixtyFourHexDigits() {
        String good = "0123456789abcdef".repeat(4);
        // Each character that is not a hex digit, at the first, a middle and the last place.
        for (char c : new char[] {'g', 'G', 'z', ' ', '-', '+', '/', ':', '@', '`', '[', '\u0660', '\uff10', 0}) {
            for (int at : new int[] {0, 31, 63}) {
                String bad = good.substring(0, at) + c + good.substring(at + 1);
                assertThatThrownBy(() -> BlobId.parse(bad))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessage("blob ID '" + bad + "' is not 64 hex digits");
            }
        }
        for (String bad : new String[] {"", "0", good.substring(1), good + "0", good + good}) {
            assertThatThrownBy(() -> BlobId.parse(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("blob ID '" + bad + "' is not 64 hex digits");
        }
    }
}
