package dev.ballast.cli;

import java.net.URI;
import java.nio.file.Path;

/**
 * An S3 server started for the duration of one command when no {@code --endpoint} is given, with
 * its data persisted under a data directory so backups survive between runs.
 */
public interface EmbeddedS3 extends AutoCloseable {

  /** Starts servers; tests inject one they can stop mid-command. */
  @FunctionalInterface
  interface Factory {
    /**
     * Starts a server on a free loopback port whose objects live under {@code dataDir}.
     *
     * @throws CliFailure if it cannot start
     */
    EmbeddedS3 start(Path dataDir);
  }

  /** The HTTP endpoint, e.g. {@code http://127.0.0.1:43123}. */
  URI endpoint();

  /** What to call it in messages. */
  String describe();

  /** Stops the server; its data stays on disk. */
  @Override
  void close();
}
