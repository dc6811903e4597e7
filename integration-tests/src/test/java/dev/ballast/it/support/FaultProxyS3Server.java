package dev.ballast.it.support;

import com.adobe.testing.s3mock.S3MockApplication;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;

/**
 * The S3 server the fault-injection tests put behind a {@link FaultProxy}: S3Mock, started once
 * per test JVM on a free HTTP port with its store in a temporary directory. Tests use a unique
 * bucket each.
 */
public final class FaultProxyS3Server {

  /** The credentials S3Mock accepts (it does not check signatures). */
  public static final String ACCESS_KEY = "ballast";
  public static final String SECRET_KEY = "ballast-secret";

  private static URI uri;

  private FaultProxyS3Server() {}

  /** The server's base URI, {@code http://127.0.0.1:port}, starting it on first use. */
  public static synchronized URI uri() {
    if (uri == null) {
      Map<String, Object> properties = new HashMap<>(); // S3MockApplication.start mutates it
      properties.put(S3MockApplication.PROP_HTTP_PORT, S3MockApplication.RANDOM_PORT);
      properties.put(S3MockApplication.PROP_HTTPS_PORT, S3MockApplication.RANDOM_PORT);
      properties.put(S3MockApplication.PROP_SILENT, true);
      try {
        properties.put("com.adobe.testing.s3mock.store.root",
            Files.createTempDirectory("ballast-fault-s3").toString());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      S3MockApplication server = S3MockApplication.start(properties);
      Runtime.getRuntime().addShutdownHook(new Thread(server::stop, "s3mock-stop"));
      uri = URI.create("http://127.0.0.1:" + server.getHttpPort());
    }
    return uri;
  }
}
