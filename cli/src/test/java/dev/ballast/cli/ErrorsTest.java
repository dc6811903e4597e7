package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/** What an error line adds beside its sentence: the --verbose pointer, a server's empty refusal. */
class ErrorsTest {

    @Test
    void aCauseWhoseReasonTheSentenceQuotesNeedsNoVerbosePointer() {
        // A README user's: "The password command 'x' could not be started (error=2, No such file or
        // directory)" went on "(run with --verbose to see the cause)", which showed only the same reason.
        IOException started = new IOException("Cannot run program \"x\": error=2, No such file or directory");
        assertThat(Errors.causeAddsTo(
                        "The password command 'x' could not be started (error=2, No such file or directory).", started))
                .isFalse();
        assertThat(Errors.causeAddsTo("The password command 'x' could not be started.", started))
                .isTrue();
        assertThat(Errors.causeAddsTo("Could not read it (Permission denied).", new IOException("Permission denied")))
                .isFalse();
    }

    @Test
    void aRefusalWithoutTextOfItsOwnSaysSoBeforeTheDetails() {
        // Ceph RGW's 403 to a wrong secret: "refused the credentials: (Service: S3, Status Code: 403, ...)"
        assertThat(Errors.serverReason(" (Service: S3, Status Code: 403, Request ID: tx1)"))
                .isEqualTo("it gave no reason (Service: S3, Status Code: 403, Request ID: tx1)");
        assertThat(Errors.serverReason(" The request signature we calculated does not match (Service: S3)"))
                .isEqualTo("The request signature we calculated does not match (Service: S3)");
        // and without the SDK's count of its own attempts, always 1 (a README-only newcomer's)
        assertThat(Errors.serverReason(" (Service: S3, Status Code: 403, Request ID: tx1) (SDK Attempt Count: 1)"))
                .isEqualTo("it gave no reason (Service: S3, Status Code: 403, Request ID: tx1)");
    }

    /**
     * A wrong secret key on Ceph RGW (a README-only newcomer's): its 403 has no message of its own, so the
     * line said "refused the credentials: it gave no reason (Service: S3, Status Code: 403, ...)" where the
     * server had answered {@code SignatureDoesNotMatch}, and started with a lower-case letter.
     */
    @Test
    void aRefusalNamesTheKeyItsS3ErrorCodePointsAt() {
        CliFailure f = Errors.toFailure(denied("SignatureDoesNotMatch"), "the S3 endpoint http://h:7480", "b");
        assertThat(f.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(f.getMessage())
                .isEqualTo("The S3 endpoint http://h:7480, bucket 'b' refused the credentials: the request's"
                        + " signature does not match, so the secret key is not the one of this access key (HTTP 403"
                        + " SignatureDoesNotMatch, request tx1); check the keys given (--access-key/--secret-key,"
                        + " AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or the --profile/AWS_PROFILE profile of"
                        + " ~/.aws/credentials).");
        assertThat(Errors.refusal(denied("InvalidAccessKeyId")))
                .isEqualTo("it knows no such access key (HTTP 403 InvalidAccessKeyId, request tx1)");
        assertThat(Errors.refusal(denied("SomethingElse")))
                .isEqualTo("it gave no reason (Service: S3, Status Code: 403," + " Request ID: tx1) [SomethingElse]");
    }

    /** A tester's: prune, forget and init look at the bucket with a HEAD, whose 403 has no body and no code. */
    @Test
    void aRefusalWithoutACodeSaysWhichKeysItCouldBe() {
        software.amazon.awssdk.services.s3.model.S3Exception s3 = (software.amazon.awssdk.services.s3.model.S3Exception)
                software.amazon.awssdk.services.s3.model.S3Exception.builder()
                        .statusCode(403)
                        .requestId("tx2")
                        .message("Forbidden")
                        .build();
        assertThat(Errors.refusal(new dev.ballast.storage.AccessDeniedException(
                        null, "HEAD bucket on bucket 'b' at http://h failed: HTTP 403 (Forbidden)", s3)))
                .isEqualTo("it answered 403 Forbidden without a reason (the answer to a HEAD request has no body), so"
                        + " the access key, the secret key or a policy of the bucket is refused (request tx2)");
    }

    @Test
    void aMissingBucketIsNamedBeforeTheEndpoint() {
        assertThat(Errors.noBucket("the S3 endpoint http://h:7480, bucket 'b-1'"))
                .isEqualTo("There is no bucket 'b-1' at the S3 endpoint http://h:7480");
        assertThat(Errors.noBucket("the S3 endpoint http://h:7480"))
                .isEqualTo("There is no such bucket at the S3 endpoint http://h:7480");
    }

    private static dev.ballast.storage.AccessDeniedException denied(String code) {
        software.amazon.awssdk.services.s3.model.S3Exception s3 = (software.amazon.awssdk.services.s3.model.S3Exception)
                software.amazon.awssdk.services.s3.model.S3Exception.builder()
                        .statusCode(403)
                        .requestId("tx1")
                        .awsErrorDetails(software.amazon.awssdk.awscore.exception.AwsErrorDetails.builder()
                                .errorCode(code)
                                .serviceName("S3")
                                .build())
                        .build();
        return new dev.ballast.storage.AccessDeniedException(
                "config", "GET of 'config' failed: HTTP 403 " + code + " ()", s3);
    }

    /**
     * A wrong port (a README-only newcomer's): "Could not reach the S3 endpoint ...: Call to dependency
     * 'http://127.0.0.1:7481' failed after 3 attempts (attempts exhausted); last failure:
     * java.net.ConnectException", the HTTP client's words, with a class name for the reason.
     */
    @Test
    void aRefusedConnectionIsSaidSoWithTheAttemptsMade() {
        java.net.ConnectException refused = new java.net.ConnectException();
        dev.ballast.http.RetriesExhaustedException exhausted = new dev.ballast.http.RetriesExhaustedException(
                "http://127.0.0.1:7481", 3, "attempts exhausted", java.util.List.of(refused, refused, refused));
        dev.ballast.storage.StorageUnavailableException e = new dev.ballast.storage.StorageUnavailableException(
                "config",
                "GET of 'config' failed: the store could not be reached",
                new RuntimeException("Unable to execute HTTP request: " + exhausted.getMessage(), exhausted),
                false);

        CliFailure f = Errors.toFailure(e, "the S3 endpoint http://127.0.0.1:7481, bucket 'b'", null);

        assertThat(f.exitCode()).isEqualTo(ExitCodes.UNAVAILABLE);
        assertThat(f.getMessage())
                .isEqualTo("Could not reach the S3 endpoint http://127.0.0.1:7481, bucket 'b': the connection was"
                        + " refused, or the host is unreachable (3 attempts); check that the server is running and"
                        + " reachable, then run the command again.");
    }

    @Test
    void tooManyOpenFilesNamesTheLimitNotTheStoresPermissionsOrSpace() {
        // A tester's restore under ulimit -n 64: "...: Too many open files; check that its directory and
        // files can be read and written and that its disk has space".
        dev.ballast.storage.StorageUnavailableException e = new dev.ballast.storage.StorageUnavailableException(
                "index.db",
                "Opening the index failed",
                new java.nio.file.FileSystemException("/st/index.db", null, "Too many open files"),
                false);

        CliFailure f = Errors.toFailure(e, "the local store /st", null);

        assertThat(f.exitCode()).isEqualTo(ExitCodes.UNAVAILABLE);
        assertThat(f.getMessage())
                .contains("Too many open files")
                .contains("raise its limit (ulimit -n")
                .doesNotContain("disk has space");
    }
}
