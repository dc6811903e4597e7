package dev.ballast.http.classify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.http.BulkheadFullException;
import dev.ballast.http.CircuitOpenException;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

@Timeout(10)
class ClassificationTableTest {

    private static final HttpHeaders NO_HEADERS = headers(Map.of());
    private static final HttpHeaders RETRY_AFTER = headers(Map.of("Retry-After", List.of("7")));

    private final ClassificationTable table = ClassificationTable.ofDefaults();

    private static HttpHeaders headers(Map<String, List<String>> map) {
        return HttpHeaders.of(map, (name, value) -> true);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "200, SUCCESS",
        "201, SUCCESS",
        "204, SUCCESS",
        "299, SUCCESS",
        "301, SUCCESS",
        "304, SUCCESS",
        "308, SUCCESS",
        "400, PERMANENT",
        "401, PERMANENT",
        "403, PERMANENT",
        "404, PERMANENT",
        "409, PERMANENT",
        "422, PERMANENT",
        "405, PERMANENT",
        "410, PERMANENT",
        "412, PERMANENT",
        "451, PERMANENT",
        "408, TRANSIENT",
        "429, THROTTLED",
        "500, TRANSIENT",
        "502, TRANSIENT",
        "503, TRANSIENT",
        "501, PERMANENT",
        "505, PERMANENT",
        "504, AMBIGUOUS",
        "507, TRANSIENT",
        "511, TRANSIENT",
        "599, TRANSIENT",
        "100, PERMANENT",
        "199, PERMANENT",
        "600, PERMANENT",
        "999, PERMANENT",
    })
    void statusWithoutRetryAfter(int status, Outcome expected) {
        assertThat(table.classifyResponse(status, NO_HEADERS)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} with Retry-After -> {1}")
    @CsvSource({
        "503, TRANSIENT",
        "429, THROTTLED",
        "500, TRANSIENT",
        "502, TRANSIENT",
        "504, AMBIGUOUS",
        "200, SUCCESS",
        "404, PERMANENT"
    })
    void retryAfterChangesNoStatusOutcomeA503StaysABreakerFailure(int status, Outcome expected) {
        assertThat(table.classifyResponse(status, RETRY_AFTER)).isEqualTo(expected);
        assertThat(table.classifyResponse(503, RETRY_AFTER).isBreakerFailure()).isTrue();
    }

    @ParameterizedTest(name = "keyed request answered {0} -> {1}")
    @CsvSource({"409, THROTTLED", "422, PERMANENT", "200, SUCCESS", "429, THROTTLED", "503, TRANSIENT", "400, PERMANENT"
    })
    void idempotencyKeyProtocol409IsInProgressAndRetryable422IsAReusedKeyAndPermanent(int status, Outcome expected) {
        // draft-ietf-httpapi-idempotency-key-header: 409 = the same key is still being processed,
        // 422 = the key was reused with another payload
        assertThat(table.classifyKeyedResponse(status, NO_HEADERS)).isEqualTo(expected);
        assertThat(table.classifyResponse(409, NO_HEADERS)).isEqualTo(Outcome.PERMANENT);
    }

    @Test
    void aStatusOverrideOf409AlsoAppliesToKeyedRequests() {
        ClassificationTable custom =
                ClassificationTable.builder().status(409, Outcome.PERMANENT).build();

        assertThat(custom.classifyKeyedResponse(409, NO_HEADERS)).isEqualTo(Outcome.PERMANENT);
    }

    @Test
    void aCustomClassifierWithoutTheKeyedMethodClassifiesKeyedResponsesAsAnyOther() {
        ResponseClassifier everything404 = new ResponseClassifier() {
            @Override
            public Outcome classifyResponse(int statusCode, HttpHeaders headers) {
                return Outcome.PERMANENT;
            }

            @Override
            public Outcome classifyFailure(Throwable failure) {
                return Outcome.PERMANENT;
            }
        };

        assertThat(everything404.classifyKeyedResponse(409, NO_HEADERS)).isEqualTo(Outcome.PERMANENT);
    }

    /**
     * What {@code java.net.http} throws when the server did not process a request, as observed on
     * OpenJDK 17.0.15 and Temurin 25.0.3 against an h2c server refusing streams, and as read in the
     * JDK sources (17, 21, 25): the exception {@code sendAsync} fails with, and the copy {@code send}
     * rethrows around it.
     */
    static Stream<Arguments> notProcessedSignals() {
        return Stream.of(
                        "Received RST_STREAM: Stream not processed", // REFUSED_STREAM, JDK 17.0.15 (before JDK-8335181)
                        "request not processed by peer", // REFUSED_STREAM or GOAWAY, JDK 25 (after its own re-send)
                        "RST_STREAM received Stream not processed", // REFUSED_STREAM while the body is still sent, JDK
                        // 25
                        "too many concurrent streams" // SETTINGS_MAX_CONCURRENT_STREAMS reached, JDK 17 and 25
                        )
                .flatMap(message -> Stream.of(
                        Arguments.of(message, "sendAsync", new IOException(message)),
                        Arguments.of(message, "sendAsync joined", new CompletionException(new IOException(message))),
                        Arguments.of(message, "send", new IOException(message, new IOException(message)))));
    }

    @ParameterizedTest(name = "{0} ({1}) -> TRANSIENT")
    @MethodSource("notProcessedSignals")
    void everyNotProcessedSignalOfTheJdkIsSafeToRetryForEveryMethod(String message, String path, Throwable failure) {
        Outcome outcome = table.classifyFailure(failure);

        assertThat(outcome).isEqualTo(Outcome.TRANSIENT);
        assertThat(outcome.isRetryable(false)).isTrue();
    }

    @Test
    void anOldJdksGoAwayFailsProcessedStreamsTooAndStaysAmbiguous() {
        assertThat(table.classifyFailure(new IOException("/127.0.0.1:60422: GOAWAY received")))
                .isEqualTo(Outcome.AMBIGUOUS);
    }

    @Test
    void onlyThePlainJdkExceptionCarriesTheSignalNotASubclassOrAnotherMessage() {
        assertThat(table.classifyFailure(new SocketException("request not processed by peer")))
                .isEqualTo(Outcome.AMBIGUOUS);
        assertThat(table.classifyFailure(new IOException("Received RST_STREAM: Internal error")))
                .isEqualTo(Outcome.AMBIGUOUS);
        assertThat(table.classifyFailure(new IOException("RST_STREAM received")))
                .isEqualTo(Outcome.AMBIGUOUS);
    }

    @Test
    void theNotProcessedRowCanBeOverridden() {
        ClassificationTable custom =
                ClassificationTable.builder().notProcessed(Outcome.AMBIGUOUS).build();

        assertThat(custom.classifyFailure(new IOException("request not processed by peer")))
                .isEqualTo(Outcome.AMBIGUOUS);
        assertThat(custom.toBuilder().build().classifyFailure(new IOException("too many concurrent streams")))
                .isEqualTo(Outcome.AMBIGUOUS);
        assertThat(custom.toString()).contains("notProcessed=AMBIGUOUS");
    }

    static Stream<Arguments> failures() {
        return Stream.of(
                row("connection refused", new ConnectException("Connection refused"), Outcome.TRANSIENT),
                row(
                        "send() rethrow: IOException(ConnectException)",
                        new IOException("Connection refused", new ConnectException("Connection refused")),
                        Outcome.TRANSIENT),
                row(
                        "sendAsync: CompletionException(ConnectException)",
                        new CompletionException(new ConnectException("Connection refused")),
                        Outcome.TRANSIENT),
                row(
                        "ExecutionException(ConnectException)",
                        new ExecutionException(new ConnectException("refused")),
                        Outcome.TRANSIENT),
                row("no route to host", new NoRouteToHostException("No route to host"), Outcome.TRANSIENT),
                row("connect timeout", new HttpConnectTimeoutException("HTTP connect timed out"), Outcome.TRANSIENT),
                row(
                        "connect timeout caused by ConnectException (the JDK's shape)",
                        cause(
                                new HttpConnectTimeoutException("HTTP connect timed out"),
                                new ConnectException("HTTP connect timed out")),
                        Outcome.TRANSIENT),
                row("unknown host", new UnknownHostException("nowhere.invalid"), Outcome.TRANSIENT),
                row("unresolved address", new UnresolvedAddressException(), Outcome.TRANSIENT),
                row(
                        "ConnectException(UnresolvedAddressException)",
                        cause(new ConnectException(), new UnresolvedAddressException()),
                        Outcome.TRANSIENT),
                row("request timeout", new HttpTimeoutException("request timed out"), Outcome.AMBIGUOUS),
                row(
                        "CompletionException(request timeout)",
                        new CompletionException(new HttpTimeoutException("request timed out")),
                        Outcome.AMBIGUOUS),
                row("connection reset (SocketException)", new SocketException("Connection reset"), Outcome.AMBIGUOUS),
                row("connection reset (IOException)", new IOException("connection reset"), Outcome.AMBIGUOUS),
                row(
                        "IOException(connection reset SocketException)",
                        new IOException("Connection reset", new SocketException("Connection reset")),
                        Outcome.AMBIGUOUS),
                row("EOF after send", new EOFException("EOF reached while reading"), Outcome.AMBIGUOUS),
                row(
                        "UncheckedIOException(reset)",
                        new UncheckedIOException(new SocketException("Connection reset")),
                        Outcome.AMBIGUOUS),
                row("other IOException", new IOException("stream closed"), Outcome.AMBIGUOUS),
                // This process out of file descriptors, as java.net.http reported it under ulimit -n 128 with 32
                // transfers (a restore from Ceph RGW): not the dependency's failure, and not to be retried at once.
                row(
                        "sendAsync's connection without a descriptor (ExecutionException(InternalError(SocketException)))",
                        new java.util.concurrent.ExecutionException(new InternalError(
                                new SocketException("Too many open files").toString(),
                                new SocketException("Too many open files"))),
                        Outcome.PERMANENT),
                row(
                        "a client's selector without a descriptor (UncheckedIOException(IOException))",
                        new UncheckedIOException(new IOException("Too many open files")),
                        Outcome.PERMANENT),
                row(
                        "the system out of descriptors (ENFILE)",
                        new SocketException("Too many open files in system"),
                        Outcome.PERMANENT),
                row(
                        "a file the request body is read from, without a descriptor",
                        new IOException(
                                "wrapped",
                                new java.nio.file.FileSystemException("/tmp/body", null, "Too many open files")),
                        Outcome.PERMANENT),
                row(
                        "a message that only mentions descriptors",
                        new IOException("Too many open files were closed by the peer"),
                        Outcome.AMBIGUOUS),
                row("SSLException outside a handshake", new SSLException("Tag mismatch"), Outcome.AMBIGUOUS),
                row(
                        "handshake caused by CertificateException",
                        cause(new SSLHandshakeException("PKIX path building failed"), new CertificateException("bad")),
                        Outcome.PERMANENT),
                row(
                        "handshake rethrown around a handshake caused by an expired certificate",
                        cause(
                                new SSLHandshakeException("rethrown"),
                                cause(
                                        new SSLHandshakeException("inner"),
                                        new CertificateExpiredException("NotAfter: 2020"))),
                        Outcome.PERMANENT),
                row(
                        "handshake caused by CertPathValidatorException",
                        cause(new SSLHandshakeException("validation"), new CertPathValidatorException("revoked")),
                        Outcome.PERMANENT),
                row(
                        "handshake caused by CertificateException caused by CertPathBuilderException",
                        cause(
                                new SSLHandshakeException("PKIX"),
                                new CertificateException(
                                        "builder",
                                        new CertPathBuilderException("unable to find valid certification path"))),
                        Outcome.PERMANENT),
                row(
                        "handshake caused by a RuntimeException caused by CertPathBuilderException",
                        cause(
                                new SSLHandshakeException("PKIX"),
                                new IllegalStateException("wrapped", new CertPathBuilderException("no path"))),
                        Outcome.PERMANENT),
                row(
                        "CompletionException(IOException(handshake(certificate)))",
                        new CompletionException(new IOException(
                                "send", cause(new SSLHandshakeException("x"), new CertificateException("bad")))),
                        Outcome.PERMANENT),
                row(
                        "handshake terminated by the peer (EOF)",
                        cause(new SSLHandshakeException("Remote host terminated the handshake"), new EOFException()),
                        Outcome.TRANSIENT),
                row(
                        "handshake without a cause",
                        new SSLHandshakeException("Received fatal alert: handshake_failure"),
                        Outcome.TRANSIENT),
                row("certificate exception outside a handshake", new CertificateException("bad"), Outcome.PERMANENT),
                row("circuit open", new CircuitOpenException("d", Duration.ofSeconds(1)), Outcome.PERMANENT),
                row("bulkhead full", new BulkheadFullException("d", 1, Duration.ZERO), Outcome.PERMANENT),
                row(
                        "CompletionException(circuit open)",
                        new CompletionException(new CircuitOpenException("d", Duration.ZERO)),
                        Outcome.PERMANENT),
                row("IllegalStateException", new IllegalStateException("bug"), Outcome.PERMANENT),
                row("NullPointerException", new NullPointerException(), Outcome.PERMANENT),
                row("CancellationException", new CancellationException(), Outcome.PERMANENT),
                row("Error", new AssertionError("boom"), Outcome.PERMANENT),
                row("bare CompletionException", new CompletionException("no cause", null), Outcome.PERMANENT));
    }

    private static Arguments row(String name, Throwable failure, Outcome expected) {
        return Arguments.of(name, failure, expected);
    }

    private static <T extends Throwable> T cause(T failure, Throwable cause) {
        failure.initCause(cause);
        return failure;
    }

    @ParameterizedTest(name = "{0} -> {2}")
    @MethodSource("failures")
    void failure(String name, Throwable failure, Outcome expected) {
        assertThat(table.classifyFailure(failure)).isEqualTo(expected);
    }

    @Test
    void aCyclicCauseChainTerminates() {
        IOException a = new IOException("a");
        SocketException b = new SocketException("b");
        a.initCause(b);
        b.initCause(a);

        assertThat(table.classifyFailure(a)).isEqualTo(Outcome.AMBIGUOUS);
    }

    @Test
    void aVeryDeepChainIsClassifiedByItsOutermostLevelsOnly() {
        Throwable failure = new ConnectException("deepest");
        for (int i = 0; i < ClassificationTable.MAX_CAUSE_DEPTH + 5; i++) {
            failure = new IOException("level " + i, failure);
        }

        assertThat(table.classifyFailure(failure)).isEqualTo(Outcome.AMBIGUOUS);
    }

    @Test
    void statusOverrideReplacesOnlyThatCode() {
        ClassificationTable custom =
                ClassificationTable.builder().status(404, Outcome.TRANSIENT).build();

        assertThat(custom.classifyResponse(404, NO_HEADERS)).isEqualTo(Outcome.TRANSIENT);
        assertThat(custom.classifyResponse(400, NO_HEADERS)).isEqualTo(Outcome.PERMANENT);
        assertThat(custom.classifyResponse(410, NO_HEADERS)).isEqualTo(Outcome.PERMANENT);
        assertThat(ClassificationTable.ofDefaults().classifyResponse(404, NO_HEADERS))
                .isEqualTo(Outcome.PERMANENT);
    }

    @Test
    void statusOverrideOf503AppliesWithAndWithoutRetryAfter() {
        ClassificationTable custom =
                ClassificationTable.builder().status(503, Outcome.THROTTLED).build();

        assertThat(custom.classifyResponse(503, RETRY_AFTER)).isEqualTo(Outcome.THROTTLED);
        assertThat(custom.classifyResponse(503, NO_HEADERS)).isEqualTo(Outcome.THROTTLED);
    }

    @Test
    void statusOverrideCanMakeASuccessCodeAFailure() {
        ClassificationTable custom =
                ClassificationTable.builder().status(299, Outcome.TRANSIENT).build();

        assertThat(custom.classifyResponse(299, NO_HEADERS)).isEqualTo(Outcome.TRANSIENT);
        assertThat(custom.classifyResponse(200, NO_HEADERS)).isEqualTo(Outcome.SUCCESS);
    }

    @Test
    void overridingACatchAllKeepsMoreSpecificDefaults() {
        ClassificationTable custom = ClassificationTable.builder()
                .failure(IOException.class, Outcome.TRANSIENT)
                .build();

        assertThat(custom.classifyFailure(new IOException("closed"))).isEqualTo(Outcome.TRANSIENT);
        assertThat(custom.classifyFailure(new ConnectException())).isEqualTo(Outcome.TRANSIENT);
        assertThat(custom.classifyFailure(new HttpTimeoutException("t"))).isEqualTo(Outcome.AMBIGUOUS);
        assertThat(custom.classifyFailure(new SocketException("Connection reset")))
                .isEqualTo(Outcome.AMBIGUOUS);
        assertThat(custom.classifyFailure(new java.io.InterruptedIOException())).isEqualTo(Outcome.TRANSIENT);
    }

    @Test
    void mostSpecificTypeWins() {
        ClassificationTable custom = ClassificationTable.builder()
                .failure(SocketException.class, Outcome.PERMANENT)
                .failure(HttpTimeoutException.class, Outcome.TRANSIENT)
                .build();

        assertThat(custom.classifyFailure(new SocketException("Connection reset")))
                .isEqualTo(Outcome.PERMANENT);
        assertThat(custom.classifyFailure(new java.net.PortUnreachableException()))
                .isEqualTo(Outcome.PERMANENT);
        assertThat(custom.classifyFailure(new ConnectException())).isEqualTo(Outcome.TRANSIENT);
        assertThat(custom.classifyFailure(new HttpTimeoutException("read"))).isEqualTo(Outcome.TRANSIENT);
        assertThat(custom.classifyFailure(new HttpConnectTimeoutException("connect")))
                .isEqualTo(Outcome.TRANSIENT);
    }

    @Test
    void anOverrideOfTheOuterTypeBeatsItsCause() {
        ClassificationTable custom = ClassificationTable.builder()
                .failure(HttpConnectTimeoutException.class, Outcome.PERMANENT)
                .build();

        Throwable jdkShape = cause(new HttpConnectTimeoutException("connect timed out"), new ConnectException());

        assertThat(custom.classifyFailure(jdkShape)).isEqualTo(Outcome.PERMANENT);
    }

    @Test
    void customExceptionTypesAndTheirSubclassesCanBeClassified() {
        ClassificationTable custom = ClassificationTable.builder()
                .failure(QuotaException.class, Outcome.THROTTLED)
                .build();

        assertThat(custom.classifyFailure(new QuotaException())).isEqualTo(Outcome.THROTTLED);
        assertThat(custom.classifyFailure(new DailyQuotaException())).isEqualTo(Outcome.THROTTLED);
        assertThat(custom.classifyFailure(new CompletionException(new DailyQuotaException())))
                .isEqualTo(Outcome.THROTTLED);
        assertThat(custom.classifyFailure(new IOException("wrapped", new QuotaException())))
                .isEqualTo(Outcome.THROTTLED);
        assertThat(table.classifyFailure(new QuotaException())).isEqualTo(Outcome.PERMANENT);
    }

    @Test
    void overridingTheHandshakeReplacesTheCertificateRule() {
        Throwable certificateFailure = cause(new SSLHandshakeException("PKIX"), new CertificateException("bad"));
        ClassificationTable custom = ClassificationTable.builder()
                .failure(SSLHandshakeException.class, Outcome.TRANSIENT)
                .build();

        assertThat(custom.classifyFailure(certificateFailure)).isEqualTo(Outcome.TRANSIENT);
    }

    @Test
    void overridingTheCertificateTypeChangesHandshakesCausedByIt() {
        Throwable certificateFailure = cause(new SSLHandshakeException("PKIX"), new CertificateExpiredException("old"));
        ClassificationTable custom = ClassificationTable.builder()
                .failure(CertificateException.class, Outcome.TRANSIENT)
                .build();

        assertThat(custom.classifyFailure(certificateFailure)).isEqualTo(Outcome.TRANSIENT);
    }

    @Test
    void toBuilderKeepsOverridesAndBuiltTablesAreImmutable() {
        ClassificationTable.Builder builder = ClassificationTable.builder()
                .status(404, Outcome.TRANSIENT)
                .failure(SSLHandshakeException.class, Outcome.PERMANENT);
        ClassificationTable first = builder.build();
        builder.status(400, Outcome.TRANSIENT);

        assertThat(first.classifyResponse(400, NO_HEADERS)).isEqualTo(Outcome.PERMANENT);

        ClassificationTable second =
                first.toBuilder().status(409, Outcome.AMBIGUOUS).build();

        assertThat(second.classifyResponse(404, NO_HEADERS)).isEqualTo(Outcome.TRANSIENT);
        assertThat(second.classifyResponse(409, NO_HEADERS)).isEqualTo(Outcome.AMBIGUOUS);
        assertThat(second.classifyFailure(new SSLHandshakeException("x"))).isEqualTo(Outcome.PERMANENT);
        assertThat(first.classifyResponse(409, NO_HEADERS)).isEqualTo(Outcome.PERMANENT);
        assertThat(second.toString()).contains("404=TRANSIENT", "409=AMBIGUOUS", "SSLHandshakeException=PERMANENT");
    }

    @Test
    void theSpiDefaultIsTheDefaultTable() {
        assertThat(ResponseClassifier.ofDefaults()).isSameAs(ClassificationTable.ofDefaults());
    }

    @Test
    void badArgumentsAreRejected() {
        ClassificationTable.Builder builder = ClassificationTable.builder();
        assertThatThrownBy(() -> builder.status(99, Outcome.SUCCESS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("statusCode must be between 100 and 999 but was 99");
        assertThatThrownBy(() -> builder.status(1000, Outcome.SUCCESS)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.status(200, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("outcome");
        assertThatThrownBy(() -> builder.failure(null, Outcome.SUCCESS))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("type");
        assertThatThrownBy(() -> table.classifyResponse(200, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("headers");
        assertThatThrownBy(() -> table.classifyFailure(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("failure");
    }

    static class QuotaException extends RuntimeException {
        private static final long serialVersionUID = 1L;
    }

    static final class DailyQuotaException extends QuotaException {
        private static final long serialVersionUID = 1L;
    }
}
