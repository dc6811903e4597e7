package dev.ballast.storage.object.s3.transport;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.storage.object.S3MockServer;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketVersioningStatus;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.ObjectVersion;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;

/**
 * An {@link S3Client} built with the SDK's own builder, talking to S3Mock in this JVM over
 * {@link JdkSdkHttpClient} and a plain {@link HttpClient}: bucket, versioning, 0-byte and larger
 * objects byte-exact, versions listing and delete markers, with and without the SDK's request
 * checksums. (Streaming memory for a 64 MiB object is the object store contract's case.)
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
@ExtendWith(LeakCheck.class)
class S3ClientOverJdkHttpTest {

    private static final int MIB = 1024 * 1024;

    private static HttpClient jdk;
    private String bucket;

    @BeforeAll
    static void startS3Mock() {
        S3MockServer.endpoint();
        jdk = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    }

    @AfterAll
    static void noClose() {
        // S3Mock stays up for the rest of the test JVM: starting it costs seconds.
    }

    @BeforeEach
    void uniqueBucket() {
        bucket = "b-" + UUID.randomUUID();
    }

    @ParameterizedTest
    @EnumSource(RequestChecksumCalculation.class)
    void objectsRoundTripByteExactWithVersionsAndDeleteMarkers(RequestChecksumCalculation checksums)
            throws IOException {
        try (S3Client s3 = client(checksums)) {
            s3.createBucket(b -> b.bucket(bucket));
            s3.putBucketVersioning(
                    b -> b.bucket(bucket).versioningConfiguration(v -> v.status(BucketVersioningStatus.ENABLED)));
            assertThat(s3.getBucketVersioning(b -> b.bucket(bucket)).status())
                    .isEqualTo(BucketVersioningStatus.ENABLED);

            byte[] empty = new byte[0];
            byte[] oneMiB = pseudoRandom(MIB, 42);
            PutObjectResponse emptyPut = s3.putObject(b -> b.bucket(bucket).key("empty"), RequestBody.fromBytes(empty));
            PutObjectResponse first =
                    s3.putObject(b -> b.bucket(bucket).key("dir/one-mib"), RequestBody.fromBytes(oneMiB));
            byte[] replaced = "second version".getBytes(UTF_8);
            PutObjectResponse second =
                    s3.putObject(b -> b.bucket(bucket).key("dir/one-mib"), RequestBody.fromBytes(replaced));

            assertThat(emptyPut.versionId()).isNotBlank();
            assertThat(first.versionId()).isNotBlank().isNotEqualTo(second.versionId());
            assertThat(read(s3, "empty", null)).isEmpty();
            assertThat(read(s3, "dir/one-mib", null)).isEqualTo(replaced);
            assertThat(read(s3, "dir/one-mib", first.versionId())).isEqualTo(oneMiB);
            assertThat(s3.headObject(b -> b.bucket(bucket).key("empty")).contentLength())
                    .isZero();

            s3.deleteObject(b -> b.bucket(bucket).key("dir/one-mib"));

            assertThatThrownBy(() -> read(s3, "dir/one-mib", null)).isInstanceOf(NoSuchKeyException.class);
            List<ObjectVersion> versions = new ArrayList<>();
            List<String> deleteMarkers = new ArrayList<>();
            s3.listObjectVersionsPaginator(b -> b.bucket(bucket).prefix("dir/")).forEach(page -> {
                versions.addAll(page.versions());
                page.deleteMarkers().forEach(m -> deleteMarkers.add(m.versionId()));
            });
            assertThat(versions)
                    .extracting(ObjectVersion::versionId)
                    .containsExactlyInAnyOrder(first.versionId(), second.versionId());
            assertThat(versions)
                    .filteredOn(v -> v.versionId().equals(first.versionId()))
                    .singleElement()
                    .extracting(ObjectVersion::size)
                    .isEqualTo((long) MIB);
            assertThat(deleteMarkers).hasSize(1);
            assertThat(read(s3, "dir/one-mib", second.versionId())).isEqualTo(replaced);
        }
    }

    private S3Client client(RequestChecksumCalculation checksums) {
        return S3Client.builder()
                .httpClient(JdkSdkHttpClient.create(jdk))
                .endpointOverride(S3MockServer.endpoint())
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create("any-access-key", "any-secret-key")))
                .forcePathStyle(true)
                .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()))
                .requestChecksumCalculation(checksums)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_SUPPORTED)
                .build();
    }

    private byte[] read(S3Client s3, String key, String versionId) throws IOException {
        try (InputStream in = s3.getObject(b -> b.bucket(bucket).key(key).versionId(versionId))) {
            return in.readAllBytes();
        }
    }

    private static byte[] pseudoRandom(int size, long seed) {
        byte[] bytes = new byte[size];
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < size; i++) {
            bytes[i] = (byte) random.nextInt(256);
        }
        return bytes;
    }
}
