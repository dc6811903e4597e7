package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.Advice;
import org.junit.jupiter.api.Test;

class CliWordingTest {
    @Test
    void everyLibraryRemedyIsWordedAsTheCommandsOwnAndNoneIsLeftInTheLibrarysTerms() {
        for (Advice a : Advice.values()) {
            Object[] args = new Object[a.placeholders()];
            for (int i = 0; i < args.length; i++) {
                args[i] = "arg" + i;
            }
            String reworded = CliWording.reword("Before: " + a.text(args) + " after.");
            assertThat(reworded)
                    .as(a.name())
                    .doesNotContain(a.anchor())
                    .startsWith("Before: ")
                    .endsWith(" after.");
        }
    }

    @Test
    void aRemedyWithAVersionKeepsItsArgumentsInTheirPlaces() {
        assertThat(CliWording.reword("Skipped: " + Advice.FORGET_VERSION.text("photos", "0194abc") + "."))
                .isEqualTo("Skipped: forget that version first (ballast forget photos --manifest-version 0194abc).");
        assertThat(CliWording.reword("Pass " + Advice.USE_VERSION.text("3dc7957f") + " the partial one."))
                .isEqualTo("Pass --manifest-version 3dc7957f to use the partial one.");
    }

    @Test
    void textWithoutAnyRemedyIsUnchanged() {
        String plain = "Restored 3 files (12 bytes) into /tmp/x.";
        assertThat(CliWording.reword(plain)).isSameAs(plain);
    }
}
