package dev.ballast.storage.object;

import software.amazon.awssdk.services.s3.S3Client;

/** Test housekeeping on a real S3 server. */
public final class S3Buckets {
    private S3Buckets() {}

    /**
     * Deletes every version and delete marker in {@code bucket}, page by page, then the bucket.
     *
     * @throws software.amazon.awssdk.core.exception.SdkException if the server refuses any of it
     */
    public static void removeWithEveryVersion(S3Client s3, String bucket) {
        String keyMarker = null;
        String versionMarker = null;
        while (true) {
            String km = keyMarker;
            String vm = versionMarker;
            var page = s3.listObjectVersions(l -> l.bucket(bucket).keyMarker(km).versionIdMarker(vm));
            page.versions()
                    .forEach(v ->
                            s3.deleteObject(d -> d.bucket(bucket).key(v.key()).versionId(v.versionId())));
            page.deleteMarkers()
                    .forEach(v ->
                            s3.deleteObject(d -> d.bucket(bucket).key(v.key()).versionId(v.versionId())));
            if (!Boolean.TRUE.equals(page.isTruncated())) {
                break;
            }
            keyMarker = page.nextKeyMarker();
            versionMarker = page.nextVersionIdMarker();
        }
        s3.deleteBucket(d -> d.bucket(bucket));
    }
}
