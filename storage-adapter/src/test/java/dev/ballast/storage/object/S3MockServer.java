package dev.ballast.storage.object;

import com.adobe.testing.s3mock.S3MockApplication;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.catalina.connector.Connector;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.Banner;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * S3Mock 5.2 (Spring Boot) in this JVM, the one way every test starts it: {@link #endpoint()} is
 * the server all tests of the JVM share (started on first use, about 5 s; its files in a temporary
 * directory deleted on exit), and {@link #start(Path)} a server of a test's own that it can stop in
 * the middle of a command and start again on the same files. Both connectors bind to 127.0.0.1 on
 * free ports; Spring's banner and INFO logs are off. Thread-safe.
 */
public final class S3MockServer implements AutoCloseable {
    private static final String LOOPBACK = "127.0.0.1";
    private static S3MockServer shared;

    private final ConfigurableApplicationContext context;
    private final URI uri;

    private S3MockServer(ConfigurableApplicationContext context, int port) {
        this.context = context;
        this.uri = URI.create("http://" + LOOPBACK + ":" + port);
    }

    /** The endpoint of the server every test of this JVM shares, starting it on first use. */
    public static synchronized URI endpoint() {
        if (shared == null) {
            Path root;
            try {
                root = Files.createTempDirectory("s3mock-");
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create S3Mock's store directory", e);
            }
            // Spring runs S3Mock's asynchronous work on its "task-" pool, which starts with the first request.
            shared = LeakCheck.sharedFixture(() -> start(root, false), "task-");
        }
        return shared.uri;
    }

    /**
     * Starts a server of the caller's own with its files under {@code root}, kept when it stops, so
     * that a server started again on {@code root} serves them (and a test may damage them).
     */
    public static S3MockServer start(Path root) {
        return start(root, true);
    }

    private static S3MockServer start(Path root, boolean retainFiles) {
        quietStartupLogging();
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
        props.put("com.adobe.testing.s3mock.store.retainFilesOnExit", retainFiles);
        props.put("logging.level.root", "WARN");
        // The shared server's hook deletes its files on exit; an own server is closed by its test.
        props.put("spring.main.register-shutdown-hook", !retainFiles);
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
                .registerShutdownHook(!retainFiles)
                .initializers(c -> c.getBeanFactory().addBeanPostProcessor(new LoopbackConnectors()))
                .run();
        @SuppressWarnings("deprecation") // getHttpPort(): S3Mock prefers a separate JVM; one JVM is faster here
        int port = ctx.getBean(S3MockApplication.class).getHttpPort();
        return new S3MockServer(ctx, port);
    }

    /** This server's endpoint. */
    public URI uri() {
        return uri;
    }

    /** Stops this server; its files stay under its root. */
    @Override
    public void close() {
        context.close();
    }

    /**
     * Spring's "silent" only sets the root level to WARN, but tests log through slf4j-simple, which
     * reads per-logger levels from system properties when each logger is created.
     */
    private static void quietStartupLogging() {
        for (String logger : List.of(
                "org.springframework",
                "com.adobe.testing.s3mock",
                "org.apache.catalina",
                "org.apache.coyote",
                "org.apache.tomcat")) {
            System.setProperty("org.slf4j.simpleLogger.log." + logger, "warn");
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
