package dev.ballast.cli;

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
}
