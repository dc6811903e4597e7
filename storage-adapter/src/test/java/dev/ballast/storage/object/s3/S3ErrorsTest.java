package dev.ballast.storage.object.s3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.http.CircuitOpenException;
import dev.ballast.http.RetriesExhaustedException;
import dev.ballast.storage.AccessDeniedException;
import dev.ballast.storage.BucketNotFoundException;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.RequestRefusedException;
import dev.ballast.storage.StorageException;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.UnsupportedCapabilityException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.S3Exception;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class S3ErrorsTest {

    private static S3Exception answer(int status, String code) {
        return (S3Exception) S3Exception.builder()
                .statusCode(status)
                .awsErrorDetails(AwsErrorDetails.builder()
                        .errorCode(code)
                        .errorMessage(code + " message")
                        .build())
                .build();
    }

    private static SdkClientException noAnswer(Throwable cause) {
        return SdkClientException.create("no answer", cause);
    }

    private static RetriesExhaustedException exhausted(Throwable... attempts) {
        return new RetriesExhaustedException(
                "http://s3.test:9000", attempts.length, "attempts exhausted", List.of(attempts));
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource({
        "500, InternalError, StorageUnavailableException",
        "503, SlowDown, StorageUnavailableException",
        "429, TooManyRequests, StorageUnavailableException",
        "408, RequestTimeout, StorageUnavailableException",
        "403, SignatureDoesNotMatch, AccessDeniedException",
        "401, Unauthorized, AccessDeniedException",
        "400, BadDigest, IntegrityException",
        "400, XAmzContentSHA256Mismatch, IntegrityException",
        "400, XAmzContentChecksumMismatch, IntegrityException",
        "400, InvalidDigest, IntegrityException",
        "501, NotImplemented, UnsupportedCapabilityException",
        "400, InvalidArgument, RequestRefusedException",
        "404, NoSuchBucket, BucketNotFoundException",
        "405, MethodNotAllowed, RequestRefusedException",
        "413, EntityTooLarge, RequestRefusedException"
    })
    void everyAnswerIsTranslatedByKindWithTheSdkExceptionAsCause(int status, String code, String expected) {
        S3Exception e = answer(status, code);

        StorageException translated = S3Errors.translate("k", "PUT of 'k'", e);

        assertThat(translated.getClass().getSimpleName()).isEqualTo(expected);
        assertThat(translated).hasCause(e).hasMessageContaining("PUT of 'k'").hasMessageContaining(status + " " + code);
    }

    @Test
    void aGenericClientErrorIsARefusalNotAMissingCapability() {
        StorageException translated = S3Errors.translate("k", "PUT of 'k'", answer(400, "InvalidArgument"));

        assertThat(translated)
                .isNotInstanceOf(UnsupportedCapabilityException.class)
                .isInstanceOfSatisfying(RequestRefusedException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(400);
                    assertThat(e.errorCode()).contains("InvalidArgument");
                    assertThat(e.key()).contains("k");
                    assertThat(e.retryable()).isFalse();
                });
    }

    @Test
    void integrityAndAccessFailuresSayWhatToCheck() {
        assertThat(S3Errors.translate("k", "PUT of 'k'", answer(400, "XAmzContentSHA256Mismatch")))
                .isInstanceOfSatisfying(
                        IntegrityException.class, e -> assertThat(e.key()).isEqualTo("k"))
                .hasMessageContaining("do not match the digest or signature sent with them");
        assertThat(S3Errors.translate("k", "PUT of 'k'", answer(403, "SignatureDoesNotMatch")))
                .isInstanceOfSatisfying(
                        AccessDeniedException.class,
                        e -> assertThat(e.retryable()).isFalse())
                .hasMessageContaining("secret key");
    }

    @Test
    void noAnswerIsUnavailableNamedAsAUserWouldNameIt() {
        SdkClientException refused = noAnswer(new ConnectException("Connection refused"));
        SdkClientException open = noAnswer(new CircuitOpenException("http://s3.test:9000", Duration.ofSeconds(30)));

        assertThat(S3Errors.translate("k", "GET of 'k'", refused))
                .isInstanceOf(StorageUnavailableException.class)
                .hasCause(refused)
                .hasMessageContaining("could not connect");
        assertThat(S3Errors.translate("k", "GET of 'k'", open))
                .isInstanceOf(StorageUnavailableException.class)
                .hasCause(open)
                .hasMessageContaining("Circuit breaker");
        assertThat(S3Errors.translate("k", "GET of 'k'", noAnswer(new HttpConnectTimeoutException("x"))))
                .hasMessageContaining("connect timed out");
    }

    /** The JDK's HttpClient (17 and 25) reports a refused connection as these, every message null. */
    @Test
    void theJdksRefusedConnectionReadsConnectionRefusedNeverItsInnermostClassName() {
        ConnectException jdk = new ConnectException();
        jdk.initCause(new ConnectException());
        jdk.getCause().initCause(new java.nio.channels.ClosedChannelException());

        assertThat(S3Errors.translate("k", "GET of 'k' in bucket 'b' at http://127.0.0.1:9", noAnswer(jdk)))
                .hasMessageContaining("at http://127.0.0.1:9")
                .hasMessageContaining("connection refused")
                .hasMessageNotContaining("ClosedChannelException");
        assertThat(S3Errors.translate(
                        "k", "GET of 'k'", noAnswer(new IOException(new java.nio.channels.ClosedChannelException()))))
                .hasMessageContaining("the connection was closed")
                .hasMessageNotContaining("ClosedChannelException");
    }

    @Test
    void aMissingBucketIsNamedAsSuch() {
        assertThat(S3Errors.translate(
                        "k", "PUT of 'k' in bucket 'gone' at http://s3.test:9000", answer(404, "NoSuchBucket")))
                .isInstanceOfSatisfying(
                        BucketNotFoundException.class,
                        e -> assertThat(e.retryable()).isFalse())
                .isNotInstanceOf(UnsupportedCapabilityException.class)
                .hasMessageContaining("bucket 'gone' at http://s3.test:9000")
                .hasMessageContaining("no such bucket")
                .hasMessageContaining("createBucket(true)");
    }

    @Test
    void anUnavailableStoreSaysWhetherTheRequestMayHaveTakenEffect() {
        SdkException open = noAnswer(new CircuitOpenException("http://s3.test:9000", Duration.ofSeconds(1)));
        SdkException refused = noAnswer(exhausted(new ConnectException("refused"), new ConnectException("refused")));
        SdkException reset = noAnswer(new IOException("Connection reset"));

        assertThat(unavailable(S3Errors.translate("k", "PUT of 'k'", open)).outcomeUnknown())
                .isFalse();
        assertThat(unavailable(S3Errors.translate("k", "PUT of 'k'", refused)).outcomeUnknown())
                .isFalse();
        assertThat(unavailable(S3Errors.translate("k", "PUT of 'k'", answer(503, "SlowDown")))
                        .outcomeUnknown())
                .isFalse();
        assertThat(unavailable(S3Errors.translate("k", "PUT of 'k'", reset)).outcomeUnknown())
                .isTrue();
        assertThat(unavailable(S3Errors.translate("k", "PUT of 'k'", answer(500, "InternalError")))
                        .outcomeUnknown())
                .isTrue();
    }

    private static StorageUnavailableException unavailable(StorageException e) {
        assertThat(e).isInstanceOf(StorageUnavailableException.class);
        return (StorageUnavailableException) e;
    }

    @ParameterizedTest
    @ValueSource(ints = {500, 502, 504})
    void aServerErrorThatMayFollowTheWriteIsAmbiguous(int status) {
        assertThat(S3Errors.ambiguous(answer(status, "Error"))).isTrue();
    }

    @ParameterizedTest
    @ValueSource(ints = {503, 400, 403, 404, 409, 412})
    void answersThatProveNothingWasStoredAreNot(int status) {
        assertThat(S3Errors.ambiguous(answer(status, "Error"))).isFalse();
    }

    @Test
    void noAnswerIsAmbiguousUnlessNoAttemptCanHaveBeenSent() {
        SdkException reset = noAnswer(new IOException("Connection reset"));
        SdkException refused = noAnswer(new ConnectException("refused"));
        SdkException open = noAnswer(new CircuitOpenException("http://s3.test:9000", Duration.ofSeconds(1)));
        SdkException resetThenRefused = noAnswer(exhausted(new IOException("reset"), new ConnectException("refused")));
        SdkException refusedEveryTime =
                noAnswer(exhausted(new ConnectException("refused"), new ConnectException("refused")));

        assertThat(S3Errors.ambiguous(reset)).isTrue();
        assertThat(S3Errors.ambiguous(resetThenRefused))
                .as("an earlier attempt may have landed")
                .isTrue();
        assertThat(S3Errors.ambiguous(refused)).isFalse();
        assertThat(S3Errors.ambiguous(open)).isFalse();
        assertThat(S3Errors.ambiguous(refusedEveryTime)).isFalse();
    }
}
