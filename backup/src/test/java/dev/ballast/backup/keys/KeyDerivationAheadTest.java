package dev.ballast.backup.keys;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class KeyDerivationAheadTest {
    /** Small parameters: the test is about which derivation is used, not its cost. */
    private static final KdfParameters KDF = new KdfParameters(64, 1, 1);

    private static byte[] salt(int seed) {
        byte[] s = new byte[KdfParameters.SALT_BYTES];
        Arrays.fill(s, (byte) seed);
        return s;
    }

    @Test
    void aKeyFileWithTheSaltDerivedAheadWithGetsThatKeyAndAnyOtherIsDerivedNow() {
        char[] password = "right".toCharArray();
        try (KeyDerivationAhead ahead = KeyDerivationAhead.start(password, new KeyDerivationAhead.Salt(KDF, salt(1)))) {
            Arrays.fill(password, 'x'); // the caller's copy is its own
            // The key handed back for the salt derived ahead with is that derivation's, whatever password is
            // passed now (the caller passes the same one): proof that it was not derived again.
            assertThat(ahead.derive("other".toCharArray(), KDF, salt(1)))
                    .isEqualTo(KDF.derive("right".toCharArray(), salt(1)));
            assertThat(ahead.derive("other".toCharArray(), KDF, salt(2)))
                    .isEqualTo(KDF.derive("other".toCharArray(), salt(2)));
            assertThat(ahead.derive("other".toCharArray(), new KdfParameters(128, 1, 1), salt(1)))
                    .isEqualTo(new KdfParameters(128, 1, 1).derive("other".toCharArray(), salt(1)));
        }
    }

    @Test
    void parametersCostlierThanFourTimesTheDefaultAreNotDerivedAhead() {
        byte[] salt = salt(4);
        assertThat(KeyDerivationAhead.worthStarting(new KeyDerivationAhead.Salt(KdfParameters.DEFAULT, salt)))
                .isTrue();
        assertThat(KeyDerivationAhead.worthStarting(new KeyDerivationAhead.Salt(new KdfParameters(65536, 4, 4), salt)))
                .isTrue();
        KeyDerivationAhead.Salt huge = new KeyDerivationAhead.Salt(new KdfParameters(4 * 1024 * 1024, 1, 4), salt);
        assertThat(KeyDerivationAhead.worthStarting(huge)).isFalse();
        try (KeyDerivationAhead ahead = KeyDerivationAhead.start("pw".toCharArray(), huge)) {
            assertThat(ahead.ahead()).isNull();
            assertThat(ahead.derive("pw".toCharArray(), KDF, salt)).isEqualTo(KDF.derive("pw".toCharArray(), salt));
        }
    }

    @Test
    void theSaltOfTheKeyFileThatOpenedIsRecorded() {
        try (KeyDerivationAhead none = KeyDerivationAhead.none()) {
            assertThat(none.opened()).isNull();
            none.opened(KDF, salt(3));
            assertThat(none.opened()).isEqualTo(new KeyDerivationAhead.Salt(KDF, salt(3)));
        }
    }

    @Test
    void aSaltIsWrittenAndReadBackAndAnythingElseReadsAsNothing() {
        KeyDerivationAhead.Salt s = new KeyDerivationAhead.Salt(KdfParameters.DEFAULT, salt(7));
        assertThat(KeyDerivationAhead.Salt.parse(s.encode())).isEqualTo(s);
        assertThat(KeyDerivationAhead.Salt.parse(null)).isNull();
        assertThat(KeyDerivationAhead.Salt.parse("")).isNull();
        assertThat(KeyDerivationAhead.Salt.parse("65536 1 4")).isNull();
        assertThat(KeyDerivationAhead.Salt.parse("65536 1 4 not-base64!")).isNull();
        assertThat(KeyDerivationAhead.Salt.parse("65536 1 4 AAAA"))
                .as("a salt of 3 bytes")
                .isNull();
        assertThat(KeyDerivationAhead.Salt.parse("1 1 4 " + s.encode().split(" ")[3]))
                .as("memory below 8 KiB a lane")
                .isNull();
        assertThat(KeyDerivationAhead.Salt.parse("x 1 4 " + s.encode().split(" ")[3]))
                .isNull();
    }
}
