package com.example.quotes;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.quotes.QuoteService.Quote;
import com.sun.net.httpserver.HttpServer;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.cache.LastKnownGoodConfig;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.test.FakeObjectStore;
import dev.ballast.test.FakeTime;
import dev.ballast.test.FakeTimeScheduler;
import dev.ballast.test.FaultInjectingHttpClient;
import dev.ballast.test.FaultInjectingObjectStore;
import dev.ballast.test.HttpFault;
import dev.ballast.test.StoreFault;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The quote service against a pricing dependency and a catalogue bucket that fail the ways real ones
 * do, on fake time: no test sleeps, and every wait the client makes is one the test can see.
 */
class QuoteServiceTest {
    private static final Duration WITHIN = Duration.ofSeconds(30);

    private final FakeTime time = new FakeTime();
    private final FakeTimeScheduler scheduler = new FakeTimeScheduler(time);
    private final AtomicInteger priced = new AtomicInteger();
    private final ExecutorService storageThreads = Executors.newCachedThreadPool();
    private HttpServer pricing;
    private FaultInjectingHttpClient network;
    private ResilientHttpClient http;
    private FaultInjectingObjectStore bucket;
    private StorageFacade storage;
    private QuoteService service;

    @BeforeEach
    void start() throws Exception {
        pricing = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        pricing.createContext("/price/", exchange -> {
            priced.incrementAndGet();
            byte[] body = "1250".getBytes(UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        pricing.start();

        network = FaultInjectingHttpClient.newBuilder(HttpClient.newHttpClient()).build();
        http = ResilientHttpClient.newBuilder()
                .delegate(network)
                .clock(time)
                .ticker(time)
                .scheduler(scheduler)
                .build();
        bucket = FaultInjectingObjectStore.newBuilder(new FakeObjectStore(FakeObjectStore.CAPABILITIES, time))
                .passTimeWith(time::advance)
                .build();
        storage = StorageFacade.newBuilder()
                .objectStore(bucket)
                .clock(time)
                .lastKnownGood(LastKnownGoodConfig.ofDefaults())
                .build();
        URI pricingUri = URI.create("http://127.0.0.1:" + pricing.getAddress().getPort());
        service = new QuoteService(http, pricingUri, storage.objects(), storageThreads);

        storage.objects().put("catalogue/sku-1", ObjectContent.ofBytes("Brass lamp".getBytes(UTF_8)));
    }

    @AfterEach
    void stop() {
        http.shutdownNow();
        storage.close();
        scheduler.shutdownNow();
        storageThreads.shutdownNow();
        pricing.stop(0);
    }

    private Quote finish(CompletableFuture<Quote> quote) throws Exception {
        scheduler.advanceUntilDone(quote, WITHIN);
        return quote.get(WITHIN.toSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void connectionResetsOfTheGetAreRetriedAndTheQuoteIsWhole() throws Exception {
        network.inject(HttpFault.reset()).times(2);

        Quote quote = finish(service.quote("sku-1"));

        assertEquals(new Quote("sku-1", "Brass lamp", 1250, ""), quote);
        assertEquals(2, network.injected().size());
        assertEquals(1, priced.get());
    }

    @Test
    void a503IsRetriedOnlyAfterTheRetryAfterItCarries() throws Exception {
        network.inject(HttpFault.status(503, Duration.ofSeconds(4))).times(1);

        CompletableFuture<Quote> quote = service.quote("sku-1");
        while (!scheduler.pendingDelays().contains(Duration.ofSeconds(4))) {
            Thread.onSpinWait();
        }
        assertFalse(quote.isDone());
        assertEquals(0, priced.get());

        scheduler.advance(Duration.ofSeconds(4));
        assertEquals(1250, quote.get(WITHIN.toSeconds(), TimeUnit.SECONDS).priceCents());
        assertEquals(1, priced.get());
    }

    @Test
    void pricingThatStaysDownGivesAQuoteMarkedWithoutAPrice() throws Exception {
        network.inject(HttpFault.status(503, Duration.ofSeconds(1)));

        Quote quote = finish(service.quote("sku-1"));

        assertEquals(-1, quote.priceCents());
        assertTrue(quote.degraded());
        assertTrue(quote.notes().contains("no price: pricing answered HTTP 503"), quote.notes());
        assertEquals("Brass lamp", quote.description());
        assertEquals(0, priced.get());
    }

    @Test
    void aBucketThatServesAStaleVersionThenHangsThenCorruptsABody() throws Exception {
        storage.objects().get("catalogue/sku-1").readAllBytes(); // cached as last known good
        storage.objects().put("catalogue/sku-1", ObjectContent.ofBytes("Brass lamp, 40 cm".getBytes(UTF_8)));
        storage.objects().get("catalogue/sku-1").readAllBytes();
        String key = "catalogue/sku-1";
        bucket.inject(StoreFault.staleVersion()).forKey(key).times(2);
        bucket.inject(StoreFault.hang()).forKey(key).times(1);
        bucket.inject(StoreFault.corruptedBody(3)).forKey(key).times(1);

        // 1. A replica behind the latest write: the old description, marked.
        Quote stale = finish(service.quote("sku-1"));
        assertEquals("Brass lamp", stale.description());
        assertTrue(stale.notes().contains("may be out of date"), stale.notes());

        // 2. The bucket hangs until the deadline passes: the cached copy, marked with its age.
        time.advance(Duration.ofMinutes(5));
        CompletableFuture<Quote> hung = service.quote("sku-1");
        assertTrue(bucket.awaitHanging(1, WITHIN));
        assertFalse(hung.isDone());
        bucket.timeOutHangs();
        Quote cached = finish(hung);
        assertEquals("Brass lamp, 40 cm", cached.description());
        assertTrue(cached.notes().contains("cached 5 min ago"), cached.notes());
        assertEquals(1250, cached.priceCents());

        // 3. A body damaged on the way: the quote fails; no damaged text is ever shown.
        CompletableFuture<Quote> corrupt = service.quote("sku-1");
        ExecutionException failure = assertThrows(ExecutionException.class, () -> finish(corrupt));
        assertTrue(failure.getCause().getMessage().contains("damaged"), failure.getCause().getMessage());
        assertInstanceOf(IntegrityException.class, failure.getCause().getCause());

        // The faults are spent: the bucket answers as before, and every fault is on record.
        assertEquals(new Quote("sku-1", "Brass lamp, 40 cm", 1250, ""), finish(service.quote("sku-1")));
        assertEquals(4, bucket.injected().size());
        assertEquals(1, storage.stats().degradedReads());
    }
}
