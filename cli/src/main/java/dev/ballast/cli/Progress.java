package dev.ballast.cli;

import dev.ballast.backup.ProgressCounter;
import java.io.PrintStream;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * Progress of a job over files and bytes: a progress bar (files, bytes, throughput) on a terminal,
 * otherwise a plain line every few seconds so logs and CI output stay readable. Thread-safe.
 */
abstract class Progress extends ProgressCounter {

    Progress(long totalFiles, long totalBytes) {
        super(totalFiles, totalBytes);
    }

    /** A bar when {@code terminal}, plain lines every {@code intervalSeconds} otherwise. */
    static Progress create(
            String task, long totalFiles, long totalBytes, boolean terminal, PrintStream out, long intervalSeconds) {
        return terminal
                ? new Bar(task, totalFiles, totalBytes, out)
                : new Lines(task, totalFiles, totalBytes, out, intervalSeconds);
    }

    String filesText() {
        return files() + "/" + totalFiles() + " files";
    }

    private static final class Bar extends Progress {
        private final ProgressBar bar;

        Bar(String task, long totalFiles, long totalBytes, PrintStream out) {
            super(totalFiles, totalBytes);
            bar = new ProgressBarBuilder()
                    .setTaskName(task)
                    .setInitialMax(totalBytes)
                    .setUnit(" MiB", 1024 * 1024)
                    .showSpeed()
                    .setStyle(ProgressBarStyle.ASCII)
                    .setUpdateIntervalMillis(200)
                    .setConsumer(new ConsoleProgressBarConsumer(out))
                    .continuousUpdate()
                    .build();
            bar.setExtraMessage(" " + filesText());
        }

        @Override
        protected void onChange() {
            long max = totalBytes();
            bar.maxHint(max);
            bar.stepTo(Math.min(bytes(), max));
            bar.setExtraMessage(" " + filesText());
        }

        @Override
        public void close() {
            bar.close();
        }
    }

    private static final class Lines extends Progress {
        private final ScheduledExecutorService timer;
        private final long startNanos = System.nanoTime();

        Lines(String task, long totalFiles, long totalBytes, PrintStream out, long intervalSeconds) {
            super(totalFiles, totalBytes);
            timer = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "ballast-progress");
                t.setDaemon(true);
                return t;
            });
            timer.scheduleAtFixedRate(
                    () -> {
                        double seconds = Math.max((System.nanoTime() - startNanos) / 1e9, 1e-3);
                        out.printf(
                                "%s: %s, %s / %s, %.1f MiB/s%n",
                                task,
                                filesText(),
                                Summary.mib(bytes()),
                                Summary.mib(totalBytes()),
                                bytes() / 1048576.0 / seconds);
                        out.flush();
                    },
                    intervalSeconds,
                    intervalSeconds,
                    TimeUnit.SECONDS);
        }

        @Override
        protected void onChange() {
            // the timer prints the counters on its own schedule
        }

        @Override
        public void close() {
            timer.shutdownNow();
        }
    }
}
