package dev.ballast.storage.object.s3;

import java.time.Clock;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.internal.signer.CredentialScope;
import software.amazon.awssdk.http.auth.aws.internal.signer.V4Properties;
import software.amazon.awssdk.http.auth.aws.internal.signer.V4RequestSigner;
import software.amazon.awssdk.http.auth.aws.internal.signer.V4RequestSigningResult;
import software.amazon.awssdk.http.auth.aws.internal.signer.util.CredentialUtils;
import software.amazon.awssdk.http.auth.aws.scheme.AwsV4AuthScheme;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.scheme.AuthScheme;
import software.amazon.awssdk.http.auth.spi.signer.AsyncSignRequest;
import software.amazon.awssdk.http.auth.spi.signer.AsyncSignedRequest;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignRequest;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.IdentityProvider;
import software.amazon.awssdk.identity.spi.IdentityProviders;

/**
 * SigV4 (header) signing that takes a body's SHA-256 from the request instead of reading and hashing
 * the body again: a request that arrives with {@code x-amz-content-sha256} set to 64 hex digits (the
 * object store sets it from the digest its one read of the content computed) is signed with that
 * value as the payload hash, exactly as the SDK's own signer signs it after hashing the body
 * (<a href="https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html">Signature
 * Calculations for the Authorization Header: Transferring Payload in a Single Chunk</a>). The server
 * still hashes what it receives and refuses a body that does not match
 * ({@code XAmzContentSHA256Mismatch}), so a wrong value can only fail a request, never store other
 * bytes.
 *
 * <p>Every other request (no such header, HTTPS where the SDK signs {@code UNSIGNED-PAYLOAD}, chunked
 * or trailing checksums, presigning, anonymous credentials, asynchronous signing) goes to the SDK's
 * {@link AwsV4HttpSigner} unchanged. Uses the SDK's own canonical-request signer
 * ({@code V4RequestSigner}, internal to the SDK version this module is built with; a test checks the
 * signature against an independent implementation). Stateless and thread-safe.
 */
final class PrecomputedPayloadSigner implements HttpSigner<AwsCredentialsIdentity> {
    private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-f]{64}");

    private final AwsV4HttpSigner delegate = AwsV4HttpSigner.create();

    /** The {@code aws.auth#sigv4} scheme with this signer, for {@code S3ClientBuilder.putAuthScheme}. */
    static AuthScheme<AwsCredentialsIdentity> scheme() {
        PrecomputedPayloadSigner signer = new PrecomputedPayloadSigner();
        return new AuthScheme<>() {
            @Override
            public String schemeId() {
                return AwsV4AuthScheme.SCHEME_ID;
            }

            @Override
            public IdentityProvider<AwsCredentialsIdentity> identityProvider(IdentityProviders providers) {
                return providers.identityProvider(AwsCredentialsIdentity.class);
            }

            @Override
            public HttpSigner<AwsCredentialsIdentity> signer() {
                return signer;
            }
        };
    }

    @Override
    public SignedRequest sign(SignRequest<? extends AwsCredentialsIdentity> request) {
        String hash = precomputed(request);
        if (hash == null) {
            return delegate.sign(request);
        }
        Clock clock = request.requireProperty(SIGNING_CLOCK, Clock.systemUTC());
        V4Properties properties = V4Properties.builder()
                .credentials(CredentialUtils.sanitizeCredentials(request.identity()))
                .credentialScope(new CredentialScope(
                        request.requireProperty(AwsV4HttpSigner.REGION_NAME),
                        request.requireProperty(AwsV4FamilyHttpSigner.SERVICE_SIGNING_NAME),
                        clock.instant()))
                .signingClock(clock)
                .doubleUrlEncode(request.requireProperty(AwsV4FamilyHttpSigner.DOUBLE_URL_ENCODE, true))
                .normalizePath(request.requireProperty(AwsV4FamilyHttpSigner.NORMALIZE_PATH, true))
                .build();
        SdkHttpRequest.Builder builder = request.request().toBuilder().putHeader(Uploads.CONTENT_SHA256, hash);
        V4RequestSigningResult signed = V4RequestSigner.header(properties).sign(builder);
        return SignedRequest.builder()
                .request(signed.getSignedRequest().build())
                .payload(request.payload().orElse(null))
                .build();
    }

    @Override
    public CompletableFuture<AsyncSignedRequest> signAsync(AsyncSignRequest<? extends AwsCredentialsIdentity> request) {
        return delegate.signAsync(request);
    }

    /** Whether a flexible checksum ({@code x-amz-checksum-*}) is already in the headers, not left to the SDK. */
    private static boolean hasChecksumHeader(SdkHttpRequest http) {
        for (String name : http.headers().keySet()) {
            if (name.regionMatches(true, 0, "x-amz-checksum-", 0, "x-amz-checksum-".length())) {
                return true;
            }
        }
        return false;
    }

    /** The payload hash to sign with, or null when the SDK's signer must decide. */
    private static @Nullable String precomputed(SignRequest<? extends AwsCredentialsIdentity> request) {
        SdkHttpRequest http = request.request();
        Optional<String> header = http.firstMatchingHeader(Uploads.CONTENT_SHA256);
        if (header.isEmpty()
                || request.payload().isEmpty()
                || !"http".equals(http.protocol())
                || CredentialUtils.isAnonymous(request.identity())
                || Boolean.TRUE.equals(request.property(AwsV4FamilyHttpSigner.CHUNK_ENCODING_ENABLED))
                || request.property(AwsV4FamilyHttpSigner.EXPIRATION_DURATION) != null
                || request.requireProperty(
                                AwsV4FamilyHttpSigner.AUTH_LOCATION, AwsV4FamilyHttpSigner.AuthLocation.HEADER)
                        != AwsV4FamilyHttpSigner.AuthLocation.HEADER
                || http.firstMatchingHeader("x-amz-trailer").isPresent()
                || request.property(AwsV4FamilyHttpSigner.CHECKSUM_ALGORITHM) != null && !hasChecksumHeader(http)) {
            return null;
        }
        String hash = header.get().trim().toLowerCase(Locale.ROOT);
        return SHA256_HEX.matcher(hash).matches() ? hash : null;
    }
}
