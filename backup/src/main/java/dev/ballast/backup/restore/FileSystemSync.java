package dev.ballast.backup.restore;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link RestoreSync} by {@code syncfs(2)}, which Java does not offer: a command given a directory
 * ({@code sync -f DIR} of GNU coreutils 8.24 and later, and of BusyBox) writes and syncs everything
 * of that directory's file system that is not on disk yet, the files' data, inodes and directory
 * entries alike, in one pass and one flush of the disk's cache, where a sync per file issues one flush
 * each. Since Linux 5.8 {@code syncfs} reports a write-back error of the file system (earlier
 * kernels returned 0 regardless). Thread-safe; stateless but for the command.
 */
final class FileSystemSync implements RestoreSync {
    private final List<String> command;

    /** @param command the command and its arguments before the directory, such as {@code sync -f} */
    FileSystemSync(List<String> command) {
        this.command = List.copyOf(command);
    }

    /** Whether the command runs here and syncs {@code target}'s file system (it exits 0). */
    @Override
    public boolean available(Path target) {
        try {
            run(target);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Runs the command once for each file system of {@code directories} (by device number), on one of its directories. */
    @Override
    public void syncAll(Collection<Path> directories) throws IOException {
        Map<Object, Path> oneEach = new LinkedHashMap<>();
        for (Path dir : directories) {
            oneEach.putIfAbsent(device(dir), dir);
        }
        for (Path dir : oneEach.values()) {
            run(dir);
        }
    }

    /** The device {@code dir} is on, or {@code dir} itself where it cannot be told (then each is synced). */
    private static Object device(Path dir) {
        try {
            return Files.getAttribute(dir, "unix:dev", LinkOption.NOFOLLOW_LINKS);
        } catch (IOException | RuntimeException e) {
            return dir;
        }
    }

    private void run(Path dir) throws IOException {
        List<String> argv = new ArrayList<>(command);
        argv.add(dir.toString());
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String output;
        try (InputStream in = p.getInputStream()) {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
        }
        int exit;
        try {
            exit = p.waitFor();
        } catch (InterruptedException e) {
            p.destroy();
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while '" + String.join(" ", argv) + "' ran");
        }
        if (exit != 0) {
            throw new IOException(
                    "'" + String.join(" ", argv) + "' exited with " + exit + (output.isEmpty() ? "" : ": " + output));
        }
    }
}
