package dev.ballast.storage.object.s3.transport;

import java.net.URI;
import java.net.http.HttpRequest;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import software.amazon.awssdk.http.SdkHttpRequest;

/**
 * Workaround: {@code java.net.http} refuses to let callers set {@code Connection},
 * {@code Content-Length}, {@code Expect}, {@code Host} and {@code Upgrade}
 * ({@link HttpRequest.Builder#header(String, String)} throws for them) and derives them itself, while
 * the SDK puts them on the request it signed. SigV4 (AWS Signature Version 4, "Create a canonical
 * request") signs {@code host} and, when present, {@code content-length}, so what the JDK derives
 * must equal what was signed:
 * <ul>
 *   <li>{@code Host}: the JDK sends {@code host[:port]} from the URI, the port omitted when it is the
 *       scheme's default (RFC 9110 section 7.2), the rule the SDK's signer uses too; a signed
 *       {@code Host} that differs is refused before anything is sent, instead of a request the server
 *       would answer {@code SignatureDoesNotMatch} with no hint why.</li>
 *   <li>{@code Content-Length} and {@code Transfer-Encoding}: expressed through the body publisher
 *       by {@link RequestBodies}; {@code Transfer-Encoding} is dropped so a chunked body does not
 *       carry it twice. {@code Expect} is dropped: no request asks for {@code 100 Continue} (why:
 *       {@link RequestBodies}).</li>
 *   <li>{@code Connection} and {@code Upgrade} are hop-by-hop (RFC 9110 section 7.6.1), not signed,
 *       and left to the JDK.</li>
 * </ul>
 * Stateless.
 */
final class RestrictedHeaders {
    private static final Set<String> SET_BY_JDK =
            caseInsensitive("connection", "content-length", "expect", "host", "upgrade", "transfer-encoding");

    private RestrictedHeaders() {}

    /**
     * Copies every header of {@code request} that the JDK lets callers set, all values in order.
     *
     * @throws IllegalArgumentException if the signed {@code Host} differs from the one the JDK sends,
     *     or a header name or value is one {@code java.net.http} refuses
     */
    static void copy(SdkHttpRequest request, HttpRequest.Builder target) {
        request.firstMatchingHeader("Host").ifPresent(signed -> checkHost(request.getUri(), signed));
        request.forEachHeader((name, values) -> {
            if (!SET_BY_JDK.contains(name)) {
                for (String value : values) {
                    target.header(name, value);
                }
            }
        });
    }

    private static void checkHost(URI uri, String signedHost) {
        String sent = jdkHost(uri);
        if (!sent.equalsIgnoreCase(signedHost.trim())) {
            throw new IllegalArgumentException("The request's Host header '" + signedHost + "' differs from '" + sent
                    + "', which java.net.http derives from " + uri + " and sends; the signature would not match");
        }
    }

    /** The JDK's rule for the Host header (and the HTTP/2 {@code :authority}): port only when not default. */
    static String jdkHost(URI uri) {
        String host = uri.getHost();
        int port = uri.getPort();
        boolean https = "https".equalsIgnoreCase(uri.getScheme());
        boolean defaultPort = port == -1 || port == (https ? 443 : 80);
        return defaultPort ? host : host + ":" + port;
    }

    private static Set<String> caseInsensitive(String... names) {
        Set<String> set = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        set.addAll(List.of(names));
        return set;
    }
}
