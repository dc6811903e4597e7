package dev.ballast.it.support;

import dev.ballast.testkit.LeakCheck;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Properties;
import org.gaul.s3proxy.BlobStores;
import org.gaul.s3proxy.S3Proxy;

/**
 * s3proxy 4.1 started once per test JVM, in-process, on a random loopback port, over its
 * {@code transient} (in-memory) store, checking SigV2/SigV4 signatures against one identity.
 * Thread-safe.
 */
public final class S3ProxyServer {
    /** The access key the server accepts. */
    public static final String IDENTITY = "ballast-it";
    /** The secret key the server accepts. */
    public static final String CREDENTIAL = "ballast-it-secret";

    private static URI endpoint;

    private S3ProxyServer() {}

    /** The endpoint, starting the server on first use. */
    public static synchronized URI endpoint() {
        if (endpoint == null) {
            Properties p = new Properties();
            p.setProperty("jclouds.provider", "transient");
            p.setProperty("jclouds.identity", IDENTITY);
            p.setProperty("jclouds.credential", CREDENTIAL);
            p.setProperty("s3proxy.endpoint", "http://127.0.0.1:0");
            p.setProperty("s3proxy.authorization", "aws-v2-or-v4");
            p.setProperty("s3proxy.identity", IDENTITY);
            p.setProperty("s3proxy.credential", CREDENTIAL);
            endpoint = LeakCheck.sharedFixture(() -> {
                try {
                    S3Proxy proxy = S3Proxy.Builder.fromProperties(p)
                            .blobStore(BlobStores.create("transient", p))
                            .build();
                    proxy.start();
                    while (!"STARTED".equals(proxy.getState())) {
                        Thread.onSpinWait();
                    }
                    URI started = URI.create("http://127.0.0.1:" + proxy.getPort());
                    // Jetty starts its scheduler thread with the first exchange: have it here, not in a test.
                    HttpClient warmUp = HttpClient.newHttpClient();
                    warmUp.send(HttpRequest.newBuilder(started).build(), HttpResponse.BodyHandlers.discarding());
                    return started;
                } catch (Exception e) {
                    throw new IllegalStateException("s3proxy did not start", e);
                }
            });
        }
        return endpoint;
    }
}
