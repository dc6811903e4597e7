/**
 * The storage facade and its failures: {@link dev.ballast.storage.StorageFacade} routes in-place
 * byte writes to local block volumes and whole-object, versioned writes to S3, and every failure is
 * a subtype of the sealed, unchecked {@link dev.ballast.storage.StorageException}.
 *
 * <p>A null argument where the signature allows none throws {@link java.lang.NullPointerException}
 * naming the parameter.
 */
@NullMarked
package dev.ballast.storage;

import org.jspecify.annotations.NullMarked;
