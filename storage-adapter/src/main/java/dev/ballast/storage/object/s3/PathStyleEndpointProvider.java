package dev.ballast.storage.object.s3;

import java.net.URI;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;
import software.amazon.awssdk.awscore.endpoints.AwsEndpointAttribute;
import software.amazon.awssdk.awscore.endpoints.authscheme.EndpointAuthScheme;
import software.amazon.awssdk.awscore.endpoints.authscheme.SigV4AuthScheme;
import software.amazon.awssdk.endpoints.Endpoint;
import software.amazon.awssdk.services.s3.endpoints.S3EndpointParams;
import software.amazon.awssdk.services.s3.endpoints.S3EndpointProvider;

/**
 * The endpoint of every request to one S3-compatible endpoint URI with path-style addressing,
 * without running the SDK's S3 endpoint rules for each request (the SDK runs them twice per request:
 * once to choose the auth scheme, once to resolve the URL). For a plain bucket name the answer is what
 * those rules answer for a custom endpoint with {@code ForcePathStyle}: the URL
 * {@code <scheme>://<authority><path>/<bucket>} (the endpoint's path with a trailing slash, then the
 * bucket) and SigV4 signing for service {@code s3} in the client's region with double URL-encoding
 * off (the rules' {@code authSchemes} property). Every other case goes to the SDK's rules unchanged:
 * no bucket, a bucket name that is not plain (an ARN, anything needing percent-encoding, names with
 * {@code --} as S3 Express, access point and Outposts aliases have), FIPS, dual-stack, Transfer
 * Acceleration or an object lambda endpoint asked for, or a region other than the one the client
 * signs for. ({@code UseGlobalEndpoint}, which the SDK sets in {@code us-east-1}, and
 * {@code UseS3ExpressControlEndpoint}, which it sets for bucket operations, change nothing for a custom
 * endpoint and a bucket that is not an S3 Express one.) Stateless and thread-safe.
 */
final class PathStyleEndpointProvider implements S3EndpointProvider {
    /** Lowercase letters, digits, dots and hyphens, starting and ending with a letter or digit. */
    private static final Pattern PLAIN_BUCKET = Pattern.compile("[a-z0-9]([a-z0-9.-]{0,253}[a-z0-9])?");

    private final String base;
    private final String region;
    private final List<EndpointAuthScheme> authSchemes;
    private final S3EndpointProvider rules;

    /**
     * @param endpoint the endpoint URI: absolute {@code http} or {@code https} with a host, no query or
     *     fragment (as {@link S3Endpoint.Builder#build()} checks)
     * @param region the region requests are signed for
     * @param rules the SDK's provider, for the cases this one does not answer itself
     */
    PathStyleEndpointProvider(URI endpoint, String region, S3EndpointProvider rules) {
        String path = endpoint.getRawPath() == null ? "" : endpoint.getRawPath();
        if (!path.startsWith("/")) {
            path = "/" + path;
        }
        if (!path.endsWith("/")) {
            path = path + "/";
        }
        this.base = endpoint.getScheme() + "://" + endpoint.getRawAuthority() + path;
        this.region = region;
        this.authSchemes = List.of(SigV4AuthScheme.builder()
                .disableDoubleEncoding(true)
                .signingName("s3")
                .signingRegion(region)
                .build());
        this.rules = rules;
    }

    @Override
    public CompletableFuture<Endpoint> resolveEndpoint(S3EndpointParams params) {
        String bucket = params.bucket();
        if (bucket == null
                || !PLAIN_BUCKET.matcher(bucket).matches()
                || bucket.contains("--")
                || bucket.contains("..")
                || params.region() == null
                || !region.equals(params.region().id())
                || "aws-global".equals(region)
                || !Boolean.TRUE.equals(params.forcePathStyle())
                || Boolean.TRUE.equals(params.useFips())
                || Boolean.TRUE.equals(params.useDualStack())
                || Boolean.TRUE.equals(params.accelerate())
                || Boolean.TRUE.equals(params.useObjectLambdaEndpoint())) {
            return rules.resolveEndpoint(params);
        }
        return CompletableFuture.completedFuture(Endpoint.builder()
                .url(URI.create(base + bucket))
                .putAttribute(AwsEndpointAttribute.AUTH_SCHEMES, authSchemes)
                .build());
    }
}
