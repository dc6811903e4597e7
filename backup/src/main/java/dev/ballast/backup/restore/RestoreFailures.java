package dev.ballast.backup.restore;

import dev.ballast.backup.Messages;
import dev.ballast.backup.run.BackupRunner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * How a restore words what went wrong writing into its target: a failure that holds for every file
 * (the target's file system read-only, out of space or over quota), which stops the run with one
 * reason, and a failure of one entry, named by the user's path and never by a temporary name of the
 * run. Stateless.
 */
final class RestoreFailures {
    private RestoreFailures() {}

    static final String READ_ONLY = "the file system it is on is read-only (Read-only file system)";

    /** Whether {@code dir} is on a file system mounted read-only. */
    static boolean readOnly(Path dir) {
        try {
            return Files.getFileStore(dir).isReadOnly();
        } catch (IOException | RuntimeException e) {
            return false; // not known: the writes say
        }
    }

    /**
     * Why {@code e} means the target's file system takes no more writes, for any file (EROFS: mounted
     * read-only; ENOSPC: out of space; EDQUOT: this user's quota used up), in words ending with the
     * system's own ({@code the file system it is on is read-only (Read-only file system)}); null for
     * a failure of one file or directory.
     */
    static @Nullable String unwritableReason(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
            String m = c instanceof java.nio.file.FileSystemException fse ? fse.getReason() : c.getMessage();
            if (m == null) {
                continue;
            }
            if (m.contains("Read-only file system")) {
                return READ_ONLY;
            }
            if (m.contains("No space left on device")) {
                return "the file system it is on is out of space (No space left on device)";
            }
            if (m.contains("Disk quota exceeded")) {
                return "this user's quota on its file system is used up (Disk quota exceeded)";
            }
        }
        return null;
    }

    /**
     * Makes the target directory when it is missing, then creates and removes one empty file of this run in
     * it: why the target takes no writes at all (out of space, or a directory where nothing can be created:
     * one this user may not write, {@code /proc/1}), in the words of the restore's one sentence, or null
     * when it takes them.
     */
    static @Nullable String refusedWrites(Path target, RestoreTemporaries temporaries) {
        try {
            Files.createDirectories(target);
        } catch (IOException e) {
            String reason = unwritableReason(e);
            Path refusing = noCreationIn(e);
            return reason != null
                    ? reason
                    : refusing != null
                            ? "it cannot be created (the file system of " + refusing
                                    + " does not allow creating anything in it)"
                            : "it cannot be created (" + Messages.describeIo(e) + ")";
        }
        Path probe;
        try {
            probe = temporaries.create(target.resolve("probe"), Files::createFile);
        } catch (IOException e) {
            String reason = unwritableReason(e);
            return reason != null
                    ? reason
                    : noCreationIn(e) != null
                            ? "nothing can be created in it (its file system does not allow creating files there)"
                            : "nothing can be created in it (" + withoutTemporaryName(e) + ")";
        }
        try {
            Files.delete(probe);
        } catch (IOException e) {
            // an empty file of this run's name, which its next run into this target removes
        }
        return null;
    }

    /**
     * The directory in which {@code e} says nothing can be created: a "no such file or directory" for a new
     * name in a directory that exists ({@code /proc/1} answers so, whatever the name); null for any other
     * failure.
     */
    private static @Nullable Path noCreationIn(IOException e) {
        if (!(e instanceof java.nio.file.NoSuchFileException missing) || missing.getFile() == null) {
            return null;
        }
        Path parent = Path.of(missing.getFile()).getParent();
        return parent != null && Files.isDirectory(parent) ? parent : null;
    }

    /** The failure of a file, directory or link whose attributes (or the link itself) could not be restored. */
    static BackupRunner.Failure attributesNotRestored(String path, Exception ex) {
        return new BackupRunner.Failure(
                path, "its attributes or link could not be restored (" + withoutTemporaryName(ex) + ")");
    }

    /**
     * What a file operation's failure was, naming its file unless that is a temporary name of a
     * restore (a link is made under one, then renamed into place) or a directory's descriptor named as a
     * path ({@code /proc/self/fd/N/NAME}): a message names the user's path, which the failure carries,
     * never a name the user never saw.
     */
    static String withoutTemporaryName(Throwable ex) {
        String named = namingTheUsersFile(ex, null);
        return named != null ? named : Messages.describeIo(ex);
    }

    /**
     * Why writing the user's file {@code dest} failed: where the failure names a temporary file of the run
     * (the file is written under one, then renamed into place), {@code dest} instead ({@code
     * /t/sub/a.txt: permission denied}, not {@code /t/sub/.ballast-...}); else the system's reason.
     */
    static String notWritten(Throwable ex, Path dest) {
        String named = namingTheUsersFile(ex, dest);
        return named != null ? named : RestoreDirectories.reason(ex);
    }

    /**
     * The failure {@code ex} of a temporary file of the run, worded as of {@code userFile} (or without a
     * file when null); null when {@code ex} names no temporary file.
     */
    private static @Nullable String namingTheUsersFile(Throwable ex, @Nullable Path userFile) {
        for (Throwable c = ex; c != null; c = c.getCause()) {
            if (c instanceof java.nio.file.FileSystemException fse
                    && (temporary(fse.getFile()) || temporary(fse.getOtherFile()))) {
                if (fse.getReason() != null) {
                    return RestoreDirectories.reason(fse);
                }
                String described = Messages.describeIo(fse); // "FILE: what", the JDK's kind of failure
                String what = described.substring(described.indexOf(": ") + 2);
                return userFile == null ? what : userFile + ": " + what;
            }
        }
        return null;
    }

    private static final String DESCRIPTOR_PATHS = "/proc/self/fd/";

    private static boolean temporary(@Nullable String file) {
        if (file == null) {
            return false;
        }
        if (file.startsWith(DESCRIPTOR_PATHS)) {
            // a directory's descriptor named as a path (links and directory attributes go through one): a
            // tester saw "(/proc/self/fd/62/.: Operation not permitted)" where only the reason says anything
            return true;
        }
        int slash = file.lastIndexOf('/');
        return file.startsWith(RestoreTemporaries.PREFIX, slash + 1);
    }
}
