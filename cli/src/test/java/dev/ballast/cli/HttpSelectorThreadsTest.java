package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpClient;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The selector thread of a JDK HTTP client a command built is found and ended, so that the JVM's exit
 * does not wait for it in native code (JDK 17: 0.3 s at the end of every S3 command).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class HttpSelectorThreadsTest extends InProcessCli {

    @Test
    void theSelectorThreadOfTheClientBuiltIsFoundAndEndedByStop() {
        HttpSelectorThreads.Built<HttpClient> built = HttpSelectorThreads.startedBy(HttpClient::newHttpClient);

        assertThat(built.client()).isNotNull();
        Thread selector = assertThat(built.selectors().threads())
                .singleElement()
                .satisfies(
                        t -> assertThat(t.getName()).startsWith("HttpClient-").endsWith("-SelectorManager"))
                .actual();
        assertThat(selector.isAlive()).isTrue();

        built.selectors().stop();

        assertThat(selector.isAlive()).as("ended, not left in epoll_wait").isFalse();
        assertThat(built.selectors().threads()).isEmpty();
    }

    @Test
    void closingAnS3SessionEndsItsClientsSelectorThread() {
        CommonOptions o = new CommonOptions();
        o.endpoint = java.net.URI.create("http://127.0.0.1:9"); // nothing is sent: a reading session opens quietly
        o.bucket = "selector-test";
        o.timeout = java.time.Duration.ofSeconds(5);
        CliContext ctx = context(java.util.Map.of("AWS_ACCESS_KEY_ID", "k", "AWS_SECRET_ACCESS_KEY", "s"));
        HttpSelectorThreads.Built<StoreSession> opened =
                HttpSelectorThreads.startedBy(() -> StoreSession.openWithoutKey(o, ctx, StoreSession.Access.READ));
        assertThat(opened.selectors().threads()).as("the session's client").hasSize(1);

        opened.client().close();

        assertThat(opened.selectors().threads()).noneMatch(Thread::isAlive);
    }

    @Test
    void threadsThatRanBeforeTheBuildAreLeftAlone() {
        HttpSelectorThreads.Built<HttpClient> earlier = HttpSelectorThreads.startedBy(HttpClient::newHttpClient);
        Thread earlierSelector = earlier.selectors().threads().iterator().next();

        HttpSelectorThreads.Built<HttpClient> later = HttpSelectorThreads.startedBy(HttpClient::newHttpClient);
        later.selectors().stop();

        assertThat(later.selectors().threads()).isEmpty();
        assertThat(earlierSelector.isAlive()).as("another client's thread").isTrue();
        earlier.selectors().stop();
        assertThat(earlierSelector.isAlive()).isFalse();
    }
}
