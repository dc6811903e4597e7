/**
 * Ballast's resilient HTTP client: {@link dev.ballast.http.ResilientHttpClient}, a drop-in
 * {@link java.net.http.HttpClient}. Every package is exported except
 * {@code dev.ballast.http.internal}, the call pipeline and the breaker, bulkhead, concurrency limit and retry budget
 * engines, which may change in any release.
 */
module dev.ballast.http {
    requires transitive java.net.http;
    requires org.slf4j;
    requires static org.jspecify;

    exports dev.ballast.http;
    exports dev.ballast.http.breaker;
    exports dev.ballast.http.budget;
    exports dev.ballast.http.chaos;
    exports dev.ballast.http.bulkhead;
    exports dev.ballast.http.classify;
    exports dev.ballast.http.hedging;
    exports dev.ballast.http.idempotency;
    exports dev.ballast.http.limit;
    exports dev.ballast.http.retry;
}
