package dev.ballast.cli;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Cooperative cancellation of a running command (Ctrl-C): the shutdown hook calls {@link #cancel()}
 * and waits in {@link #awaitFinished} while the command stops after its current file, reports what
 * it stored and leaves no complete-looking manifest. Thread-safe.
 */
final class Cancellation {
  private volatile boolean cancelled;
  private final CountDownLatch finished = new CountDownLatch(1);

  void cancel() {
    cancelled = true;
  }

  boolean cancelled() {
    return cancelled;
  }

  void finished() {
    finished.countDown();
  }

  boolean awaitFinished(long timeout, TimeUnit unit) throws InterruptedException {
    return finished.await(timeout, unit);
  }
}
