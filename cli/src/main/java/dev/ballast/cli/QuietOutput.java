package dev.ballast.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * {@code -q/--quiet}: no progress, and the command's standard output held back and printed only when
 * it fails (an exit code other than 0), so that a cron job, which mails whatever a job prints, mails
 * failures only, as restic's {@code --quiet} does. Standard error is never held back (warnings, files
 * not stored, the error sentence). A failure's output is never dropped: what a command prints on
 * standard output is kept up to {@value #KEPT_BYTES} bytes, then its last part, and the line saying so.
 * Not thread-safe beyond what a command's own printing needs (the buffer is synchronized).
 */
final class QuietOutput {
    /** The commands whose standard output is the answer asked for: --quiet leaves it as it is. */
    private static final Set<String> ANSWERS = Set.of("list", "ls", "versions", "help");

    private static final Set<String> HELP = Set.of("-h", "--help", "-V", "--version");

    /** How much standard output is held back for a failure to print. */
    static final int KEPT_BYTES = 4 << 20;

    private final CliContext ctx;
    private final Kept kept = new Kept();
    private final PrintStream held = new PrintStream(kept, true, StandardCharsets.UTF_8);

    private QuietOutput(CliContext ctx) {
        this.ctx = ctx;
    }

    /**
     * The quiet output of {@code line} (a command line with its command first, as {@link
     * Ballast#commonOptionsAfterCommand} makes it), or null when it does not ask for {@code -q/--quiet} before
     * a {@code --}, or its standard output is the answer (list, ls, versions, key list).
     */
    static @Nullable QuietOutput asked(String[] line, CliContext ctx) {
        if (line.length == 0 || ANSWERS.contains(line[0])) {
            return null;
        }
        boolean asked = false;
        for (int i = 1; i < line.length && !line[i].equals("--"); i++) {
            asked |= line[i].equals("-q") || line[i].equals("--quiet");
            if (HELP.contains(line[i])) {
                return null; // the help asked for is the answer
            }
        }
        if (!asked || (line[0].equals("key") && line.length > 1 && line[1].equals("list"))) {
            return null;
        }
        return new QuietOutput(ctx);
    }

    /** {@code ctx} with standard output held back and no progress (no bar, no periodic line). */
    CliContext context() {
        return new CliContext(
                held,
                ctx.err(),
                ctx.env(),
                ctx.home(),
                false,
                ctx.cancellation(),
                ctx.clock(),
                Duration.ofDays(3650),
                ctx.manifestGrace(),
                ctx.onFileStored());
    }

    /** Prints what was held back when {@code exitCode} is not 0; drops it otherwise. */
    void finish(int exitCode) {
        held.flush();
        if (exitCode != ExitCodes.OK) {
            kept.writeTo(ctx.out());
            ctx.out().flush();
        }
    }

    /** The held-back bytes: the first {@link #KEPT_BYTES}, then the newest ones in a ring of the same size. */
    private static final class Kept extends OutputStream {
        private final ByteArrayOutputStream first = new ByteArrayOutputStream();
        private byte @Nullable [] last; // made when the first part is full
        private long lastWritten;

        @Override
        public synchronized void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            int toFirst = Math.min(len, KEPT_BYTES - first.size());
            first.write(b, off, toFirst);
            if (toFirst < len && last == null) {
                last = new byte[KEPT_BYTES];
            }
            for (int i = off + toFirst; i < off + len; i++) {
                last[(int) (lastWritten++ % KEPT_BYTES)] = b[i];
            }
        }

        synchronized void writeTo(PrintStream out) {
            try {
                first.writeTo(out);
                if (lastWritten > KEPT_BYTES) {
                    out.println();
                    out.println("[... " + (lastWritten - KEPT_BYTES) + " bytes of output left out (--quiet) ...]");
                }
                if (last == null) {
                    return;
                }
                int start = (int) (lastWritten > KEPT_BYTES ? lastWritten % KEPT_BYTES : 0);
                int n = (int) Math.min(lastWritten, KEPT_BYTES);
                for (int i = 0; i < n; i++) {
                    out.write(last[(start + i) % KEPT_BYTES]);
                }
            } catch (IOException e) {
                out.println(); // PrintStream records the failure; the exit code reports it (OutputFailure)
            }
        }
    }
}
