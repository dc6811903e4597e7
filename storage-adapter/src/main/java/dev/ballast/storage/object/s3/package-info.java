/**
 * The {@link dev.ballast.storage.object.ObjectStore} over a versioned S3 bucket (AWS or
 * S3-compatible): {@link dev.ballast.storage.object.s3.S3ObjectStore}, opened with an
 * {@link dev.ballast.storage.object.s3.S3Endpoint} (where and how to reach the endpoint, the one home
 * of connection settings) and an {@link dev.ballast.storage.object.s3.S3StoreConfig} (how the bucket is
 * used). The only package, with its {@code transport} subpackage, that imports the AWS SDK; SDK
 * failures are translated here ({@link dev.ballast.storage.object.s3.S3Errors}) into
 * {@link dev.ballast.storage.StorageException}s that keep them as their cause.
 *
 * <p>A null argument where the signature allows none throws {@link java.lang.NullPointerException}
 * naming the parameter.
 */
@NullMarked
package dev.ballast.storage.object.s3;

import org.jspecify.annotations.NullMarked;
