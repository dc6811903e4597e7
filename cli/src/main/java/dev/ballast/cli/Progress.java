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

    /**
     * The rate of {@code bytes} over {@code nanos}, as the bar shows it: one decimal with a leading zero
     * whatever the locale ({@code .0 MiB/s} before), from the elapsed time to the nanosecond (progressbar's own
     * speed divides by whole seconds, so it zig-zagged up to twice the real rate), {@code ? MiB/s} in the first
     * tenth of a second.
     */
    static String speed(long bytes, long nanos) {
        return nanos < 100_000_000L
                ? "? MiB/s"
                : String.format(java.util.Locale.ROOT, "%.1f MiB/s", bytes / 1048576.0 / (nanos / 1e9));
    }

    /**
     * The time left for {@code done} of {@code total} bytes after {@code elapsed}, at the rate so far; none
     * while the total is unknown (negative), in the first second, or at a rate below 0.05 MiB/s (it
     * showed 19,355 hours one second into a file whose first bytes had not been counted yet).
     */
    static java.util.Optional<java.time.Duration> eta(long done, long total, java.time.Duration elapsed) {
        double seconds = elapsed.toMillis() / 1000.0;
        double rate = seconds <= 0 ? 0 : done / seconds;
        if (total < 0 || seconds < 1 || rate < 0.05 * 1048576) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(java.time.Duration.ofSeconds((long) Math.ceil(Math.max(0, total - done) / rate)));
    }

    private static final class Bar extends Progress {
        private final ProgressBar bar;
        private final OnceEach console;
        private final long startNanos = System.nanoTime();

        Bar(String task, long totalFiles, long totalBytes, PrintStream out) {
            super(totalFiles, totalBytes);
            console = new OnceEach(out);
            bar = new ProgressBarBuilder()
                    .setTaskName(task)
                    // unknown (no percentage, no bar) until the walk has found bytes: with a total of 0 the
                    // bar showed 100% while a 381 MiB file was being read (a README user's)
                    .setInitialMax(totalBytes > 0 ? totalBytes : -1)
                    .setUnit(" MiB", 1024 * 1024)
                    .setEtaFunction(
                            s -> eta(s.getCurrent(), s.isIndefinite() ? -1 : s.getMax(), s.getElapsedAfterStart()))
                    .setStyle(ProgressBarStyle.ASCII)
                    .setUpdateIntervalMillis(200)
                    .setConsumer(console)
                    .continuousUpdate()
                    .build();
            bar.setExtraMessage(" " + filesText());
        }

        @Override
        protected void onChange() {
            long max = totalBytes();
            if (max > 0) {
                bar.maxHint(max);
            }
            bar.stepTo(Math.min(bytes(), max));
            bar.setExtraMessage(" " + speed(bytes(), System.nanoTime() - startNanos) + " " + filesText());
        }

        @Override
        public void close() {
            bar.close();
            // A bar closed before its first periodic draw is drawn by its close, which then leaves the line open.
            console.close();
        }
    }

    /**
     * The terminal's consumer of the bar's lines, drawing each line once: progressbar draws the finished bar
     * twice when it is closed (its last refresh, then the final one, with continuous updates on), and a
     * line wider than the terminal, or a transcript ({@code script}), then shows it twice. The line is
     * ended once, however often it is closed.
     */
    static final class OnceEach extends ConsoleProgressBarConsumer {
        private @org.jspecify.annotations.Nullable String drawn;
        private boolean closed;

        OnceEach(PrintStream out) {
            super(out);
        }

        @Override
        public synchronized void accept(String rendered) {
            if (!closed && !rendered.equals(drawn)) {
                drawn = rendered;
                super.accept(rendered);
            }
        }

        @Override
        public synchronized void close() {
            if (!closed) {
                closed = true;
                super.close();
            }
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
                        long nanos = System.nanoTime() - startNanos;
                        double seconds = Math.max(nanos / 1e9, 1e-3);
                        out.print(String.format(
                                        java.util.Locale.ROOT,
                                        "%s: %s, %s / %s, %.1f MiB/s",
                                        task,
                                        filesText(),
                                        Summary.mib(bytes()),
                                        Summary.mib(totalBytes()),
                                        bytes() / 1048576.0 / seconds)
                                + eta(bytes(), totalBytes(), java.time.Duration.ofNanos(nanos))
                                        .map(d -> ", ETA " + Summary.duration(d))
                                        .orElse("")
                                + System.lineSeparator());
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
