package dev.ballast.backup.restore;

import java.io.ByteArrayOutputStream;
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
import org.jspecify.annotations.Nullable;

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
    private final @Nullable Path probe;

    /** @param command the command and its arguments before the directory, such as {@code sync -f} */
    FileSystemSync(List<String> command) {
        this(command, null);
    }

    /**
     * @param command the command and its arguments before the directory, such as {@code sync -f}
     * @param probe the directory {@link #available} runs the command on, or null: the target itself
     */
    FileSystemSync(List<String> command, @Nullable Path probe) {
        this.command = List.copyOf(command);
        this.probe = probe;
    }

    /**
     * {@code sync -f}, asked whether it runs here on {@code /proc} where there is one (Linux): a file
     * system with nothing to write, so the question costs nothing. Asked of the target itself, the
     * answer waited for everything any program had left unwritten on the target's file system: with a
     * busy disk, 12 s before a restore of 48 MiB began.
     */
    static FileSystemSync syncF() {
        Path proc = Path.of("/proc");
        return new FileSystemSync(List.of("sync", "-f"), Files.isDirectory(proc) ? proc : null);
    }

    /** The directory {@link #available} runs the command on in place of the target, or null. */
    @Nullable
    Path probe() {
        return probe;
    }

    /**
     * Whether the command runs here (it exits 0), run on the probe directory given at construction,
     * else on {@code target} (which syncs its file system).
     */
    @Override
    public boolean available(Path target) {
        try {
            run(probe != null ? probe : target);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Runs the command once for each file system of {@code directories} (by device number), on one of
     * its directories whose name a command line can carry ({@link #nameable}).
     */
    @Override
    public void syncAll(Collection<Path> directories) throws IOException {
        Map<Object, Path> oneEach = new LinkedHashMap<>();
        for (Path dir : directories) {
            // A directory that cannot be looked at (one of mode 0000 above it, for a user other than root) is
            // on its parent's file system: the restore made it there.
            Path seen = dir;
            Object device = device(seen);
            while (device == seen && seen.getParent() != null) {
                seen = seen.getParent();
                device = device(seen);
            }
            if (!oneEach.containsKey(device)) {
                oneEach.put(device, nameable(seen, device));
            }
        }
        for (Path dir : oneEach.values()) {
            run(dir);
        }
    }

    /**
     * {@code dir}, or the nearest directory above it on the same file system, whose name passes to a
     * command unchanged: a name that is not valid in the platform's encoding (a directory restored as
     * {@code dir\xc3}) reaches the command as other bytes, which name nothing ({@code sync -f} then
     * failed every restore of such a tree, though every file was written). The file system's sync
     * syncs the same whichever of its directories names it. {@code dir} itself when none is found.
     */
    static Path nameable(Path dir, Object device) {
        return nameable(dir, device, Files::isReadable);
    }

    /**
     * As {@link #nameable(Path, Object)}, also passing over a directory {@code openable} refuses: the
     * command opens the directory it is given, and a directory whose backup mode denies reading (0000,
     * 0300) cannot be opened by a user other than root once the restore gave it that mode (a restore by
     * such a user ended in "'sync -f .../zero/sub' exited with 1: ... Permission denied" with every
     * file in place).
     */
    static Path nameable(Path dir, Object device, java.util.function.Predicate<Path> openable) {
        for (Path p = dir; p != null; p = p.getParent()) {
            Object on = device(p);
            if (on == p) {
                continue; // not to be looked at (a directory above it denies search, a mode-0000 one): nor named
            }
            if (!on.equals(device)) {
                break;
            }
            if (passesUnchanged(p) && openable.test(p)) {
                return p;
            }
        }
        return dir;
    }

    /** Whether {@code p}'s name, as a string, names {@code p} again (its bytes survive the round trip). */
    static boolean passesUnchanged(Path p) {
        try {
            return p.getFileSystem().getPath(p.toString()).equals(p);
        } catch (java.nio.file.InvalidPathException e) {
            return false;
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

    /** Output of the command kept for the message: its first 4 KiB (the rest is read and dropped). */
    static final int OUTPUT_KEPT = 4096;

    /**
     * Runs the command on {@code dir} and waits for it. An interrupt of the calling thread ends the wait:
     * the command is killed ({@code SIGKILL}) and {@link InterruptedIOException} thrown, so a sync that
     * hangs (a disk gone away) holds a cancelled restore no longer than the cancellation.
     */
    private void run(Path dir) throws IOException {
        List<String> argv = new ArrayList<>(command);
        argv.add(dir.toString());
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        p.getOutputStream().close();
        ByteArrayOutputStream kept = new ByteArrayOutputStream();
        Thread reader = new Thread(() -> drain(p.getInputStream(), kept), "ballast-sync-output");
        reader.setDaemon(true);
        reader.start();
        int exit;
        try {
            exit = p.waitFor();
            reader.join();
        } catch (InterruptedException e) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while '" + String.join(" ", argv) + "' ran");
        }
        if (exit != 0) {
            String output;
            synchronized (kept) {
                output = kept.toString(StandardCharsets.UTF_8).strip();
            }
            throw new IOException(
                    "'" + String.join(" ", argv) + "' exited with " + exit + (output.isEmpty() ? "" : ": " + output));
        }
    }

    /** Reads {@code in} to its end, keeping the first {@link #OUTPUT_KEPT} bytes in {@code kept}. */
    private static void drain(InputStream in, ByteArrayOutputStream kept) {
        byte[] buffer = new byte[8192];
        try (in) {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                synchronized (kept) {
                    kept.write(buffer, 0, Math.max(0, Math.min(n, OUTPUT_KEPT - kept.size())));
                }
            }
        } catch (IOException e) {
            // the command's exit status still tells
        }
    }
}
