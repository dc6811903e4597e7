package com.example.app;

import dev.ballast.backup.Backups;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.micrometer.HttpClientMetrics;
import dev.ballast.http.retry.RetryConfig;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.object.s3.S3Endpoint;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;

/** Uses the libraries the way the README does; compiling is the test. */
public final class App {
  private App() {}

  static StorageFacade.Builder storage(MeterRegistry meterRegistry) {
    HttpClientMetrics metrics = HttpClientMetrics.create();
    HttpClient http = ResilientHttpClient.newBuilder()
        .connectTimeout(Duration.ofSeconds(2))
        .retry(RetryConfig.builder().maxAttempts(4).build())
        .listener(metrics)
        .build();
    metrics.bindTo(meterRegistry);
    return StorageFacade.newBuilder()
        .s3(S3Endpoint.newBuilder()
            .endpoint(URI.create("http://localhost:9000"))
            .httpClient(http)
            .build())
        .bucket("app-data");
  }

  /** The backup library, as docs/backup-library.md opens an encrypted repository. */
  static Backups backups(StorageFacade facade, char[] password) {
    return Backups.open(facade.objects(), password);
  }
}
