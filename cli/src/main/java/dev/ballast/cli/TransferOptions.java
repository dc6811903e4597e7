package dev.ballast.cli;

import dev.ballast.backup.OpenFileLimit;
import dev.ballast.backup.content.Transfers;
import picocli.CommandLine.Option;

/** {@code --transfers}, shared by the commands that move file contents. */
final class TransferOptions {
    @Option(
            names = "--transfers",
            paramLabel = "N",
            defaultValue = "" + Transfers.DEFAULT_THREADS,
            converter = OptionValues.TransfersConverter.class,
            description =
                    "Files read and written at once (default: ${DEFAULT-VALUE}; 1 to " + Transfers.MAX_THREADS + ").")
    int transfers;

    /**
     * Refuses a {@code --transfers} out of range (before the store is opened), then lowers it to what the
     * limit of open files leaves room for ({@link OpenFileLimit}), saying so on {@code out} when it does:
     * standard output, which {@code -q} holds back unless the command fails (a note on standard error
     * made every quiet cron run under a systemd {@code LimitNOFILE} mail it, a fault tester's).
     *
     * @return the transfers to run, also kept in {@link #transfers}
     * @throws dev.ballast.backup.BackupException of kind INVALID_INPUT for a value out of range
     */
    int check(java.io.PrintStream out) {
        new Transfers(transfers, 1).close();
        int fitting = OpenFileLimit.fit(transfers);
        if (fitting < transfers) {
            out.println("Note: running " + fitting + " transfers at once, not " + transfers + ": the limit of "
                    + OpenFileLimit.limit(OpenFileLimit.LIMITS) + " open files (ulimit -n) leaves room for no more;"
                    + " raise it to run more.");
            transfers = fitting;
        }
        return transfers;
    }
}
