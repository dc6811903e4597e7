package dev.ballast.storage;

import org.jspecify.annotations.Nullable;

/**
 * The bucket does not exist: S3 answered {@code 404 NoSuchBucket}, or {@code 404} to HeadBucket
 * (<a href="https://docs.aws.amazon.com/AmazonS3/latest/API/API_HeadBucket.html">HeadBucket</a>,
 * <a href="https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html">error codes</a>).
 * Not retryable: create the bucket, correct its name, or let Ballast create it when the store is
 * opened ({@code S3StoreConfig.builder().createBucket(true)}). The message names the bucket and the
 * endpoint. Never counts as the store being unavailable and never falls back to a cached copy.
 */
public final class BucketNotFoundException extends StorageException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message which bucket, at which endpoint, and what to do
     * @param cause the store's answer
     */
    public BucketNotFoundException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }

    @Override
    public boolean retryable() {
        return false;
    }
}
