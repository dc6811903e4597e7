/**
 * The {@link dev.ballast.storage.object.ObjectStore} over a versioned S3 bucket (AWS or
 * S3-compatible): {@link dev.ballast.storage.object.s3.S3ObjectStore}, opened with an
 * {@link dev.ballast.storage.object.s3.S3Endpoint} (where and how to reach the endpoint, the one home
 * of connection settings) and an {@link dev.ballast.storage.object.s3.S3StoreConfig} (how the bucket is
 * used). The only package, with its {@code transport} subpackage, that imports the AWS SDK; SDK
 * failures are translated here ({@link dev.ballast.storage.object.s3.S3Errors}) into
 * {@link dev.ballast.storage.StorageException}s that keep them as their cause.
 *
 * <p>Null rule: no method accepts null unless its documentation says so; a null argument throws
 * {@link java.lang.NullPointerException} naming the parameter.
 */
package dev.ballast.storage.object.s3;
