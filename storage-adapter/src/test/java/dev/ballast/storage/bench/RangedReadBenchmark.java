package dev.ballast.storage.bench;

import dev.ballast.storage.object.ByteRange;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.S3MockServer;
import dev.ballast.storage.object.local.LocalObjectStore;
import dev.ballast.storage.object.s3.S3Endpoint;
import dev.ballast.storage.object.s3.S3ObjectStore;
import dev.ballast.storage.object.s3.S3StoreConfig;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Ranged-read and full-read throughput of one 64 MiB object: on the local object store, on an S3
 * endpoint through {@link S3ObjectStore} (ranges checked against block digests), and on the same
 * endpoint through the AWS SDK's own {@link S3Client} (GetObject with {@code Range}, nothing
 * checked). The SDK client uses the Apache HTTP client (the SDK's default) when it is on the class
 * path, else the SDK over Ballast's JDK transport ({@link S3Endpoint#newClient()}); the table says
 * which.
 *
 * <p>Not a test: run it by hand (see docs/storage.md, "Ranged reads"). The endpoint is
 * {@code BALLAST_S3_ENDPOINT} (with {@code BALLAST_S3_ACCESS_KEY}, {@code BALLAST_S3_SECRET_KEY},
 * {@code BALLAST_S3_REGION}) or, without it, S3Mock started in this JVM. Argument: a directory for
 * the local store (default {@code java.io.tmpdir}). Prints a Markdown table.
 */
public final class RangedReadBenchmark {
    private static final int SIZE = 64 << 20;
    private static final int FULL_READS = 5;
    private static final int MIB_READS = 100;
    private static final int SMALL_READS = 300;
    private static final int SMALL = 64 << 10;

    private RangedReadBenchmark() {}

    /** One way to read a range of the object ({@code offset}, {@code length}; -1: the whole object). */
    @FunctionalInterface
    private interface Reader {
        long read(long offset, long length) throws IOException;
    }

    public static void main(String[] args) throws Exception {
        Path dir = Files.createTempDirectory(
                Path.of(args.length > 0 ? args[0] : System.getProperty("java.io.tmpdir")), "range-bench-");
        byte[] content = new byte[SIZE];
        new SplittableRandom(7).nextBytes(content);

        String env = System.getenv("BALLAST_S3_ENDPOINT");
        URI uri = env != null ? URI.create(env) : S3MockServer.endpoint();
        String access = System.getenv().getOrDefault("BALLAST_S3_ACCESS_KEY", "ballast");
        String secret = System.getenv().getOrDefault("BALLAST_S3_SECRET_KEY", "ballast-secret");
        String region = System.getenv().getOrDefault("BALLAST_S3_REGION", "us-east-1");
        String bucket = "range-bench-" + Long.toHexString(System.nanoTime());
        S3Endpoint endpoint = S3Endpoint.newBuilder()
                .endpoint(uri)
                .region(region)
                .credentials(access, secret)
                .build();

        System.out.println(
                "| store | client | full read, MiB/s | 1 MiB ranges, reads/s (= MiB/s) | 64 KiB ranges, reads/s |");
        System.out.println("| --- | --- | ---: | ---: | ---: |");
        try (LocalObjectStore local = LocalObjectStore.open(dir.resolve("local"))) {
            local.put("bench/object", ObjectContent.ofBytes(content));
            row("local store", "Ballast (verified)", ballast(local));
        }
        try (S3ObjectStore s3 = S3ObjectStore.open(
                endpoint,
                bucket,
                S3StoreConfig.builder()
                        .createBucket(true)
                        .enableVersioning(true)
                        .build())) {
            s3.put("bench/object", ObjectContent.ofBytes(content));
            String where = env != null ? uri.toString() : "S3Mock 5.2 (in this JVM)";
            row(where, "Ballast S3ObjectStore (verified)", ballast(s3));
            SdkClient sdk = sdkClient(uri, region, access, secret, endpoint);
            try (S3Client client = sdk.client()) {
                row(where, "AWS SDK S3Client, " + sdk.transport() + " (not verified)", (offset, length) -> {
                    var req = software.amazon.awssdk.services.s3.model.GetObjectRequest.builder()
                            .bucket(bucket)
                            .key("bench/object");
                    if (length >= 0) {
                        req.range("bytes=" + offset + "-" + (offset + length - 1));
                    }
                    try (InputStream in = client.getObject(req.build())) {
                        return drain(in);
                    }
                });
            }
        }
        System.out.printf(
                Locale.ROOT,
                "%n%d MiB object; %d full reads, %d reads of 1 MiB and %d of 64 KiB at random"
                        + " offsets, each figure the median of 3 rounds; %s, %d cores%n",
                SIZE >> 20,
                FULL_READS,
                MIB_READS,
                SMALL_READS,
                Runtime.version(),
                Runtime.getRuntime().availableProcessors());
    }

    private record SdkClient(S3Client client, String transport) {}

    /** The SDK's client over its default Apache transport when present, else over Ballast's JDK transport. */
    private static SdkClient sdkClient(URI uri, String region, String access, String secret, S3Endpoint endpoint)
            throws Exception {
        try {
            Class<?> apache = Class.forName("software.amazon.awssdk.http.apache.ApacheHttpClient");
            SdkHttpClient http = (SdkHttpClient) apache.getMethod("create").invoke(null);
            S3Client client = S3Client.builder()
                    .endpointOverride(uri)
                    .region(software.amazon.awssdk.regions.Region.of(region))
                    .credentialsProvider(software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
                            software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create(access, secret)))
                    .forcePathStyle(true)
                    .httpClient(http)
                    .build();
            return new SdkClient(client, "Apache HTTP client");
        } catch (ClassNotFoundException e) {
            return new SdkClient(endpoint.newClient(), "Ballast's JDK transport");
        }
    }

    private static Reader ballast(ObjectStore store) {
        return (offset, length) -> {
            ReadOptions options = ReadOptions.latest().withAllowCache(false);
            if (length >= 0) {
                options = options.withRange(ByteRange.of(offset, length));
            }
            try (ObjectRead read = store.get("bench/object", options)) {
                return drain(read.stream());
            }
        };
    }

    private static long drain(InputStream in) throws IOException {
        byte[] buffer = new byte[64 << 10];
        long total = 0;
        for (int n; (n = in.read(buffer)) > 0; ) {
            total += n;
        }
        return total;
    }

    private static void row(String store, String client, Reader reader) throws IOException {
        reader.read(0, -1); // warm up
        measure(reader, MIB_READS / 4, 1 << 20);
        double full = median(() -> {
            long start = System.nanoTime();
            long bytes = 0;
            for (int i = 0; i < FULL_READS; i++) {
                bytes += reader.read(0, -1);
            }
            return mibPerSecond(bytes, System.nanoTime() - start);
        });
        double mibReads = median(() -> measure(reader, MIB_READS, 1 << 20));
        double smallReads = median(() -> measure(reader, SMALL_READS, SMALL));
        System.out.printf(Locale.ROOT, "| %s | %s | %.0f | %.0f | %.0f |%n", store, client, full, mibReads, smallReads);
    }

    /** Reads per second of {@code count} reads of {@code length} bytes at seeded random offsets. */
    private static double measure(Reader reader, int count, int length) throws IOException {
        SplittableRandom random = new SplittableRandom(count);
        long start = System.nanoTime();
        for (int i = 0; i < count; i++) {
            long offset = random.nextLong(SIZE - length);
            long n = reader.read(offset, length);
            if (n != length) {
                throw new IllegalStateException("read " + n + " bytes, not " + length);
            }
        }
        return count / ((System.nanoTime() - start) / 1e9);
    }

    @FunctionalInterface
    private interface Round {
        double run() throws IOException;
    }

    private static double median(Round round) throws IOException {
        double[] r = {round.run(), round.run(), round.run()};
        Arrays.sort(r);
        return r[1];
    }

    private static double mibPerSecond(long bytes, long nanos) {
        return bytes / (1024.0 * 1024.0) / (nanos / 1e9);
    }
}
