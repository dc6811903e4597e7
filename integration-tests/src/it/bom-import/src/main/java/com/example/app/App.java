package com.example.app;

import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.retry.RetryConfig;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.object.s3.S3Endpoint;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;

/** Uses both libraries the way the README does; compiling is the test. */
public final class App {
  private App() {}

  static StorageFacade.Builder storage() {
    HttpClient http = ResilientHttpClient.newBuilder()
        .connectTimeout(Duration.ofSeconds(2))
        .retry(RetryConfig.builder().maxAttempts(4).build())
        .build();
    return StorageFacade.newBuilder()
        .s3(S3Endpoint.newBuilder()
            .endpoint(URI.create("http://localhost:9000"))
            .httpClient(http)
            .build())
        .bucket("app-data");
  }
}
