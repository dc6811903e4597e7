package dev.ballast.cli;

import com.adobe.testing.s3mock.S3MockApplication;
import java.io.IOException;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import org.apache.catalina.connector.Connector;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.Banner;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The embedded S3 server: Adobe S3Mock 5.2 in this JVM, chosen by measurement (docs/cli.md): it
 * keeps versioning and every version across restarts with its file store under
 * {@code <data-dir>/s3}, and honours conditional writes and SHA-256 additional checksums, so the
 * capability probe finds the guarantees the CLI would otherwise have to work around.
 *
 * <p>Both of its connectors (HTTP and HTTPS) bind to 127.0.0.1 on free ports; the CLI talks HTTP.
 * Spring's banner, INFO logs and its JVM shutdown hook are off: the command stops the server itself
 * after writing what it must (a Ctrl-C must not take the server away before the manifest is
 * written). A lock file keeps two commands from using one data directory at once.
 */
public final class S3MockServer implements EmbeddedS3 {
  private static final String LOOPBACK = "127.0.0.1";

  private final ConfigurableApplicationContext context;
  private final int port;
  private final Path dataDir;
  private final FileChannel lockChannel;
  private final FileLock lock;

  private S3MockServer(ConfigurableApplicationContext context, int port, Path dataDir, FileChannel lockChannel,
      FileLock lock) {
    this.context = context;
    this.port = port;
    this.dataDir = dataDir;
    this.lockChannel = lockChannel;
    this.lock = lock;
  }

  /**
   * Starts S3Mock with its store under {@code dataDir/s3}.
   *
   * @throws RuntimeException (a {@code CliFailure}) if the data directory is in use or S3Mock fails to start
   */
  public static S3MockServer start(Path dataDir) {
    FileChannel channel = null;
    FileLock lock;
    try {
      Path root = dataDir.resolve("s3");
      Files.createDirectories(root);
      channel = FileChannel.open(dataDir.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      lock = channel.tryLock();
      if (lock == null) {
        channel.close();
        throw new CliFailure(ExitCodes.USAGE, "The data directory '" + dataDir + "' is in use by another ballast "
            + "command; wait for it to finish or pass a different --data-dir.");
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
      ConfigurableApplicationContext ctx = new SpringApplicationBuilder(S3MockApplication.class)
          .properties(defaultsOf(props))
          .bannerMode(Banner.Mode.OFF)
          .registerShutdownHook(false)
          .initializers(c -> c.getBeanFactory().addBeanPostProcessor(new LoopbackConnectors()))
          .run();
      @SuppressWarnings("deprecation")
      int port = ctx.getBean(S3MockApplication.class).getHttpPort();
      return new S3MockServer(ctx, port, dataDir, channel, lock);
    } catch (CliFailure e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      closeQuietly(channel);
      throw new CliFailure(ExitCodes.UNAVAILABLE, "The embedded S3 server could not start with data in '" + dataDir
          + "' (" + e.getMessage() + "); check that the directory is writable, or pass --endpoint URL to use "
          + "another S3 server.", e);
    }
  }

  /** The same defaults S3Mock's own {@code start} sets (key store for its HTTPS connector). */
  private static Map<String, Object> defaultsOf(Map<String, Object> props) {
    Map<String, Object> all = new HashMap<>();
    all.put("server.ssl.key-store", "classpath:s3mock.jks");
    all.put("server.ssl.key-store-password", "password");
    all.put("server.ssl.key-alias", "selfsigned");
    all.put("server.ssl.key-password", "password");
    all.putAll(props);
    return all;
  }

  @Override
  public URI endpoint() {
    return URI.create("http://" + LOOPBACK + ":" + port);
  }

  @Override
  public String describe() {
    return "the embedded S3 server (S3Mock, data in " + dataDir + ")";
  }

  @Override
  public void close() {
    try {
      context.close();
    } finally {
      try {
        lock.release();
      } catch (IOException ignored) {
        // the lock goes with the channel
      }
      closeQuietly(lockChannel);
    }
  }

  private static void closeQuietly(FileChannel channel) {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException ignored) {
        // nothing more to release
      }
    }
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
