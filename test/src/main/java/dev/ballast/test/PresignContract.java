package dev.ballast.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.ballast.storage.UnsupportedCapabilityException;
import dev.ballast.storage.internal.Sha256;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.PresignRequest;
import dev.ballast.storage.object.PresignedRequest;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The presigned URLs' part of the {@link ObjectStoreContract} ({@link ObjectStore#presign}): a store
 * whose capabilities declare {@code presignedUrls} hands out URLs that the JDK's {@link HttpClient}, with
 * no credentials, uploads and downloads through; one that does not refuses with
 * {@link UnsupportedCapabilityException}. Each case is skipped, naming {@code presignedUrls}, on the stores
 * it is not for.
 */
public interface PresignContract {

    /** The store under test. */
    ObjectStore storeUnderTest();

    /** A short name for skip reasons. */
    String nameOfStoreUnderTest();

    @Test
    default void aPresignedPutThenGetGoThroughTheJdkClientWithTheBoundChecksumAndContentType()
            throws IOException, InterruptedException {
        ObjectStore store = storeUnderTest();
        assumeThat(store.capabilities().presignedUrls())
                .as("%s does not declare the capability presignedUrls", nameOfStoreUnderTest())
                .isTrue();
        byte[] body = "a report uploaded by a browser\n".getBytes(StandardCharsets.UTF_8);
        Instant before = Instant.now();
        PresignedRequest put = store.presign(PresignRequest.put("presigned/report.txt", Duration.ofMinutes(10))
                .withContentType("text/plain")
                .withSha256(Sha256.of(body))
                .withContentMd5(md5(body)));

        assertThat(put.method()).isEqualTo("PUT");
        assertThat(put.expiration())
                .isBetween(before.plusSeconds(599), Instant.now().plusSeconds(601));
        assertThat(put.headers()).containsKeys("Content-Type", "Content-MD5");
        assertThat(put.url().getRawQuery()).doesNotContain("secret");
        HttpClient http = HttpClient.newHttpClient();
        {
            HttpResponse<String> tampered = http.send(
                    request(put, "a report changed on the way.\n".getBytes(StandardCharsets.UTF_8)),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(tampered.statusCode())
                    .as("bytes other than those bound by the checksum are refused: %s", tampered.body())
                    .isBetween(400, 403);

            HttpResponse<String> uploaded = http.send(request(put, body), HttpResponse.BodyHandlers.ofString());
            assertThat(uploaded.statusCode()).as(uploaded.body()).isEqualTo(200);

            try (ObjectRead read = store.get("presigned/report.txt")) {
                assertThat(read.readAllBytes()).isEqualTo(body);
                assertThat(read.version().sha256())
                        .as("the SHA-256 bound is recorded, so reads through the store verify it")
                        .isEqualTo(Sha256.hex(Sha256.of(body)));
            }

            ObjectVersion later = store.put("presigned/report.txt", ObjectContent.ofBytes(new byte[] {1, 2}));
            PresignedRequest latest = store.presign(PresignRequest.get("presigned/report.txt", Duration.ofMinutes(1)));
            HttpResponse<byte[]> got = http.send(request(latest, null), HttpResponse.BodyHandlers.ofByteArray());
            assertThat(got.statusCode()).isEqualTo(200);
            assertThat(got.body()).containsExactly(1, 2);

            String first = store.versions("presigned/report.txt").stream()
                    .filter(v -> !v.versionId().equals(later.versionId()))
                    .findFirst()
                    .orElseThrow()
                    .versionId();
            PresignedRequest older = store.presign(PresignRequest.get("presigned/report.txt", Duration.ofMinutes(1))
                    .withVersionId(first)
                    .withContentType("text/plain"));
            HttpResponse<byte[]> old = http.send(request(older, null), HttpResponse.BodyHandlers.ofByteArray());
            assertThat(old.statusCode()).isEqualTo(200);
            assertThat(old.body()).isEqualTo(body);
            assertThat(old.headers().firstValue("Content-Type"))
                    .hasValueSatisfying(t -> assertThat(t).startsWith("text/plain"));
        }
    }

    @Test
    default void aStoreWithoutPresignedUrlsRefusesThemInOneSentence() {
        ObjectStore store = storeUnderTest();
        assumeThat(store.capabilities().presignedUrls())
                .as("%s declares the capability presignedUrls", nameOfStoreUnderTest())
                .isFalse();

        assertThatThrownBy(() -> store.presign(PresignRequest.get("presigned/x", Duration.ofMinutes(1))))
                .isInstanceOf(UnsupportedCapabilityException.class)
                .hasMessageContaining("Presigned URLs are not supported")
                .hasMessageContaining("presigned/x")
                .hasMessageEndingWith(".");
    }

    private static HttpRequest request(PresignedRequest presigned, byte @org.jspecify.annotations.Nullable [] body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(presigned.url())
                .method(
                        presigned.method(),
                        body == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofByteArray(body));
        presigned.headers().forEach((name, values) -> values.forEach(v -> b.header(name, v)));
        return b.build();
    }

    private static byte[] md5(byte[] bytes) {
        try {
            return MessageDigest.getInstance("MD5").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
