package dev.ballast.cli;

import dev.ballast.http.ResilientHttpClient;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.object.s3.S3Endpoint;
import dev.ballast.storage.object.s3.S3StoreConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;

/**
 * Opens the S3 bucket a command's options name ({@code --endpoint} or {@code -r s3:...}, with
 * {@code --bucket}) as a {@link StoreSession}: the command's HTTP client (one attempt's connection
 * within 5 s, {@code --timeout} for each call; no TLS set up for an {@code http://} endpoint,
 * {@link PlainHttpOnly}), the AWS SDK's S3 client over it with the credentials and region found
 * ({@link S3Credentials}), and the store, probed or declared by what the command does with it.
 */
final class S3StoreOpening {
    private S3StoreOpening() {}

    /**
     * Opens the bucket for {@code access}.
     *
     * @throws CliFailure exit 2 for an endpoint that is not an absolute http:// or https:// URL, and the
     *     store's own failures as {@link Errors#translate} words them
     */
    static StoreSession open(CommonOptions o, CliContext ctx, StoreSession.Access access) {
        refuseCredentialsInEndpoint(o.endpoint);
        ResilientHttpClient http = null;
        HttpSelectorThreads selectors = null;
        try {
            HttpCounting counting = new HttpCounting();
            HttpSelectorThreads.Built<ResilientHttpClient> built = HttpSelectorThreads.startedBy(() -> {
                ResilientHttpClient.Builder hb = ResilientHttpClient.newBuilder()
                        .version(HttpClient.Version.HTTP_1_1)
                        .connectTimeout(Duration.ofSeconds(5))
                        .totalTimeout(o.timeout)
                        .listener(counting);
                if (o.endpoint != null && PlainHttpOnly.isPlainHttp(o.endpoint.getScheme())) {
                    // no TLS setup for an http:// endpoint (about 0.15 s of start-up; PlainHttpOnly)
                    hb.sslContext(PlainHttpOnly.context()).sslParameters(PlainHttpOnly.parameters());
                }
                return hb.build();
            });
            http = built.client();
            selectors = built.selectors();
            URI endpoint = o.endpoint;
            S3Endpoint.Builder b = S3Endpoint.newBuilder().httpClient(http);
            b.region(S3Credentials.region(o, ctx.env(), ctx.home()));
            String where = "the S3 endpoint " + endpoint;
            b.endpoint(endpoint);
            S3Credentials.resolve(o, ctx.env(), ctx.home()).ifPresent(c -> {
                if (c.sdkProfile() != null && c.profileFiles() != null) {
                    b.profile(c.sdkProfile(), c.profileFiles());
                } else {
                    b.credentials(c.accessKey(), c.secretKey(), c.sessionToken());
                }
            });
            if (o.pathStyle != null) {
                b.pathStyle(o.pathStyle);
            }
            S3Endpoint s3Endpoint;
            try {
                s3Endpoint = b.build();
            } catch (IllegalArgumentException e) {
                throw new CliFailure(
                        ExitCodes.USAGE,
                        "The endpoint '" + o.endpoint + "' is not usable (" + e.getMessage()
                                + "); pass an absolute http:// or https:// URL.",
                        e);
            }
            // Only a backup creates the bucket; a command that writes turns its versioning on and probes what the store
            // honours (the
            // probe writes under .ballast/probe/): a command that reads sends nothing at open, so it works with
            // read-only credentials, and a mistyped bucket is found missing by its first read, not created.
            S3StoreConfig s3Config = access != StoreSession.Access.READ
                    ? S3StoreConfig.builder()
                            .createBucket(access == StoreSession.Access.WRITE)
                            .enableVersioning(true)
                            .probeCache(
                                    ctx.cacheDir().resolve("s3-probe.properties"), StoreSession.PROBE_FINDINGS_TRUSTED)
                            .onReadResumed(counting.retries::increment)
                            .onVersioningEnabled(was -> ctx.err()
                                    .println("Turned on versioning of bucket '" + o.bucket + "' at " + endpoint
                                            + " (it was " + was + "): Ballast keeps every version of what it"
                                            + " stores; the bucket's other objects keep their old versions"
                                            + " from now on too (S3 lets versioning be suspended, never"
                                            + " turned off)."))
                            .build()
                    : S3StoreConfig.builder()
                            .declaredCapabilities(java.util.EnumSet.noneOf(S3StoreConfig.Capability.class))
                            .onReadResumed(counting.retries::increment)
                            .build();
            StorageFacade facade = Errors.translate(
                    where,
                    o.bucket,
                    () -> StorageFacade.newBuilder()
                            .s3(s3Endpoint)
                            .bucket(o.bucket)
                            .s3Config(s3Config)
                            .clock(ctx.clock())
                            .build());
            return StoreSession.ofS3(
                    http, selectors, facade, counting, where + ", bucket '" + o.bucket + "'", ctx.cacheDir());
        } catch (RuntimeException e) {
            if (http != null) {
                http.close();
            }
            if (selectors != null) {
                selectors.stop();
            }
            throw e;
        }
    }

    /**
     * Refuses an endpoint URL that carries credentials before its host ({@code http://KEY:SECRET@host},
     * RFC 3986 section 3.2.1, "userinfo"): the S3 client ignores them, and the endpoint is named in every
     * message and log line, so the secret would be printed (a tester's run echoed it in each error).
     *
     * @throws CliFailure exit 2, naming the endpoint without its credentials
     */
    static void refuseCredentialsInEndpoint(java.net.@org.jspecify.annotations.Nullable URI endpoint) {
        if (endpoint == null || endpoint.getRawUserInfo() == null) {
            return;
        }
        String shown = endpoint.getScheme() + "://" + endpoint.getHost()
                + (endpoint.getPort() >= 0 ? ":" + endpoint.getPort() : "");
        throw new CliFailure(
                ExitCodes.USAGE,
                "The endpoint " + shown + " was given with credentials before its host (USER:PASSWORD@), which"
                        + " would be shown in every message; pass the endpoint without them, and the keys with"
                        + " --access-key and --secret-key, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or --profile.");
    }
}
