/**
 * MinIO in a container for a service's tests ({@link dev.ballast.test.minio.MinioBucket}); needs a
 * Docker engine and {@code org.testcontainers:testcontainers-minio} on the test class path.
 */
@NullMarked
package dev.ballast.test.minio;

import org.jspecify.annotations.NullMarked;
