package dev.ballast.storage.object.local;

import dev.ballast.testkit.TmpfsDisks;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

/**
 * Small disks for tests of a store on a read-only or full disk: a tmpfs mounted under a test's
 * temporary directory (root can mount one; CI runs as root), remounted read-only or filled to the
 * last byte; or, where mounting is refused, a directory without write permission (which stops a
 * user other than root from creating files just as a read-only mount does).
 */
final class Disks implements AutoCloseable {
    private final List<Path> mounts = new ArrayList<>();
    private final List<Path> madeReadOnly = new ArrayList<>();

    /** Mounts a tmpfs of {@code size} (such as {@code "8m"}) at {@code dir}; false where that is refused. */
    boolean mountTmpfs(Path dir, String size) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        if (run("mount", "-t", "tmpfs", "-o", "size=" + size + ",mode=700", "tmpfs", dir.toString())) {
            mounts.add(dir);
            return true;
        }
        return false;
    }

    /**
     * Makes {@code dir} read-only: remounts it read-only when it is a tmpfs this object mounted,
     * else takes the write permission off it and its subdirectories.
     */
    void makeReadOnly(Path dir) throws IOException, InterruptedException {
        if (mounts.contains(dir)) {
            if (!run("mount", "-o", "remount,ro", dir.toString())) {
                throw new IOException("could not remount " + dir + " read-only");
            }
            return;
        }
        try (var files = Files.walk(dir)) {
            for (Path p : files.filter(Files::isDirectory).toList()) {
                Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("r-xr-xr-x"));
                madeReadOnly.add(p);
            }
        }
    }

    /** Whether {@code dir} is a tmpfs this object mounted. */
    boolean mounted(Path dir) {
        return mounts.contains(dir);
    }

    /** Whether creating a file in {@code dir} fails now (as it must on a read-only disk). */
    static boolean cannotCreateFilesIn(Path dir) {
        try {
            Files.delete(Files.createTempFile(dir, "probe", ".tmp"));
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    /** Fills the disk under {@code dir} to its last byte with the file {@code dir/filler}. */
    static Path fill(Path dir) throws IOException {
        Path filler = dir.resolve("filler");
        byte[] block = new byte[4096];
        try (OutputStream out = Files.newOutputStream(filler)) {
            while (true) {
                out.write(block);
            }
        } catch (IOException full) {
            // ENOSPC: the disk is full
        }
        // The page cache may have taken a partial block: fill what is left byte by byte.
        try (OutputStream out = Files.newOutputStream(filler, java.nio.file.StandardOpenOption.APPEND)) {
            while (true) {
                out.write(0);
                out.flush();
            }
        } catch (IOException full) {
            // full to the byte
        }
        return filler;
    }

    private static boolean run(String... command) throws IOException, InterruptedException {
        return TmpfsDisks.sh(command);
    }

    @Override
    public void close() throws IOException, InterruptedException {
        TmpfsDisks.unmount(mounts);
        for (Path p : madeReadOnly) {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwx------"));
        }
        madeReadOnly.clear();
    }
}
