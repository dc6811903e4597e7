package dev.ballast.storage.object.s3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.storage.AccessDeniedException;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.UnsupportedCapabilityException;
import java.io.IOException;
import java.net.ConnectException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.model.S3Exception;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class S3ErrorsTest {

  private static S3Exception http(int status, String code) {
    return (S3Exception) S3Exception.builder().statusCode(status)
        .awsErrorDetails(AwsErrorDetails.builder().errorCode(code).errorMessage(code + " message").build())
        .build();
  }

  /** Stand-ins named like the resilient client's exceptions, which are IOExceptions. */
  static final class CircuitOpenException extends IOException {
    private static final long serialVersionUID = 1L;
  }

  static final class RetriesExhaustedException extends IOException {
    private static final long serialVersionUID = 1L;
  }

  @Test
  void unreachableThrottledAnd5xxAreUnavailableWithTheCauseKept() {
    for (var e : new software.amazon.awssdk.core.exception.SdkException[] {
        http(500, "InternalError"), http(503, "SlowDown"), http(429, "TooManyRequests"), http(408, "RequestTimeout"),
        SdkClientException.create("no route", new ConnectException("refused")),
        SdkClientException.create("open", new CircuitOpenException()),
        SdkClientException.create("exhausted", new RetriesExhaustedException())}) {
      assertThat(S3Errors.translate("k", "GET of 'k'", e))
          .isInstanceOf(StorageUnavailableException.class)
          .hasCause(e)
          .hasMessageContaining("GET of 'k'")
          .satisfies(x -> assertThat(((StorageUnavailableException) x).key()).isEqualTo("k"));
    }
  }

  @Test
  void forbiddenIsANonRetryableAccessDenial() {
    assertThat(S3Errors.translate("k", "PUT of 'k'", http(403, "SignatureDoesNotMatch")))
        .isInstanceOfSatisfying(AccessDeniedException.class, e -> assertThat(e.retryable()).isFalse())
        .hasMessageContaining("403 SignatureDoesNotMatch")
        .hasMessageContaining("secret key");
  }

  @Test
  void digestCodesAreIntegrityFailuresAndOther4xxAreRefusals() {
    assertThat(S3Errors.translate("k", "PUT of 'k'", http(400, "BadDigest"))).isInstanceOf(IntegrityException.class);
    assertThat(S3Errors.translate("k", "PUT of 'k'", http(400, "XAmzContentSHA256Mismatch")))
        .isInstanceOf(IntegrityException.class);
    assertThat(S3Errors.translate("k", "PUT of 'k'", http(501, "NotImplemented")))
        .isInstanceOf(UnsupportedCapabilityException.class).hasMessageContaining("not supported by this endpoint");
    assertThat(S3Errors.translate("k", "PUT of 'k'", http(400, "InvalidArgument")))
        .isInstanceOf(UnsupportedCapabilityException.class).hasMessageContaining("InvalidArgument");
  }

  @Test
  void ambiguityFollowsWhetherTheRequestMayHaveTakenEffect() {
    assertThat(S3Errors.ambiguous(SdkClientException.create("reset", new IOException("Connection reset")))).isTrue();
    assertThat(S3Errors.ambiguous(SdkClientException.create("x", new RetriesExhaustedException()))).isTrue();
    RetriesExhaustedException lastRefused = new RetriesExhaustedException();
    lastRefused.initCause(new ConnectException("refused on the last attempt"));
    assertThat(S3Errors.ambiguous(SdkClientException.create("x", lastRefused))).isTrue();
    assertThat(S3Errors.ambiguous(http(500, "InternalError"))).isTrue();
    assertThat(S3Errors.ambiguous(http(504, "GatewayTimeout"))).isTrue();
    assertThat(S3Errors.ambiguous(SdkClientException.create("x", new ConnectException("refused")))).isFalse();
    assertThat(S3Errors.ambiguous(SdkClientException.create("x", new CircuitOpenException()))).isFalse();
    assertThat(S3Errors.ambiguous(http(503, "SlowDown"))).isFalse();
    assertThat(S3Errors.ambiguous(http(412, "PreconditionFailed"))).isFalse();
  }
}
