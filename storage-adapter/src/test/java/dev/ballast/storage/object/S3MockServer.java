package dev.ballast.storage.object;

import com.adobe.testing.s3mock.S3MockApplication;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * S3Mock 5.2 (Spring Boot) started once per test JVM, in-process, on a random port, silent, with
 * its files in a temporary directory deleted on exit. {@code S3MockApplication.start(Map)} removes
 * keys from the map it is given, so the map must be mutable. Thread-safe.
 */
public final class S3MockServer {
  private static URI endpoint;

  private S3MockServer() {}

  /** The endpoint, starting the server on first use (about 5 s). */
  @SuppressWarnings("deprecation") // getHttpPort(): S3Mock prefers a separate JVM; one JVM is faster here
  public static synchronized URI endpoint() {
    if (endpoint == null) {
      quietStartupLogging();
      Path root;
      try {
        root = Files.createTempDirectory("s3mock-");
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create S3Mock's store directory", e);
      }
      Map<String, Object> properties = new HashMap<>(Map.of(
          S3MockApplication.PROP_HTTP_PORT, S3MockApplication.RANDOM_PORT,
          S3MockApplication.PROP_HTTPS_PORT, S3MockApplication.RANDOM_PORT,
          S3MockApplication.PROP_SILENT, true,
          "com.adobe.testing.s3mock.store.root", root.toString(),
          "com.adobe.testing.s3mock.store.retain-files-on-exit", false));
      S3MockApplication app = S3MockApplication.start(properties);
      endpoint = URI.create("http://127.0.0.1:" + app.getHttpPort());
    }
    return endpoint;
  }

  /**
   * "silent" sets Spring's root level to WARN, but tests log through slf4j-simple, which reads
   * per-logger levels from system properties when each logger is created.
   */
  private static void quietStartupLogging() {
    for (String logger : List.of("org.springframework", "com.adobe.testing.s3mock", "org.apache.catalina",
        "org.apache.coyote", "org.apache.tomcat")) {
      System.setProperty("org.slf4j.simpleLogger.log." + logger, "warn");
    }
  }
}
