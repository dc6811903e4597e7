/**
 * Data keys wrapped by an AWS KMS key: {@link dev.ballast.storage.crypto.kms.KmsKeyWrapper}, through the
 * AWS SDK's {@code KmsClient}. The SDK's {@code software.amazon.awssdk:kms} artifact is an optional
 * dependency of this module: add it to use this package.
 *
 * <p>A null argument where the signature allows none throws {@link java.lang.NullPointerException}
 * naming the parameter.
 */
@NullMarked
package dev.ballast.storage.crypto.kms;

import org.jspecify.annotations.NullMarked;
