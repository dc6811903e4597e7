/**
 * The HTTP transport of the S3 object store: {@link dev.ballast.storage.object.s3.transport.JdkSdkHttpClient},
 * an AWS SDK v2 {@code SdkHttpClient} that sends every request through a caller-supplied
 * {@link java.net.http.HttpClient} (normally a {@code dev.ballast.http.ResilientHttpClient}). It is
 * generic HTTP: it knows method semantics (RFC 9110) but no S3 operation; rules that depend on what a
 * request does to the store (a PUT creating a new version) are injected by the caller. Each place where
 * {@code java.net.http} and the SDK disagree is one named, package-private unit stating its reason.
 *
 * <p>A null argument where the signature allows none throws {@link java.lang.NullPointerException}
 * naming the parameter.
 */
@NullMarked
package dev.ballast.storage.object.s3.transport;

import org.jspecify.annotations.NullMarked;
