/**
 * Client-side envelope encryption for any {@link dev.ballast.storage.object.ObjectStore}:
 * {@link dev.ballast.storage.crypto.EncryptedObjectStore} encrypts each object under a data key of its
 * own (AES-256-GCM in segments, Tink's AES-GCM-HKDF streaming format) and stores that key wrapped by a
 * key the user holds ({@link dev.ballast.storage.crypto.KeyWrapper}: AES key wrap, or a KMS key through
 * {@code dev.ballast.storage.crypto.kms}), so the store holds ciphertext only. Configured by
 * {@link dev.ballast.storage.crypto.ClientSideEncryption}.
 *
 * <p>A null argument where the signature allows none throws {@link java.lang.NullPointerException}
 * naming the parameter.
 */
@NullMarked
package dev.ballast.storage.crypto;

import org.jspecify.annotations.NullMarked;
