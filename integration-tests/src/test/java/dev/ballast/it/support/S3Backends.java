package dev.ballast.it.support;

import dev.ballast.storage.object.S3MockServer;
import dev.ballast.storage.object.S3TestBackend;
import dev.ballast.storage.object.S3TestBackend.Feature;
import java.net.URI;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.MinIOContainer;

/**
 * The backend switch of the S3 contract suite. S3Mock and s3proxy run in-process and always;
 * MinIO runs in a container wherever a Docker engine answers (unless {@code BALLAST_S3_BACKEND} names
 * another backend);
 * an endpoint named by {@code BALLAST_S3_ENDPOINT} (with {@code BALLAST_S3_ACCESS_KEY},
 * {@code BALLAST_S3_SECRET_KEY}, {@code BALLAST_S3_REGION}, and {@code BALLAST_S3_NAME} for test
 * output) is used as it is. Each backend declares
 * the behaviours it is known to have; the contract skips, with the reason, what it lacks.
 */
public final class S3Backends {
    /** Names the extra backend to run: {@code minio}. */
    public static final String BACKEND_VARIABLE = "BALLAST_S3_BACKEND";
    /** An existing endpoint to run the contract against. */
    public static final String ENDPOINT_VARIABLE = "BALLAST_S3_ENDPOINT";
    /** What to call that endpoint in test output, e.g. {@code Ceph RGW 16.2}; "env endpoint" if unset. */
    public static final String NAME_VARIABLE = "BALLAST_S3_NAME";

    private S3Backends() {}

    /**
     * S3Mock: checks no signatures and no signed payload hashes (it checks {@code Content-MD5}), keeps
     * objects on disk. Measured here (5.2.0):
     * DeleteObject returns the deleted version's ID instead of the marker's, ListObjectsV2 still lists
     * deleted keys, a GET of the marker's version ID succeeds, and AbortMultipartUpload deletes the
     * key's existing object; a delimited ListObjectsV2 answers every common prefix on every page.
     */
    public static S3TestBackend s3Mock() {
        return new S3TestBackend(
                "S3Mock",
                S3MockServer.endpoint(),
                "us-east-1",
                "any-key",
                "any-secret",
                EnumSet.of(Feature.OBJECTS_OUTSIDE_TEST_HEAP, Feature.PATH_FAITHFUL_KEYS));
    }

    /**
     * s3proxy over its transient store: keeps objects in this JVM's heap, checks signatures and signed
     * payload hashes. Measured
     * here (4.1.0): {@code //} in a key is collapsed, {@code dir/} reads back empty (a directory
     * marker), and a 412 to a conditional PUT can come before the body is read, followed by a close that
     * may cost the client the answer; the store resolves such a lost answer from the key's current
     * version, so the contract runs here with the client the product uses, unchanged.
     */
    public static S3TestBackend s3Proxy() {
        return new S3TestBackend(
                "s3proxy",
                S3ProxyServer.endpoint(),
                "us-east-1",
                S3ProxyServer.IDENTITY,
                S3ProxyServer.CREDENTIAL,
                EnumSet.of(
                        Feature.DELETE_MARKER_REMOVAL_RESTORES,
                        Feature.VERIFIES_SIGNATURES,
                        Feature.VERIFIES_PAYLOAD_DIGEST,
                        Feature.VERIFIES_SIGNED_PAYLOAD,
                        Feature.FAITHFUL_DELETE_MARKERS,
                        Feature.PAGED_DELIMITER_LISTINGS));
    }

    /** MinIO's image, pinned. */
    public static final String MINIO_IMAGE = "minio/minio:RELEASE.2023-09-04T19-57-37Z";

    private static MinIOContainer minio;

    /**
     * Why MinIO cannot run here, or empty when it can. It runs wherever a Docker engine answers,
     * unless {@value #BACKEND_VARIABLE} names another backend; with {@value #BACKEND_VARIABLE}{@code =minio}
     * and no Docker engine the reason says that MinIO was asked for.
     */
    public static Optional<String> minioUnavailableReason(Map<String, String> env) {
        String asked = env.getOrDefault(BACKEND_VARIABLE, "").trim();
        if (!asked.isEmpty() && !"minio".equalsIgnoreCase(asked)) {
            return Optional.of("MinIO is skipped because " + BACKEND_VARIABLE + "=" + asked + " names another backend");
        }
        if (!dockerAvailable()) {
            return Optional.of("MinIO needs a Docker engine and none answers on this machine"
                    + ("minio".equalsIgnoreCase(asked) ? " (" + BACKEND_VARIABLE + "=minio was set)" : ""));
        }
        return Optional.empty();
    }

    private static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    /** MinIO in a container started once per JVM (Testcontainers' Ryuk removes it at exit). */
    @SuppressWarnings("resource") // lives for the JVM; Ryuk stops it
    public static synchronized S3TestBackend minio() {
        if (minio == null) {
            MinIOContainer container = new MinIOContainer(MINIO_IMAGE);
            container.start();
            minio = container;
        }
        return new S3TestBackend(
                "MinIO",
                URI.create(minio.getS3URL()),
                "us-east-1",
                minio.getUserName(),
                minio.getPassword(),
                faithfulS3());
    }

    /** The behaviours of AWS S3 and MinIO, both faithful to the S3 API here. */
    public static EnumSet<Feature> faithfulS3() {
        return EnumSet.allOf(Feature.class);
    }

    /** The endpoint named by the environment, if any. */
    public static Optional<S3TestBackend> fromEnvironment(Map<String, String> env) {
        String endpoint = env.get(ENDPOINT_VARIABLE);
        if (endpoint == null || endpoint.isBlank()) {
            return Optional.empty();
        }
        String region = env.getOrDefault("BALLAST_S3_REGION", "us-east-1");
        String name = env.getOrDefault(NAME_VARIABLE, "").isBlank()
                ? "env endpoint"
                : env.get(NAME_VARIABLE).trim();
        return Optional.of(new S3TestBackend(
                name,
                URI.create(endpoint.trim()),
                region,
                require(env, "BALLAST_S3_ACCESS_KEY"),
                require(env, "BALLAST_S3_SECRET_KEY"),
                faithfulS3()));
    }

    private static String require(Map<String, String> env, String name) {
        String value = env.get(name);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException(name + " must be set when " + ENDPOINT_VARIABLE + " is set");
        }
        return value;
    }
}
