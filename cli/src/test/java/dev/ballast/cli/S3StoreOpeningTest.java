package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import org.junit.jupiter.api.Test;

class S3StoreOpeningTest {
    @Test
    void anEndpointWithCredentialsBeforeItsHostIsRefusedWithoutShowingThem() {
        // field input: accepted, the credentials ignored by the S3 client and echoed in every error
        assertThatThrownBy(() -> S3StoreOpening.refuseCredentialsInEndpoint(
                        URI.create("http://AKIAUSER:s3cr3tpw@127.0.0.1:7480")))
                .isInstanceOfSatisfying(
                        CliFailure.class,
                        f -> org.assertj.core.api.Assertions.assertThat(f.exitCode())
                                .isEqualTo(ExitCodes.USAGE))
                .hasMessageStartingWith("The endpoint http://127.0.0.1:7480 was given with credentials")
                .hasMessageNotContaining("s3cr3tpw")
                .hasMessageNotContaining("AKIAUSER");
    }

    @Test
    void anEndpointWithoutThemPasses() {
        assertThatCode(() -> S3StoreOpening.refuseCredentialsInEndpoint(URI.create("https://s3.example.com")))
                .doesNotThrowAnyException();
        assertThatCode(() -> S3StoreOpening.refuseCredentialsInEndpoint(null)).doesNotThrowAnyException();
    }
}
