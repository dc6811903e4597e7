package dev.ballast.storage.object.s3;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.adobe.testing.s3mock.S3MockApplication;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketVersioningStatus;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.ObjectVersion;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;

/**
 * An {@link S3Client} built by {@link S3ClientFactory}, talking to S3Mock in this JVM over
 * {@link JdkSdkHttpClient} and a plain {@link HttpClient}: bucket, versioning, 0-byte and larger
 * objects byte-exact, versions listing, delete markers, and streaming memory for a 64 MiB object.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class S3ClientOverJdkHttpTest {

    private static final int MIB = 1024 * 1024;

    private static HttpClient jdk;
    private String bucket;

    @BeforeAll
    static void startS3Mock() {
        InProcessS3Mock.endpoint();
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
            s3.putBucketVersioning(b -> b.bucket(bucket)
                    .versioningConfiguration(v -> v.status(BucketVersioningStatus.ENABLED)));
            assertThat(s3.getBucketVersioning(b -> b.bucket(bucket)).status())
                    .isEqualTo(BucketVersioningStatus.ENABLED);

            byte[] empty = new byte[0];
            byte[] oneMiB = pseudoRandom(MIB, 42);
            PutObjectResponse emptyPut = s3.putObject(b -> b.bucket(bucket).key("empty"), RequestBody.fromBytes(empty));
            PutObjectResponse first = s3.putObject(b -> b.bucket(bucket).key("dir/one-mib"), RequestBody.fromBytes(oneMiB));
            byte[] replaced = "second version".getBytes(UTF_8);
            PutObjectResponse second = s3.putObject(b -> b.bucket(bucket).key("dir/one-mib"),
                    RequestBody.fromBytes(replaced));

            assertThat(emptyPut.versionId()).isNotBlank();
            assertThat(first.versionId()).isNotBlank().isNotEqualTo(second.versionId());
            assertThat(read(s3, "empty", null)).isEmpty();
            assertThat(read(s3, "dir/one-mib", null)).isEqualTo(replaced);
            assertThat(read(s3, "dir/one-mib", first.versionId())).isEqualTo(oneMiB);
            assertThat(s3.headObject(b -> b.bucket(bucket).key("empty")).contentLength()).isZero();

            s3.deleteObject(b -> b.bucket(bucket).key("dir/one-mib"));

            assertThatThrownBy(() -> read(s3, "dir/one-mib", null)).isInstanceOf(NoSuchKeyException.class);
            List<ObjectVersion> versions = new ArrayList<>();
            List<String> deleteMarkers = new ArrayList<>();
            s3.listObjectVersionsPaginator(b -> b.bucket(bucket).prefix("dir/")).forEach(page -> {
                versions.addAll(page.versions());
                page.deleteMarkers().forEach(m -> deleteMarkers.add(m.versionId()));
            });
            assertThat(versions).extracting(ObjectVersion::versionId)
                    .containsExactlyInAnyOrder(first.versionId(), second.versionId());
            assertThat(versions).filteredOn(v -> v.versionId().equals(first.versionId()))
                    .singleElement().extracting(ObjectVersion::size).isEqualTo((long) MIB);
            assertThat(deleteMarkers).hasSize(1);
            assertThat(read(s3, "dir/one-mib", second.versionId())).isEqualTo(replaced);
        }
    }

    @Test
    void sixtyFourMiBStreamsUpAndDownWithHeapGrowthFarBelowTheObjectSize() throws Exception {
        long size = 64L * MIB;
        HeapProbe probe = new HeapProbe();
        try (S3Client s3 = client(RequestChecksumCalculation.WHEN_SUPPORTED)) {
            s3.createBucket(b -> b.bucket(bucket));

            ContentStreamProvider source = () -> new GeneratedStream(size, 7, probe);
            byte[] sentDigest = sha256(new GeneratedStream(size, 7, null));
            probe.baseline();
            PutObjectResponse put = s3.putObject(b -> b.bucket(bucket).key("large"),
                    RequestBody.fromContentProvider(source, size, "application/octet-stream"));
            long uploadGrowth = probe.peakGrowth();

            probe.baseline();
            byte[] receivedDigest;
            try (ResponseInputStream<GetObjectResponse> in = s3.getObject(b -> b.bucket(bucket).key("large"))) {
                assertThat(in.response().contentLength()).isEqualTo(size);
                receivedDigest = sha256(new SamplingStream(in, probe));
            }
            long downloadGrowth = probe.peakGrowth();

            System.out.printf("[S3ClientOverJdkHttpTest] 64 MiB streamed through JdkSdkHttpClient: "
                    + "live heap growth at 8 MiB checkpoints, upload peak %.1f MiB, download peak %.1f MiB "
                    + "(ETag %s)%n", uploadGrowth / (double) MIB, downloadGrowth / (double) MIB, put.eTag());
            assertThat(receivedDigest).isEqualTo(sentDigest);
            assertThat(uploadGrowth).as("upload live heap growth").isLessThan(32L * MIB);
            assertThat(downloadGrowth).as("download live heap growth").isLessThan(32L * MIB);
        }
    }

    private S3Client client(RequestChecksumCalculation checksums) {
        return S3ClientFactory.builder(jdk)
                .endpoint(InProcessS3Mock.endpoint())
                .region("us-east-1")
                .credentials("any-access-key", "any-secret-key")
                .pathStyle(true)
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

    private static byte[] sha256(InputStream in) throws IOException, NoSuchAlgorithmException {
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        byte[] buffer = new byte[64 * 1024];
        for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
            digest.update(buffer, 0, n);
        }
        return digest.digest();
    }

    /**
     * S3Mock 5.2 (Spring Boot 4) started once per test JVM, on random ports, silent, with its files
     * in a temporary directory. {@code S3MockApplication.start(Map)} removes keys from the map it is
     * given, so the map must be mutable.
     */
    static final class InProcessS3Mock {
        private static URI endpoint;

        private InProcessS3Mock() {
        }

        @SuppressWarnings("deprecation") // getHttpPort(): S3Mock prefers a separate JVM; one JVM is faster here
        static synchronized URI endpoint() {
            if (endpoint == null) {
                quietStartupLogging();
                Path root;
                try {
                    root = Files.createTempDirectory("s3mock-");
                } catch (IOException e) {
                    throw new IllegalStateException("cannot create S3Mock's store directory", e);
                }
                Map<String, Object> properties = new HashMap<>(Map.of(
                        S3MockApplication.PROP_HTTP_PORT, S3MockApplication.RANDOM_PORT,
                        S3MockApplication.PROP_HTTPS_PORT, S3MockApplication.RANDOM_PORT,
                        S3MockApplication.PROP_SILENT, true,
                        "com.adobe.testing.s3mock.store.root", root.toString(),
                        "com.adobe.testing.s3mock.store.retain-files-on-exit", false));
                S3MockApplication app = S3MockApplication.start(properties);
                endpoint = URI.create("http://localhost:" + app.getHttpPort());
            }
            return endpoint;
        }

        /**
         * "silent" sets Spring's root level to WARN, but the module's tests log through slf4j-simple,
         * which reads per-logger levels from system properties when each logger is created.
         */
        private static void quietStartupLogging() {
            for (String logger : List.of("org.springframework", "com.adobe.testing.s3mock", "org.apache.catalina",
                    "org.apache.coyote", "org.apache.tomcat", "org.apache.maven.surefire.booter")) {
                System.setProperty("org.slf4j.simpleLogger.log." + logger, "warn");
            }
        }
    }

    /**
     * Measures live heap (used after a full collection) against a baseline; checkpoints are taken
     * every 8 MiB of streamed content, so a client that buffered the whole object would show it.
     */
    private static final class HeapProbe {
        private static final long CHECKPOINT = 8L * MIB;
        private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        private long baseline;
        private long peak;

        void baseline() {
            baseline = liveHeap();
            peak = 0;
        }

        void checkpoint(long position, long previous) {
            if (position / CHECKPOINT != previous / CHECKPOINT) {
                peak = Math.max(peak, liveHeap() - baseline);
            }
        }

        long peakGrowth() {
            return peak;
        }

        private long liveHeap() {
            System.gc();
            return memory.getHeapMemoryUsage().getUsed();
        }
    }

    /** Deterministic content of a given size, generated as it is read (never held whole). */
    private static final class GeneratedStream extends InputStream {
        private final long size;
        private final SplittableRandom random;
        private final HeapProbe probe;
        private long position;
        private long word;

        GeneratedStream(long size, long seed, HeapProbe probe) {
            this.size = size;
            this.random = new SplittableRandom(seed);
            this.probe = probe;
        }

        @Override
        public int read() {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) {
            if (position >= size) {
                return -1;
            }
            int n = (int) Math.min(length, size - position);
            long previous = position;
            for (int i = 0; i < n; i++, position++) {
                int shift = (int) (position & 7);
                if (shift == 0) {
                    word = random.nextLong();
                }
                buffer[offset + i] = (byte) (word >>> (shift * 8));
            }
            if (probe != null) {
                probe.checkpoint(position, previous);
            }
            return n;
        }
    }

    /** Passes a stream through, taking heap checkpoints as it is consumed. */
    private static final class SamplingStream extends InputStream {
        private final InputStream delegate;
        private final HeapProbe probe;
        private long position;

        SamplingStream(InputStream delegate, HeapProbe probe) {
            this.delegate = delegate;
            this.probe = probe;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = delegate.read(buffer, offset, length);
            if (n > 0) {
                long previous = position;
                position += n;
                probe.checkpoint(position, previous);
            }
            return n;
        }
    }
}
