/**
 * Helpers shared by the storage packages and not exported by the module: key validation
 * ({@link dev.ballast.storage.internal.ObjectKeys}), content preparation and spooling
 * ({@link dev.ballast.storage.internal.Payload}), SHA-256 ({@link dev.ballast.storage.internal.Sha256})
 * and the verifying read stream ({@link dev.ballast.storage.internal.VerifyingInputStream}). Not an
 * API: anything here may change in any release.
 */
@NullMarked
package dev.ballast.storage.internal;

import org.jspecify.annotations.NullMarked;
