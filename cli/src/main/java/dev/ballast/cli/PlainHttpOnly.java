package dev.ballast.cli;

import java.security.SecureRandom;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLContextSpi;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocketFactory;
import javax.net.ssl.SSLSessionContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;

/**
 * The TLS settings of an HTTP client that talks to an {@code http://} endpoint only: a context that
 * makes no TLS connection at all. A JDK {@code HttpClient} built without a context takes
 * {@link SSLContext#getDefault()} and its default parameters in its constructor, which reads and parses
 * the JDK's trusted certificates and sets up the JSSE provider: about 0.15 s of the main thread of every
 * command on an S3 endpoint, before its first request, spent on connections it never makes (a client
 * with this context builds in about 45 ms; the profile of a restore from Ceph RGW is in docs/measured.md).
 *
 * <p>Safe by construction: every TLS operation of this context fails ({@link UnsupportedOperationException}
 * from the engine factories, which the JDK client reports as an {@code IOException} naming it), so a client
 * holding it can never make a TLS connection, let alone one that trusts anything. Only for a client whose
 * every request goes to one {@code http://} endpoint (the JDK client follows no redirect by default, and
 * the S3 client asks for none). Immutable and thread-safe.
 */
final class PlainHttpOnly {
    private PlainHttpOnly() {}

    private static final String NO_TLS =
            "this HTTP client was built for an http:// endpoint and makes no TLS connection";

    /** A context whose every TLS operation fails; see the class comment. */
    static SSLContext context() {
        return new SSLContext(new NoTls(), null, "none") {};
    }

    /** Parameters for {@link #context()}: the JDK's defaults, never used for a handshake. */
    static SSLParameters parameters() {
        return new SSLParameters();
    }

    /** True when {@code scheme} (of an endpoint URI) is plain HTTP, in any case (RFC 3986, section 3.1). */
    static boolean isPlainHttp(String scheme) {
        return "http".equalsIgnoreCase(scheme);
    }

    private static final class NoTls extends SSLContextSpi {
        @Override
        protected void engineInit(KeyManager[] km, TrustManager[] tm, SecureRandom sr) {
            // nothing to set up: this context makes no connection
        }

        @Override
        protected SSLSocketFactory engineGetSocketFactory() {
            throw new UnsupportedOperationException(NO_TLS);
        }

        @Override
        protected SSLServerSocketFactory engineGetServerSocketFactory() {
            throw new UnsupportedOperationException(NO_TLS);
        }

        @Override
        protected SSLEngine engineCreateSSLEngine() {
            throw new UnsupportedOperationException(NO_TLS);
        }

        @Override
        protected SSLEngine engineCreateSSLEngine(String host, int port) {
            throw new UnsupportedOperationException(NO_TLS);
        }

        @Override
        protected SSLSessionContext engineGetServerSessionContext() {
            throw new UnsupportedOperationException(NO_TLS);
        }

        @Override
        protected SSLSessionContext engineGetClientSessionContext() {
            throw new UnsupportedOperationException(NO_TLS);
        }

        @Override
        protected SSLParameters engineGetDefaultSSLParameters() {
            return new SSLParameters();
        }

        @Override
        protected SSLParameters engineGetSupportedSSLParameters() {
            return new SSLParameters();
        }
    }
}
