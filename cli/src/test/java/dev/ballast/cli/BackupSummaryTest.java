package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.testkit.LeakCheck;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** What a backup's closing line says it stored. */
@ExtendWith(LeakCheck.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BackupSummaryTest extends EncryptedStoreCli {

    /**
     * Field input (a newcomer on Ceph RGW): 2,000 identical 5 KB text files and a 1 GiB sparse file of
     * zeros were reported as "8.0 MiB uploaded of 1033.5 MiB in 2.7 s (3.0 MiB/s)" while the bucket held
     * 22 KB: the plain bytes of the new chunks, called uploaded, and a rate made of them. restic says
     * "Added to the repository: 1.300 MiB (22.564 KiB stored)".
     */
    @Test
    void theNewDataAndWhatItTakesInTheStoreAreToldApartAndTheRateIsOfTheTree() throws Exception {
        Path src = Files.createDirectories(home.resolve("src"));
        String text = "the same five kilobytes of text in every file\n".repeat(110);
        for (int i = 0; i < 200; i++) {
            Files.writeString(src.resolve("note-" + i + ".txt"), text, StandardCharsets.UTF_8);
        }
        try (RandomAccessFile zeros =
                new RandomAccessFile(src.resolve("zeros.img").toFile(), "rw")) {
            zeros.setLength(64L << 20);
        }
        assertThat(run(at("init"))).as(err()).isZero();

        assertThat(run(at("backup", src.toString()))).as(err()).isZero();

        assertThat(out())
                .as("one chunk of text and one of zeros, new; compressed, they take less than a KiB")
                .containsPattern("Backup 'src' complete: 201 files stored, 0 unchanged, 65\\.0 MiB in [0-9.]+ s"
                        + " \\([0-9.]+ MiB/s\\), 8\\.0 MiB new \\([0-9]+ bytes stored\\)\\.")
                .doesNotContain("uploaded");
    }

    @Test
    void anUnchangedBackupAddsNothing() throws Exception {
        Path src = backedUp();

        assertThat(run(at("backup", src.toString()))).as(err()).isZero();

        assertThat(out())
                .contains("0 files stored, 3 unchanged, 585.9 KiB in ")
                .contains(", 0 bytes new (0 bytes stored).");
    }
}
