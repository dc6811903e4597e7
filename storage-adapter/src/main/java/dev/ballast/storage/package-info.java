/**
 * The storage facade and its failures: {@link dev.ballast.storage.StorageFacade} routes in-place
 * byte writes to local block volumes and whole-object, versioned writes to S3, and every failure is
 * a subtype of the sealed, unchecked {@link dev.ballast.storage.StorageException}.
 *
 * <p>Null rule: no method accepts null unless its documentation says so; a null argument throws
 * {@link java.lang.NullPointerException} naming the parameter. Methods never return null; absent
 * values are {@link java.util.Optional} or documented empty results.
 */
package dev.ballast.storage;
