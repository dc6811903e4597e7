package dev.ballast.test.minio;

import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.object.s3.S3Endpoint;
import dev.ballast.storage.object.s3.S3StoreConfig;
import java.net.URI;
import java.util.Objects;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.MinIOContainer;

/**
 * MinIO in a container (Testcontainers), handing back a {@link StorageFacade} on a versioned bucket:
 *
 * <pre>{@code
 * MinioBucket.assumeDocker();                         // skips the test, naming Docker, where none answers
 * try (MinioBucket minio = MinioBucket.start();
 *         StorageFacade storage = minio.facade("orders")) {
 *     storage.objects().put("a", ObjectContent.ofBytes(bytes));
 * }
 * }</pre>
 *
 * <p>Runs only where a Docker engine answers. It needs {@code org.testcontainers:testcontainers-minio}
 * on the test class path, which {@code ballast-test} declares optional: add it to your build (2.x).
 * The image is pinned ({@link #DEFAULT_IMAGE}) unless given. Thread-safe; {@link #close()} stops the
 * container (Testcontainers' Ryuk also removes it when the JVM exits).
 */
public final class MinioBucket implements AutoCloseable {

    /** The image started by {@link #start()}: the one Ballast's own contract runs against. */
    public static final String DEFAULT_IMAGE = "minio/minio:RELEASE.2023-09-04T19-57-37Z";

    /** MinIO's region. */
    public static final String REGION = "us-east-1";

    private final MinIOContainer container;

    private MinioBucket(MinIOContainer container) {
        this.container = container;
    }

    /**
     * Why MinIO cannot run here, or empty when it can: it needs a Docker engine (and Testcontainers on
     * the class path).
     */
    public static Optional<String> unavailableReason() {
        try {
            return DockerClientFactory.instance().isDockerAvailable()
                    ? Optional.empty()
                    : Optional.of("MinIO needs a Docker engine and none answers on this machine");
        } catch (RuntimeException | LinkageError e) {
            return Optional.of("MinIO needs a Docker engine and Testcontainers could not reach one ("
                    + e.getClass().getSimpleName() + ": " + e.getMessage() + ")");
        }
    }

    /** Aborts (skips) the calling JUnit test with {@link #unavailableReason()} when MinIO cannot run. */
    public static void assumeDocker() {
        Optional<String> reason = unavailableReason();
        Assumptions.assumeTrue(reason.isEmpty(), () -> reason.orElse(""));
    }

    /** Starts MinIO from {@link #DEFAULT_IMAGE}; see {@link #start(String)}. */
    public static MinioBucket start() {
        return start(DEFAULT_IMAGE);
    }

    /**
     * Starts MinIO from {@code image} and waits until it answers.
     *
     * @throws IllegalStateException naming Docker when no Docker engine answers (nothing is started)
     */
    public static MinioBucket start(String image) {
        Objects.requireNonNull(image, "image");
        Optional<String> reason = unavailableReason();
        if (reason.isPresent()) {
            throw new IllegalStateException(reason.get() + "; run this test where Docker runs, or skip it"
                    + " with MinioBucket.assumeDocker()");
        }
        MinIOContainer container = new MinIOContainer(image);
        container.start();
        return new MinioBucket(container);
    }

    /** The S3 API's address, {@code http://host:port}. */
    public URI uri() {
        return URI.create(container.getS3URL());
    }

    /** An endpoint with MinIO's root credentials, path-style, in {@link #REGION}. */
    public S3Endpoint endpoint() {
        return S3Endpoint.newBuilder()
                .endpoint(uri())
                .region(REGION)
                .credentials(container.getUserName(), container.getPassword())
                .build();
    }

    /**
     * A facade on {@code bucket}, created and versioned if needed (the capability probe runs once, as
     * at every open); the caller closes it.
     */
    public StorageFacade facade(String bucket) {
        return StorageFacade.newBuilder()
                .s3(endpoint())
                .bucket(bucket)
                .s3Config(S3StoreConfig.builder()
                        .createBucket(true)
                        .enableVersioning(true)
                        .build())
                .build();
    }

    /** Stops the container. */
    @Override
    public void close() {
        container.stop();
    }
}
