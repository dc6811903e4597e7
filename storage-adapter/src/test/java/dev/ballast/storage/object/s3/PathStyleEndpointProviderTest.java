package dev.ballast.storage.object.s3;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.put;
import static com.github.tomakehurst.wiremock.client.WireMock.putRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.ballast.testkit.LeakCheck;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.awscore.endpoints.AwsEndpointAttribute;
import software.amazon.awssdk.awscore.endpoints.authscheme.EndpointAuthScheme;
import software.amazon.awssdk.awscore.endpoints.authscheme.SigV4AuthScheme;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.endpoints.Endpoint;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.endpoints.S3EndpointParams;
import software.amazon.awssdk.services.s3.endpoints.S3EndpointProvider;

/**
 * Requests to an endpoint URI with path-style addressing go to that URI, the bucket and the key, and
 * are signed as the SDK's S3 endpoint rules would have them signed, without running those rules.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
@ExtendWith(LeakCheck.class)
class PathStyleEndpointProviderTest {
    private static final S3EndpointProvider RULES = S3EndpointProvider.defaultProvider();
    private static WireMockServer wireMock;

    @BeforeAll
    static void start() {
        wireMock = new WireMockServer(options().dynamicPort().bindAddress("127.0.0.1"));
        wireMock.start();
    }

    @AfterAll
    static void stop() {
        wireMock.stop();
    }

    private static S3EndpointParams params(String endpoint, String region, String bucket, String key) {
        return params(endpoint, region, bucket, key, false);
    }

    private static S3EndpointParams params(
            String endpoint, String region, String bucket, String key, boolean sdkFlags) {
        return S3EndpointParams.builder()
                .endpoint(endpoint)
                .region(Region.of(region))
                .bucket(bucket)
                .key(key)
                .forcePathStyle(true)
                .useFips(false)
                .useDualStack(false)
                .accelerate(false)
                .useGlobalEndpoint(sdkFlags)
                .useS3ExpressControlEndpoint(sdkFlags)
                .disableMultiRegionAccessPoints(false)
                .build();
    }

    private static String describe(Endpoint e) {
        StringBuilder s = new StringBuilder(e.url().toString()).append(' ').append(e.headers());
        List<EndpointAuthScheme> schemes = e.attribute(AwsEndpointAttribute.AUTH_SCHEMES);
        for (EndpointAuthScheme scheme : schemes) {
            SigV4AuthScheme v4 = (SigV4AuthScheme) scheme;
            s.append(' ')
                    .append(v4.name())
                    .append('/')
                    .append(v4.signingName())
                    .append('/')
                    .append(v4.signingRegion())
                    .append("/disableDoubleEncoding=")
                    .append(v4.disableDoubleEncoding());
        }
        return s.toString();
    }

    @ParameterizedTest(name = "{0} {1} bucket {2}")
    @CsvSource({
        "http://127.0.0.1:7480, us-east-1, backups",
        "http://127.0.0.1:7480/, us-east-1, my.bucket-1",
        "http://localhost:9000, eu-west-1, b",
        "https://s3.example.com, us-west-2, ballast-bench",
        "https://s3.example.com/ceph, us-east-1, x1",
        "https://s3.example.com/ceph/, ap-southeast-2, a.b.c",
        "http://[::1]:7480, us-east-1, v6-bucket",
        "http://storage.internal:8080, default, rgw-zone-group",
    })
    void answersAsTheSdksRulesDoForAPlainBucket(String endpoint, String region, String bucket) {
        PathStyleEndpointProvider provider = new PathStyleEndpointProvider(URI.create(endpoint), region, params -> {
            throw new AssertionError("the SDK's rules were run for " + params);
        });
        for (String key : new String[] {"k", "dir/file name.txt", "a\\b", "ü/ß?&#%", ""}) {
            // The SDK asks for the global endpoint in us-east-1 (its legacy default), and for the S3 Express
            // control endpoint in bucket operations (CreateBucket, PutBucketVersioning).
            for (boolean global : new boolean[] {false, true}) {
                S3EndpointParams params = params(endpoint, region, bucket, key, global);

                Endpoint mine = provider.resolveEndpoint(params).join();

                assertThat(describe(mine))
                        .isEqualTo(describe(RULES.resolveEndpoint(params).join()));
            }
        }
    }

    @Test
    void everyOtherCaseIsLeftToTheSdksRules() {
        AtomicInteger delegated = new AtomicInteger();
        String endpoint = "http://127.0.0.1:7480";
        PathStyleEndpointProvider provider = new PathStyleEndpointProvider(URI.create(endpoint), "us-east-1", p -> {
            delegated.incrementAndGet();
            return RULES.resolveEndpoint(p);
        });
        List<Consumer<S3EndpointParams.Builder>> others = List.of(
                b -> b.bucket(null),
                b -> b.bucket("UpperCase_bucket"),
                b -> b.bucket("express--use1-az4--x-s3"),
                b -> b.bucket("arn:aws:s3:us-east-1:123456789012:accesspoint/ap"),
                b -> b.bucket("a..b"),
                b -> b.region(Region.of("eu-west-1")),
                b -> b.forcePathStyle(false),
                b -> b.useObjectLambdaEndpoint(true),
                b -> b.useDualStack(true),
                b -> b.accelerate(true));
        for (Consumer<S3EndpointParams.Builder> other : others) {
            S3EndpointParams.Builder b = params(endpoint, "us-east-1", "bucket", "k").toBuilder();
            other.accept(b);
            S3EndpointParams params = b.build();
            int before = delegated.get();

            provider.resolveEndpoint(params).handle((r, e) -> null).join();

            assertThat(delegated.get()).as("delegated: %s", params).isEqualTo(before + 1);
        }
    }

    @Test
    void aClientOnAnEndpointWithAPathSendsOddKeysThereWithValidSignatures() throws Exception {
        wireMock.resetAll();
        wireMock.stubFor(
                put(urlPathMatching("/s3/bucket/.*")).willReturn(aResponse().withStatus(200)));
        S3Endpoint endpoint = S3Endpoint.newBuilder()
                .endpoint(URI.create("http://localhost:" + wireMock.port() + "/s3"))
                .credentials("AKIDEXAMPLE", "secret")
                .httpClient(HttpClient.newHttpClient())
                .build();
        String[] keys = {"plain", "dir/file name.txt", "a\\b.txt", "ü/ß?&#%+=~*'()"};

        try (S3Client s3 = endpoint.newClient()) {
            for (String key : keys) {
                s3.putObject(b -> b.bucket("bucket").key(key), RequestBody.fromString(key));
            }
        }

        List<LoggedRequest> puts = wireMock.findAll(putRequestedFor(urlPathMatching("/s3/bucket/.*")));
        assertThat(puts).hasSize(keys.length);
        for (int i = 0; i < keys.length; i++) {
            LoggedRequest r = puts.get(i);
            assertThat(r.getBodyAsString()).isEqualTo(keys[i]);
            assertThat(URI.create(r.getAbsoluteUrl()).getRawPath()).isEqualTo("/s3/bucket/" + uriEncodePath(keys[i]));
            assertThat(r.getHeader("Host")).isEqualTo("localhost:" + wireMock.port());
            S3EndpointTest.SigV4.Authorization auth = S3EndpointTest.SigV4.parse(r.getHeader("Authorization"));
            assertThat(auth.region()).isEqualTo("us-east-1");
            assertThat(auth.service()).isEqualTo("s3");
            assertThat(S3EndpointTest.SigV4.expectedSignature(r, auth, "secret"))
                    .as("signature of the PUT of '%s'", keys[i])
                    .isEqualTo(auth.signature());
        }
    }

    /** RFC 3986 percent-encoding of every byte but the unreserved characters and '/', as SigV4 wants a path. */
    private static String uriEncodePath(String key) {
        StringBuilder s = new StringBuilder();
        for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if (c < 0x80 && (Character.isLetterOrDigit(c) || "-_.~/".indexOf(c) >= 0)) {
                s.append(c);
            } else {
                s.append('%').append(String.format("%02X", b & 0xff));
            }
        }
        return s.toString();
    }
}
