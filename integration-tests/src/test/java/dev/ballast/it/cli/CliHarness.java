package dev.ballast.it.cli;

import dev.ballast.cli.Ballast;
import dev.ballast.cli.Cancellation;
import dev.ballast.cli.CliContext;
import dev.ballast.cli.EmbeddedS3;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.object.s3.S3Endpoint;
import dev.ballast.storage.object.s3.S3StoreConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Stream;

/** Runs the ballast CLI in this JVM and hashes directory trees. */
final class CliHarness {
  private CliHarness() {}

  /** What one command printed and returned. */
  record Run(int exitCode, String out, String err) {}

  static Run run(Path home, EmbeddedS3.Factory servers, Consumer<String> onFileStored, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    CliContext ctx = new CliContext(new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8), Map.of(), home, false, servers, new Cancellation(),
        Clock.systemUTC(), Duration.ofSeconds(2), Duration.ofSeconds(2), onFileStored);
    int code = Ballast.run(args, ctx);
    Run run = new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    System.out.println("$ ballast " + String.join(" ", args) + "  -> exit " + code + "\n" + run.out() + run.err());
    return run;
  }

  /** A server factory handing out {@code server} without ever stopping it (the test owns it). */
  static EmbeddedS3.Factory shared(EmbeddedS3 server) {
    return dataDir -> new EmbeddedS3() {
      @Override
      public URI endpoint() {
        return server.endpoint();
      }

      @Override
      public String describe() {
        return server.describe();
      }

      @Override
      public void close() {
        // owned by the test
      }
    };
  }

  /** The facade the CLI uses, opened directly against {@code server}, for checks behind its back. */
  static StorageFacade facade(URI endpoint) {
    return StorageFacade.newBuilder()
        .s3(S3Endpoint.newBuilder().endpoint(endpoint).credentials("ballast", "ballast").build())
        .bucket("ballast-backups")
        .s3Config(S3StoreConfig.builder().createBucket(true).enableVersioning(true).build())
        .build();
  }

  /** Relative path ({@code /}-separated) to SHA-256 of every regular file under {@code root}. */
  static Map<String, String> hashes(Path root) throws IOException {
    Map<String, String> map = new TreeMap<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
        map.put(root.relativize(f).toString().replace('\\', '/'), sha256(f));
      }
    }
    return map;
  }

  static String sha256(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return sha256(in);
    }
  }

  static String sha256(InputStream in) throws IOException {
    try {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      byte[] buf = new byte[65536];
      int n;
      while ((n = in.read(buf)) >= 0) {
        d.update(buf, 0, n);
      }
      return HexFormat.of().formatHex(d.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
