package dev.ballast.test;

import java.net.URI;
import java.util.Objects;

/**
 * One fault a {@link FaultInjectingHttpClient} injected.
 *
 * @param call the 1-based number of the exchange among all the wrapper saw
 * @param dependency the request's origin, {@code scheme://host:port}
 * @param method the request method
 * @param uri the request URI
 * @param fault the fault injected
 */
public record InjectedHttpFault(long call, String dependency, String method, URI uri, HttpFault fault) {
    public InjectedHttpFault {
        Objects.requireNonNull(dependency, "dependency");
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(fault, "fault");
    }
}
