package dev.ballast.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Small disks for tests of what happens where a disk is full or mounted read-only: a tmpfs mounted on
 * a directory, remounted read-only when the test says, unmounted by {@link #close}. Mounting needs
 * root (CI runs as root); elsewhere the test is skipped with the reason. Not thread-safe.
 */
public final class TmpfsDisks implements AutoCloseable {
    private final List<Path> mounts = new ArrayList<>();

    /** Mounts a tmpfs of {@code size} ({@code 1m}, {@code 32m}) on {@code dir}, created if missing. */
    public Path mount(Path dir, String size) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Assumptions.assumeTrue(
                sh("mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", dir.toString()),
                "a tmpfs can be mounted (root)");
        mounts.add(dir);
        return dir;
    }

    /** Remounts the disk mounted on {@code dir} read-only. */
    public void readOnly(Path dir) throws IOException, InterruptedException {
        if (!sh("mount", "-o", "remount,ro", dir.toString())) {
            throw new IOException(dir + " could not be remounted read-only");
        }
    }

    /** Whether {@code command} ran and exited 0 within 30 seconds (its output is discarded). */
    public static boolean sh(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    }

    /** Unmounts every disk this mounted (lazily, so an open file does not keep it). */
    @Override
    public void close() throws IOException, InterruptedException {
        unmount(mounts);
    }

    /** Unmounts the file systems mounted on {@code dirs} (lazily) and empties the list. */
    public static void unmount(List<Path> dirs) throws IOException, InterruptedException {
        for (Path m : dirs) {
            sh("umount", "-l", m.toString());
        }
        dirs.clear();
    }
}
