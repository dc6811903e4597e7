package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.run.RestoreLock;
import dev.ballast.testkit.LeakCheck;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A restore and a prune of one local store at the same time: the prune deleted a pack the restore had
 * found in the index and was about to read, and the restore reported the files damaged (exit 4, "back
 * the source up again"). They now keep apart through {@link RestoreLock}, as restic's shared and
 * exclusive locks: a prune beside a restore deletes nothing and says why; a restore beside a prune is
 * refused (exit 3) and says to run it again once the prune has ended. The running command is stood for
 * by the lock it holds.
 */
@ExtendWith(LeakCheck.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RestoreBesidePruneTest extends InProcessCli {
    private Path storeDirectory() {
        return data().resolve("ballast-backups");
    }

    private static void writeFiles(Path src, int seed) throws Exception {
        for (int i = 0; i < 3; i++) {
            byte[] b = new byte[200_000];
            new Random(seed + i).nextBytes(b);
            Files.write(src.resolve("f" + i + ".bin"), b);
        }
    }

    private long packs() throws Exception {
        // the repository's packs are content files of the local store (over its 64 KiB inline threshold)
        try (Stream<Path> files = Files.walk(storeDirectory().resolve("blobs"))) {
            return files.filter(f -> Files.isRegularFile(f) && f.toFile().length() > 100_000)
                    .count();
        }
    }

    /** Two backups of 'src' whose files all differ: the first one's pack is needed by it alone. */
    private Path twoBackups() throws Exception {
        Path src = Files.createDirectories(home.resolve("src"));
        writeFiles(src, 0);
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        writeFiles(src, 100);
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        return src;
    }

    @Test
    void aPruneBesideARunningRestoreDeletesNothingAndSaysWhy() throws Exception {
        twoBackups();
        long before = packs();
        try (RestoreLock restoring = RestoreLock.shared(storeDirectory())) {
            assertThat(run(at("forget", "src", "--keep-last", "1", "--prune", "--grace", "0s")))
                    .isEqualTo(ExitCodes.INCOMPLETE);
            assertThat(err())
                    .contains("a restore from the repository is running")
                    .doesNotContain("Exception");
            assertThat(packs()).as("packs kept while the restore reads").isEqualTo(before);
            assertThat(run(at("repair", "packs"))).isEqualTo(ExitCodes.UNAVAILABLE);
            assertThat(err()).contains("Not repaired: a restore from the repository is running");
        }
        assertThat(run(at("prune", "--grace", "0s"))).as(err()).isZero();
        assertThat(packs())
                .as("the forgotten backup's pack, once the restore ended")
                .isLessThan(before);
        assertThat(run(at("restore", "src", home.resolve("back").toString())))
                .as(err())
                .isZero();
    }

    @Test
    void aRestoreBesideARunningPruneIsRefusedAndToldToRunAgain() throws Exception {
        twoBackups();
        Path back = home.resolve("back");
        try (RestoreLock pruning = RestoreLock.exclusive(storeDirectory())) {
            assertThat(pruning.refusedBecause()).isNull();
            assertThat(run(at("restore", "src", back.toString()))).isEqualTo(ExitCodes.UNAVAILABLE);
            assertThat(err())
                    .contains("A prune or repair of the repository in " + storeDirectory() + " is running")
                    .contains("restore again once it has ended")
                    .doesNotContain("damaged");
            assertThat(back).doesNotExist();
        }
        assertThat(run(at("restore", "src", back.toString()))).as(err()).isZero();
    }

    @Test
    void aVerifyBesideARunningPruneIsRefusedRatherThanReportingDamage() throws Exception {
        twoBackups();
        try (RestoreLock pruning = RestoreLock.exclusive(storeDirectory())) {
            assertThat(run(at("verify", "src"))).isEqualTo(ExitCodes.UNAVAILABLE);
            assertThat(err())
                    .contains("it may delete packs this verify would read; run the verify again once it has ended")
                    .doesNotContain("Damaged");
        }
        assertThat(run(at("verify", "src"))).as(err()).isZero();
    }

    @Test
    void restoresShareTheLockAndAPruneTakesItOnceTheyEnded() throws Exception {
        Path dir = Files.createDirectories(data().resolve("store"));
        try (RestoreLock one = RestoreLock.shared(dir);
                RestoreLock two = RestoreLock.shared(dir)) {
            try (RestoreLock prune = RestoreLock.exclusive(dir)) {
                assertThat(prune.refusedBecause()).contains("a restore from the repository is running");
            }
        }
        try (RestoreLock prune = RestoreLock.exclusive(dir)) {
            assertThat(prune.refusedBecause()).isNull();
        }
    }
}
