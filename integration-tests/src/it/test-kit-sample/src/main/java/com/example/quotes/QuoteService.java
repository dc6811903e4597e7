package com.example.quotes;

import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.StaleReadException;
import dev.ballast.storage.object.Freshness;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ReadOptions;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/**
 * A small service: a quote is a product's description, read from the catalogue in object storage,
 * and its price, asked of the pricing service over HTTP. When either source cannot answer fully,
 * the quote says so ({@link Quote#notes()}) instead of passing off old or missing data as current;
 * a damaged catalogue entry fails the quote.
 */
public final class QuoteService {

    /**
     * @param sku the product
     * @param description the catalogue's description
     * @param priceCents the price, or -1 when pricing could not answer
     * @param notes empty for a complete, current quote; otherwise what is degraded and why
     */
    public record Quote(String sku, String description, long priceCents, String notes) {
        public boolean degraded() {
            return !notes.isEmpty();
        }
    }

    private final HttpClient http;
    private final URI pricing;
    private final ObjectStore catalogue;
    private final Executor storageThreads;

    public QuoteService(HttpClient http, URI pricing, ObjectStore catalogue, Executor storageThreads) {
        this.http = http;
        this.pricing = pricing;
        this.catalogue = catalogue;
        this.storageThreads = storageThreads;
    }

    public CompletableFuture<Quote> quote(String sku) {
        CompletableFuture<Description> description = CompletableFuture.supplyAsync(() -> describe(sku), storageThreads);
        CompletableFuture<Price> price = http.sendAsync(
                        HttpRequest.newBuilder(pricing.resolve("/price/" + sku)).build(),
                        HttpResponse.BodyHandlers.ofString())
                .handle((response, failure) -> price(response, failure));
        return description.thenCombine(price, (d, p) -> new Quote(sku, d.text(), p.cents(), (d.note() + " " + p.note()).strip()));
    }

    private record Description(String text, String note) {}

    private record Price(long cents, String note) {}

    private Description describe(String sku) {
        String key = "catalogue/" + sku;
        try (ObjectRead read = catalogue.get(key)) {
            return described(read);
        } catch (StaleReadException stale) {
            // A replica behind the latest write: take what it has, and say so.
            try (ObjectRead read = catalogue.get(key, ReadOptions.latest().withAcceptStale(true))) {
                return described(read);
            }
        } catch (IntegrityException damaged) {
            throw new CompletionException(new IOException("the catalogue entry of " + sku + " is damaged", damaged));
        }
    }

    private static Description described(ObjectRead read) {
        String text = new String(read.readAllBytes(), StandardCharsets.UTF_8);
        if (read.degraded()) {
            return new Description(text, "description from a copy cached " + minutes(read.age()) + " min ago ("
                    + read.degradedReason().orElse("") + ").");
        }
        if (read.freshness() == Freshness.STALE) {
            return new Description(text, "description may be out of date.");
        }
        return new Description(text, "");
    }

    private static Price price(HttpResponse<String> response, Throwable failure) {
        if (failure != null) {
            return new Price(-1, "no price: pricing failed (" + failure.getClass().getSimpleName() + ").");
        }
        if (response.statusCode() != 200) {
            return new Price(-1, "no price: pricing answered HTTP " + response.statusCode() + ".");
        }
        return new Price(Long.parseLong(response.body().strip()), "");
    }

    private static long minutes(Duration d) {
        return d.toMinutes();
    }
}
