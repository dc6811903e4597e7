/**
 * Whole-object, versioned storage: the {@link dev.ballast.storage.object.ObjectStore} interface and
 * its values ({@link dev.ballast.storage.object.ObjectVersion},
 * {@link dev.ballast.storage.object.ObjectRead}, {@link dev.ballast.storage.object.VersionEntry},
 * {@link dev.ballast.storage.object.StoreCapabilities}). There is no write at a byte offset: a put
 * replaces the whole object and creates a new version; partial edits are a read followed by a
 * conditional write ({@code If-Match}) of the whole object. The S3 implementation lives in
 * {@code dev.ballast.storage.object.s3}, the only package that imports the AWS SDK.
 *
 * <p>A null argument where the signature allows none throws {@link java.lang.NullPointerException}
 * naming the parameter.
 */
@NullMarked
package dev.ballast.storage.object;

import org.jspecify.annotations.NullMarked;
