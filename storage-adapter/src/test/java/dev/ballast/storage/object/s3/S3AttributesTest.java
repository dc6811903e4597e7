package dev.ballast.storage.object.s3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.storage.internal.ReservedMetadata;
import dev.ballast.storage.object.ObjectMetadata;
import dev.ballast.storage.object.ServerSideEncryption;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a put's answer must say of its encryption, and what a read's headers say of its metadata. */
class S3AttributesTest {
    private static final software.amazon.awssdk.services.s3.model.ServerSideEncryption AES256 =
            software.amazon.awssdk.services.s3.model.ServerSideEncryption.AES256;
    private static final software.amazon.awssdk.services.s3.model.ServerSideEncryption KMS =
            software.amazon.awssdk.services.s3.model.ServerSideEncryption.AWS_KMS;

    @Test
    void anAnswerWithoutTheEncryptionAskedForIsAMismatch() {
        ServerSideEncryption none = S3Attributes.applied(null, null, null, null);

        assertThat(S3Attributes.mismatch(ServerSideEncryption.s3(), none))
                .isEqualTo("the answer reports none instead of SSE-S3 (AES256)");
        assertThat(S3Attributes.mismatch(ServerSideEncryption.s3(), S3Attributes.applied(AES256, null, null, null)))
                .isNull();
        assertThat(S3Attributes.mismatch(ServerSideEncryption.NONE, none)).isNull();
    }

    @Test
    void sseKmsMustNameTheKeyAskedForWhereTheAnswerNamesOne() {
        ServerSideEncryption asked = ServerSideEncryption.kms("1234abcd-12ab-34cd-56ef-1234567890ab");

        assertThat(S3Attributes.mismatch(
                        asked,
                        S3Attributes.applied(
                                KMS,
                                "arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab",
                                null,
                                null)))
                .isNull();
        assertThat(S3Attributes.mismatch(
                        asked, S3Attributes.applied(KMS, "arn:aws:kms:us-east-1:1:key/other", null, null)))
                .contains("names KMS key arn:aws:kms:us-east-1:1:key/other instead of");
        assertThat(S3Attributes.mismatch(asked, S3Attributes.applied(AES256, null, null, null)))
                .contains("reports SSE-S3 (AES256) instead of SSE-KMS");
    }

    @Test
    void sseCMustReportTheKeysMd5() {
        byte[] key = new byte[32];
        ServerSideEncryption asked = ServerSideEncryption.customerKey(key);
        String md5 = asked.customerKeyMd5().orElseThrow();

        assertThat(S3Attributes.mismatch(asked, S3Attributes.applied(null, null, "AES256", md5)))
                .isNull();
        assertThat(S3Attributes.mismatch(asked, S3Attributes.applied(null, null, "AES256", "AAAA")))
                .contains("another SSE-C key");
        assertThat(asked.toString()).doesNotContain(asked.customerKeyBase64());
    }

    @Test
    void headersAreReturnedOnlyWhereGivenOnABallastObjectAndAllOnAForeignOne() {
        Map<String, String> ours = S3Attributes.userMetadata(
                Map.of(S3ObjectStore.META_SHA256, "ab"),
                ObjectMetadata.builder()
                        .cacheControl("no-cache")
                        .user("team", "x")
                        .build());

        ObjectMetadata read = S3Attributes.metadata(ours, "application/octet-stream", "no-cache", null, null);

        assertThat(read)
                .isEqualTo(ObjectMetadata.builder()
                        .cacheControl("no-cache")
                        .user("team", "x")
                        .build());
        assertThat(S3Attributes.metadata(Map.of("Other", "y"), "text/plain", null, null, null))
                .isEqualTo(ObjectMetadata.builder()
                        .contentType("text/plain")
                        .user("other", "y")
                        .build());
    }

    @Test
    void theClientSideEncryptionMarkTravelsAsUserMetadataAndComesBackWhileBallastsOtherKeysStayHidden() {
        ObjectMetadata marked = ReservedMetadata.with(
                ObjectMetadata.builder().user("team", "x").build(),
                ReservedMetadata.CLIENT_SIDE_ENCRYPTION,
                "BCE1/AES-KW/app-2026");
        Map<String, String> sent = S3Attributes.userMetadata(Map.of(S3ObjectStore.META_SHA256, "ab"), marked);
        assertThat(sent).containsEntry("ballast-cse", "BCE1/AES-KW/app-2026");

        // S3 may hand keys back in another case; the mark is matched lowercased, ballast-sha256 is not shown.
        Map<String, String> back = new java.util.HashMap<>(sent);
        back.put("Ballast-Cse", back.remove("ballast-cse"));
        ObjectMetadata read = S3Attributes.metadata(back, null, null, null, null);
        assertThat(read).isEqualTo(marked);
        assertThat(read.user()).doesNotContainKey(S3ObjectStore.META_SHA256);
    }
}
