package dev.ballast.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.net.Authenticator;
import java.net.CookieManager;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

@Timeout(30)
@ExtendWith(LeakCheck.class)
class ResilientHttpClientTest {

    private final ExecutorService executor = Executors.newSingleThreadExecutor();

    @AfterEach
    void stopExecutor() {
        executor.shutdownNow();
    }

    @Test
    void accessorsWhenWrappingADelegateAnswerAsTheDelegateDoes() {
        // given
        CookieManager cookies = new CookieManager();
        ProxySelector proxy = ProxySelector.of(new InetSocketAddress("proxy.invalid", 3128));
        Authenticator authenticator = new Authenticator() {};
        HttpClient delegate = HttpClient.newBuilder()
                .cookieHandler(cookies)
                .connectTimeout(Duration.ofSeconds(3))
                .followRedirects(HttpClient.Redirect.NORMAL)
                .proxy(proxy)
                .authenticator(authenticator)
                .version(HttpClient.Version.HTTP_1_1)
                .executor(executor)
                .build();

        // when
        ResilientHttpClient client =
                ResilientHttpClient.newBuilder().delegate(delegate).build();

        // then
        assertThat(client.cookieHandler()).isEqualTo(delegate.cookieHandler()).contains(cookies);
        assertThat(client.connectTimeout()).isEqualTo(delegate.connectTimeout()).contains(Duration.ofSeconds(3));
        assertThat(client.followRedirects()).isEqualTo(HttpClient.Redirect.NORMAL);
        assertThat(client.proxy()).isEqualTo(delegate.proxy()).contains(proxy);
        assertThat(client.authenticator()).isEqualTo(delegate.authenticator()).contains(authenticator);
        assertThat(client.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
        assertThat(client.executor()).isEqualTo(delegate.executor()).contains((Executor) executor);
        assertThat(client.sslContext()).isSameAs(delegate.sslContext());
        assertThat(client.sslParameters().getProtocols())
                .isEqualTo(delegate.sslParameters().getProtocols());
        assertThat(client.newWebSocketBuilder()).isNotNull();
    }

    @Test
    void jdkBuilderOptionsConfigureTheCreatedDelegate() {
        // when
        ResilientHttpClient client = ResilientHttpClient.newBuilder()
                .connectTimeout(Duration.ofMillis(1500))
                .followRedirects(HttpClient.Redirect.ALWAYS)
                .version(HttpClient.Version.HTTP_1_1)
                .build();

        // then
        assertThat(client.connectTimeout()).contains(Duration.ofMillis(1500));
        assertThat(client.followRedirects()).isEqualTo(HttpClient.Redirect.ALWAYS);
        assertThat(client.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
    }

    @Test
    void buildWhenDelegateAndJdkOptionsAreBothSetThrowsNamingTheOptions() {
        ResilientHttpClient.Builder builder = ResilientHttpClient.newBuilder()
                .delegate(HttpClient.newHttpClient())
                .connectTimeout(Duration.ofSeconds(1));

        assertThatThrownBy(builder::build)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("connectTimeout");
    }

    @Test
    void builderRejectsNonPositiveTimeoutsAndNulls() {
        ResilientHttpClient.Builder builder = ResilientHttpClient.newBuilder();

        assertThatThrownBy(() -> builder.totalTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("totalTimeout must be positive but was PT0S");
        assertThatThrownBy(() -> builder.attemptTimeout(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("attemptTimeout must be positive but was PT-1S");
        assertThatThrownBy(() -> builder.listener(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("listener");
        assertThatThrownBy(() -> builder.dependency("x", null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("config");
    }

    @Test
    void shutdownRejectsNewCallsAndTerminatesOnceIdle() throws Exception {
        // given
        ResilientHttpClient client = ResilientHttpClient.newBuilder().build();
        HttpRequest request =
                HttpRequest.newBuilder(URI.create("http://localhost:9/")).build();

        // when
        client.shutdown();

        // then
        assertThatThrownBy(() -> client.send(request, BodyHandlers.discarding()))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("shut down");
        assertThatThrownBy(() ->
                        client.sendAsync(request, BodyHandlers.discarding()).get())
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(IOException.class);
        assertThat(client.awaitTermination(Duration.ofSeconds(10))).isTrue();
        assertThat(client.isTerminated()).isTrue();
        client.close(); // idempotent
    }

    @Test
    void lifecycleMethodsOverrideHttpClientsOnJdk21AndLater() throws Exception {
        assumeThat(Runtime.version().feature())
                .as("HttpClient has lifecycle methods from JDK 21")
                .isGreaterThanOrEqualTo(21);
        // given
        HttpClient client = ResilientHttpClient.newBuilder().build();

        // when called through HttpClient's own method, as code written for JDK 21 does
        HttpClient.class.getMethod("shutdown").invoke(client);

        // then our override ran: the client is shut down and terminates
        assertThat((Boolean) HttpClient.class
                        .getMethod("awaitTermination", Duration.class)
                        .invoke(client, Duration.ofSeconds(10)))
                .isTrue();
        assertThat((Boolean) HttpClient.class.getMethod("isTerminated").invoke(client))
                .isTrue();
        assertThatThrownBy(() -> client.send(
                        HttpRequest.newBuilder(URI.create("http://localhost:9/"))
                                .build(),
                        BodyHandlers.discarding()))
                .hasMessageContaining("ResilientHttpClient is shut down");
    }

    @Test
    void closeOnAFreshClientReturnsAndTerminates() {
        ResilientHttpClient client = ResilientHttpClient.newBuilder().build();

        client.close();

        assertThat(client.isTerminated()).isTrue();
    }

    @Test
    void sendAsyncWhenTheCallersSchedulerWasShutDownFailsAtTheFirstBackoffInsteadOfHanging() throws Exception {
        // given a scheduler that refuses work, and a dependency that answers 503 (a retry needs a backoff)
        java.util.concurrent.ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        scheduler.shutdown();
        ScriptedHttpClient delegate = new ScriptedHttpClient().then(ScriptedHttpClient.status(503));
        ResilientHttpClient client = ResilientHttpClient.newBuilder()
                .delegate(delegate)
                .scheduler(scheduler)
                .build();
        HttpRequest request =
                HttpRequest.newBuilder(URI.create("http://api.test/")).build();

        // when / then the first attempt needs no scheduler; the backoff fails the call
        assertThatThrownBy(() ->
                        client.sendAsync(request, BodyHandlers.discarding()).get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasRootCauseInstanceOf(java.util.concurrent.RejectedExecutionException.class);
        assertThat(delegate.requests).hasSize(1);
        client.shutdown();
        assertThat(client.awaitTermination(Duration.ofSeconds(10))).isTrue();
    }
}
