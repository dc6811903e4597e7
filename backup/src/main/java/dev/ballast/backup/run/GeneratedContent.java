package dev.ballast.backup.run;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.LongConsumer;

/**
 * Files whose stat says 0 bytes but that give their content when read: those of {@code /proc}
 * ({@code /proc/cpuinfo}, {@code /proc/PID/status}), made by the kernel as they are read (those of
 * {@code /sys} say 4096 bytes, whatever they hold). A backup stores what it reads of them, as restic
 * does, when their stat after the read is the one before; of those whose stat says 0 bytes, up to
 * {@value #LIMIT_MIB} MiB: some never end
 * in practice ({@code /proc/PID/pagemap} gives 8 bytes for every page of the address space, 256 GiB),
 * and one of them would hold the backup for hours; such a file is listed not stored ({@link TooLarge}).
 * The others of these files hold at most a few MiB ({@code /proc/kallsyms}). Stateless.
 */
final class GeneratedContent {
    static final int LIMIT_MIB = 64;
    private static final long LIMIT = (long) LIMIT_MIB << 20;

    private GeneratedContent() {}

    /** Reading a file whose stat says 0 bytes gave more than the limit. */
    static final class TooLarge extends IOException {
        private static final long serialVersionUID = 1L;

        TooLarge() {
            super("its size is 0 by its stat, but reading it gave more than " + LIMIT_MIB + " MiB: a file the"
                    + " kernel makes as it is read, such as /proc/PID/pagemap, so it was not stored; leave it out"
                    + " (--exclude), or with --follow-symlinks pass --one-file-system");
        }
    }

    /** Counts what the read of one such file gave, passing it on to {@code read}. */
    static final class Limit implements LongConsumer {
        private final LongConsumer read;
        private long total;

        Limit(LongConsumer read) {
            this.read = read;
        }

        @Override
        public void accept(long n) {
            total += n;
            read.accept(n);
        }

        /** Whether more than the limit was read. */
        boolean exceeded() {
            return total > LIMIT;
        }
    }

    /**
     * The bytes of {@code file}, read to its end (the earlier format uploads them from memory).
     *
     * @throws TooLarge when it gives more than the limit
     */
    static byte[] read(Path file) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[65536];
        try (InputStream in = Files.newInputStream(file)) {
            for (int n; (n = in.read(buf)) > 0; ) {
                out.write(buf, 0, n);
                if (out.size() > LIMIT) {
                    throw new TooLarge();
                }
            }
        }
        return out.toByteArray();
    }
}
