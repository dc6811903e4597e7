package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.testkit.LeakCheck;
import dev.ballast.testkit.TmpfsDisks;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code backup --follow-symlinks} on links that lead back up the tree, into other file systems and to
 * files of /proc and /sys (tester's finding: {@code proc -> /proc/self} and {@code a/up -> ..} were
 * followed without limit).
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
@ExtendWith(LeakCheck.class)
class FollowSymlinksTest extends InProcessCli {
    static final String LOOP = " (a symbolic link loop: it leads to a directory above it, which is not walked again)";
    static final String OTHER = " (on another file system, which --one-file-system does not cross)";

    private final TmpfsDisks disks = new TmpfsDisks();

    @AfterEach
    void unmount() throws Exception {
        disks.close();
    }

    private List<String> skipped() {
        return err().lines().filter(l -> l.startsWith("Skipped: ")).toList();
    }

    @Test
    void aLinkToADirectoryAboveItIsListedOnceAsASkippedLoopAndTheBackupIsComplete() throws IOException {
        Path src = Files.createDirectories(home.resolve("tree/src/a/b"));
        Files.writeString(src.resolve("f.txt"), "f");
        Files.createSymbolicLink(src.resolve("up"), Path.of(".."));
        Path root = src.getParent().getParent();
        Files.createSymbolicLink(root.resolve("above"), Path.of("../.."));

        assertThat(run("backup", root.toString(), "--follow-symlinks", "--data-dir", data().toString()))
                .as(err())
                .isZero();

        assertThat(skipped()).containsExactlyInAnyOrder("Skipped: a/b/up/" + LOOP, "Skipped: above/" + LOOP);
        Path target = home.resolve("r");
        assertThat(run("restore", "src", target.toString(), "--data-dir", data().toString()))
                .as(err())
                .isZero();
        assertThat(target.resolve("a/b/f.txt")).hasContent("f");
        assertThat(target.resolve("a/b/up")).doesNotExist();
        assertThat(target.resolve("above")).doesNotExist();
    }

    @Test
    void withOneFileSystemALinkIntoProcIsStoredAsAnEmptyDirectoryAndListedOnce() throws IOException {
        Path src = Files.createDirectories(home.resolve("src"));
        Files.writeString(src.resolve("f.txt"), "f");
        Files.createSymbolicLink(src.resolve("proc"), Path.of("/proc/self"));

        assertThat(run("backup", src.toString(), "--follow-symlinks", "-x", "--data-dir", data().toString()))
                .as(err())
                .isZero();

        assertThat(skipped()).containsExactly("Skipped: proc/" + OTHER);
        Path target = home.resolve("r");
        assertThat(run("restore", "src", target.toString(), "--data-dir", data().toString()))
                .as(err())
                .isZero();
        assertThat(target.resolve("proc")).isEmptyDirectory();
        assertThat(target.resolve("f.txt")).hasContent("f");
    }

    @Test
    void withOneFileSystemAMountPointIsKeptEmptyAndListedOnceInTheSummary() throws Exception {
        Path src = Files.createDirectories(home.resolve("src"));
        Files.writeString(src.resolve("f.txt"), "f");
        Path mnt = disks.mount(src.resolve("mnt"), "1m");
        Files.createDirectories(mnt.resolve("deep/er"));
        Files.writeString(mnt.resolve("deep/er/other.txt"), "on another file system");

        assertThat(run("backup", src.toString(), "--one-file-system", "--data-dir", data().toString()))
                .as(err())
                .isZero();
        assertThat(skipped()).containsExactly("Skipped: mnt/" + OTHER);

        assertThat(run("backup", src.toString(), "--name", "all", "--data-dir", data().toString()))
                .as(err())
                .isZero();
        assertThat(skipped()).isEmpty();
        Path target = home.resolve("r");
        assertThat(run("restore", "src", target.toString(), "--data-dir", data().toString()))
                .as(err())
                .isZero();
        assertThat(target.resolve("mnt")).isEmptyDirectory();
    }

    @Test
    void filesOfProcAndSysAreStoredAsReadThoughTheirStatSaysZeroOr4096Bytes() throws IOException {
        Path version = Path.of("/proc/version");
        Path online = Path.of("/sys/devices/system/cpu/online");
        Assumptions.assumeTrue(Files.isReadable(version) && Files.isReadable(online), "Linux /proc and /sys");
        Path src = Files.createDirectories(home.resolve("src"));
        Files.createSymbolicLink(src.resolve("version"), version);
        Files.createSymbolicLink(src.resolve("online"), online);

        assertThat(run("backup", src.toString(), "--follow-symlinks", "--data-dir", data().toString()))
                .as(err())
                .isZero();

        Path target = home.resolve("r");
        assertThat(run("restore", "src", target.toString(), "--data-dir", data().toString()))
                .as(err())
                .isZero();
        assertThat(target.resolve("version"))
                .hasContent(Files.readString(version))
                .isNotEmptyFile();
        assertThat(target.resolve("online"))
                .hasContent(Files.readString(online))
                .isNotEmptyFile();
    }
}
