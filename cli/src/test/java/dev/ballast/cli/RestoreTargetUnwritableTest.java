package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.testkit.LeakCheck;
import dev.ballast.testkit.TmpfsDisks;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A restore whose target's file system takes no writes (tester's finding: a read-only target listed
 * every file as not restored, one line each): one sentence naming the target and why, exit 1, and no
 * file tried after the first refusal. The target is a tmpfs, remounted read-only or too small; it needs
 * root (CI runs as root), and the tests are skipped elsewhere.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
@ExtendWith(LeakCheck.class)
class RestoreTargetUnwritableTest extends InProcessCli {
    private final TmpfsDisks disks = new TmpfsDisks();

    /** Other file systems a test mounted, unmounted after it. */
    private final List<Path> mounted = new java.util.ArrayList<>();

    @AfterEach
    void unmount() throws Exception {
        disks.close();
        TmpfsDisks.unmount(mounted);
    }

    /** Backs up 30 files of {@code bytes} random bytes each in {@code s/d}. */
    private Path backUp(int bytes) throws IOException {
        Path src = Files.createDirectories(home.resolve("s/d"));
        Random random = new Random(7);
        for (int i = 0; i < 30; i++) {
            byte[] b = new byte[bytes];
            random.nextBytes(b);
            Files.write(src.resolve(String.format("f%02d", i)), b);
        }
        assertThat(run("backup", src.getParent().toString(), "--data-dir", data().toString()))
                .as(err())
                .isZero();
        return src;
    }

    @Test
    void aTargetOnAReadOnlyFileSystemIsOneSentenceNamingItAndNothingIsTried() throws Exception {
        backUp(1000);
        Path disk = disks.mount(home.resolve("disk"), "4m");
        disks.readOnly(disk);

        for (Path target : new Path[] {disk, disk.resolve("new/target")}) {
            assertThat(run("restore", "s", target.toString(), "--data-dir", data().toString()))
                    .isEqualTo(ExitCodes.INCOMPLETE);

            assertThat(err().lines().toList())
                    .containsExactly("Restore of 's' into '" + target + "' did not complete because the file system"
                            + " it is on is read-only (Read-only file system): 30 files not restored (first: d/f00);"
                            + " nothing was restored. Run the restore again once the cause is fixed.");
        }
    }

    /**
     * A tester's: {@code restore NAME /proc/1}, a directory where nothing can be created, printed a line per
     * file naming a temporary name of the run ({@code Not restored: d/f00 (it could not be written
     * (/proc/1/.ballast-...: no such file or directory))}). A target that takes no writes is now one
     * sentence, as a read-only one is; so is one that cannot be created. The reason is what stops it, not
     * the system's "no such file or directory" for a directory that exists.
     */
    @Test
    void aTargetWhereNothingCanBeCreatedIsOneSentenceNamingIt() throws Exception {
        backUp(1000);
        Path proc = Path.of("/proc/1");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(proc), "a Linux /proc");

        assertThat(run("restore", "s", proc.toString(), "--data-dir", data().toString()))
                .isEqualTo(ExitCodes.INCOMPLETE);
        assertThat(err().lines().toList())
                .singleElement()
                .asString()
                .isEqualTo("Restore of 's' into '/proc/1' did not complete because nothing can be created in it"
                        + " (its file system does not allow creating files there): 30 files not restored (first:"
                        + " d/f00); nothing was restored. Run the restore again once the cause is fixed.");

        assertThat(run("restore", "s", "/proc/1/new", "--data-dir", data().toString()))
                .isEqualTo(ExitCodes.INCOMPLETE);
        assertThat(err().lines().toList())
                .singleElement()
                .asString()
                .isEqualTo("Restore of 's' into '/proc/1/new' did not complete because it cannot be created"
                        + " (the file system of /proc/1 does not allow creating anything in it): 30 files not"
                        + " restored (first: d/f00); nothing was restored. Run the restore again once the cause is"
                        + " fixed.");
    }

    /**
     * A directory inside the target that exists already and takes no new file from this user (another
     * user's, chmod 555): each file restored into it was reported by the temporary name it is written under
     * ({@code it could not be written (TARGET/d/.ballast-...: permission denied)}); it is named by the
     * user's file. Root may create files where a mode forbids it, so the directory here is the root of a
     * devpts instance of its own, which refuses a new file to root too ("permission denied").
     */
    @Test
    void aFileInADirectoryThatTakesNoNewFileIsNamedByItsOwnPathNotByATemporaryName() throws Exception {
        backUp(1000);
        Path target = Files.createDirectories(home.resolve("t"));
        Path locked = Files.createDirectories(target.resolve("d"));
        org.junit.jupiter.api.Assumptions.assumeTrue(
                TmpfsDisks.sh("mount", "-t", "devpts", "-o", "newinstance", "devpts", locked.toString()),
                "a devpts instance can be mounted (root)");
        mounted.add(locked);

        assertThat(run("restore", "s", target.toString(), "--data-dir", data().toString()))
                .isEqualTo(ExitCodes.INCOMPLETE);
        assertThat(err())
                .contains("Not restored: d/f00 (it could not be written (" + locked.resolve("f00")
                        + ": permission denied))\n")
                .doesNotContain(".ballast-");
    }

    @Test
    void aTargetWhoseDiskFillsStopsAtTheFirstRefusedWriteInOneSentenceKeepingWhatItRestored() throws Exception {
        Path src = backUp(100_000);
        Path target = disks.mount(home.resolve("disk"), "1m").resolve("t");

        assertThat(run("restore", "s", target.toString(), "--transfers", "1", "--data-dir", data().toString()))
                .isEqualTo(ExitCodes.INCOMPLETE);

        List<String> lines = err().lines().toList();
        assertThat(lines).hasSize(1);
        assertThat(lines.get(0))
                .startsWith("Restore of 's' into '" + target + "' did not complete because the file system it is on"
                        + " is out of space (No space left on device): ")
                .contains(" files not restored (first: d/f");
        // What it restored is complete, and nothing half-written is left.
        List<Path> restored;
        try (Stream<Path> all = Files.list(target.resolve("d"))) {
            restored = all.toList();
        }
        assertThat(restored).isNotEmpty().hasSizeLessThan(30);
        for (Path f : restored) {
            assertThat(f.getFileName().toString()).doesNotStartWith(".ballast-");
            assertThat(f).hasSameBinaryContentAs(src.resolve(f.getFileName().toString()));
        }
        assertThat(out()).contains("Restore of 's' INCOMPLETE: " + restored.size() + " files restored");
    }
}
