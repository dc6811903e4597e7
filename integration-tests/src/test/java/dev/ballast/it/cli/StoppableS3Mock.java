package dev.ballast.it.cli;

import com.adobe.testing.s3mock.S3MockApplication;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.catalina.connector.Connector;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.Banner;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * An S3Mock 5.2 server in this JVM that a test can stop in the middle of a command and start again
 * on the same data ({@code dataDir/s3}), to show what the CLI does when its S3 endpoint goes away.
 * Both connectors bind to 127.0.0.1 on free ports; Spring's banner, INFO logs and shutdown hook are
 * off.
 */
final class StoppableS3Mock implements AutoCloseable {
  private static final String LOOPBACK = "127.0.0.1";

  private final ConfigurableApplicationContext context;
  private final int port;

  private StoppableS3Mock(ConfigurableApplicationContext context, int port) {
    this.context = context;
    this.port = port;
  }

  /** Starts S3Mock with its store under {@code dataDir/s3}, keeping the files when it stops. */
  static StoppableS3Mock start(Path dataDir) {
    Path root = dataDir.resolve("s3");
    try {
      Files.createDirectories(root);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Map<String, Object> props = new HashMap<>();
    props.put("server.port", 0);
    props.put("server.address", LOOPBACK);
    props.put("http.port", 0);
    props.put("com.adobe.testing.s3mock.store.root", root.toString());
    props.put("com.adobe.testing.s3mock.store.retainFilesOnExit", true);
    props.put("logging.level.root", "WARN");
    props.put("spring.main.register-shutdown-hook", false);
    props.put("spring.main.banner-mode", "off");
    props.put("spring.jmx.enabled", false);
    // The defaults S3Mock's own start sets (key store of its HTTPS connector).
    props.put("server.ssl.key-store", "classpath:s3mock.jks");
    props.put("server.ssl.key-store-password", "password");
    props.put("server.ssl.key-alias", "selfsigned");
    props.put("server.ssl.key-password", "password");
    ConfigurableApplicationContext ctx = new SpringApplicationBuilder(S3MockApplication.class)
        .properties(props)
        .bannerMode(Banner.Mode.OFF)
        .registerShutdownHook(false)
        .initializers(c -> c.getBeanFactory().addBeanPostProcessor(new LoopbackConnectors()))
        .run();
    @SuppressWarnings("deprecation")
    int port = ctx.getBean(S3MockApplication.class).getHttpPort();
    return new StoppableS3Mock(ctx, port);
  }

  URI endpoint() {
    return URI.create("http://" + LOOPBACK + ":" + port);
  }

  @Override
  public void close() {
    context.close();
  }

  /** S3Mock's extra HTTP connector has no address setting: bind it to loopback before it starts. */
  private static final class LoopbackConnectors implements BeanPostProcessor {
    @Override
    public Object postProcessBeforeInitialization(Object bean, String beanName) {
      if (bean instanceof Connector connector) {
        connector.setProperty("address", LOOPBACK);
      }
      return bean;
    }
  }
}
