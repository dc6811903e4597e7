package dev.ballast.backup.restore;

import dev.ballast.backup.tree.Names;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The temporary names of one restore run, and the removal of those a killed run left behind, without
 * ever taking a name from the user.
 *
 * <p>Each run draws a random token of 16 hex digits (64 bits from {@link SecureRandom}); its
 * temporary files and links are named {@code .ballast-TOKEN-N} (N a counter in hex) next to their
 * destination, so the rename into place never crosses a file system, and every name the file system
 * allowed at backup still fits (at most 42 bytes). A name that already exists is never reused (the
 * file is created with {@code CREATE_NEW} and the next N taken). Before writing, the run records its
 * token and the target in {@code RECORDS/TOKEN} (the CLI's cache directory, {@code
 * ~/.cache/ballast/restores}); a run that ends removes its record. A later run into the same target
 * removes, in the directories it writes to, only the files named with a recorded token of a run that
 * never ended, and beside the target the hidden directory of that name such a run wrote a new
 * target's tree into ({@link RestoreStaging}), then that record. A run holds a lock on its record while it runs (released by the system
 * when the process ends, kill -9 included), so a record another process still holds is a run that is
 * writing now, whose temporary files are left alone (a second restore into the same target deleted the
 * files the first was writing, which then failed as "could not be written"). A user's file named like a temporary file ({@code .ballast-} and 16
 * hex digits, or any other) is never removed, as no name is reserved. Without a record directory
 * (or when the record cannot be written) a killed run's temporary files stay, and nothing of the
 * user's is ever touched. Thread-safe.
 */
public final class RestoreTemporaries implements AutoCloseable {
    public static final String PREFIX = ".ballast-";

    private static final SecureRandom RANDOM = new SecureRandom();

    private final String token;
    private final AtomicLong counter = new AtomicLong();
    private final @Nullable Path records;
    private final Path target;
    private @Nullable Path record;
    /** Asked while leftovers are removed: true stops the removal (Ctrl-C). */
    private java.util.function.BooleanSupplier stop = () -> false;

    private static final java.nio.file.attribute.FileAttribute<?> PRIVATE_DIRECTORY =
            java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                    java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
    private static final java.nio.file.attribute.FileAttribute<?> PRIVATE_FILE =
            java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                    java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));

    /**
     * Whether the record {@code r} is one this user wrote and no one else may change: owned by this user
     * (the owner of {@code /proc/self}), neither group nor others with write access, in a records directory
     * of the same kind. A record another user planted named a target of this user's and a directory of
     * theirs to remove (a fault tester's).
     */
    private boolean ours(Path r) {
        try {
            String me = Files.getOwner(Path.of("/proc/self")).getName();
            for (Path p : List.of(records, r)) {
                java.nio.file.attribute.PosixFileAttributes a = Files.readAttributes(
                        p, java.nio.file.attribute.PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                if (!a.owner().getName().equals(me)
                        || a.permissions().contains(java.nio.file.attribute.PosixFilePermission.GROUP_WRITE)
                        || a.permissions().contains(java.nio.file.attribute.PosixFilePermission.OTHERS_WRITE)) {
                    return false;
                }
            }
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Whether {@link #begin} ran: a run records itself and removes leftovers once. */
    private boolean begun;
    /** The open record, whose lock says this run is alive; null without a record. */
    private java.nio.channels.@Nullable FileChannel held;

    /**
     * @param target the restore's target directory, absolute and normalised
     * @param records the directory of run records, or null for none
     */
    public RestoreTemporaries(Path target, @Nullable Path records) {
        byte[] b = new byte[8];
        RANDOM.nextBytes(b);
        this.token = HexFormat.of().formatHex(b);
        this.target = target;
        this.records = records;
    }

    /** Stops the removal of leftovers in {@link #begin} once {@code stop} says so (the run's Ctrl-C). */
    public RestoreTemporaries stoppingWhen(java.util.function.BooleanSupplier stop) {
        this.stop = java.util.Objects.requireNonNull(stop, "stop");
        return this;
    }

    public String token() {
        return token;
    }

    /**
     * Records this run (best effort) and removes the temporary files of earlier runs into the same
     * target that never ended from {@code directories} and, when there are such runs, from every other
     * directory below the target (a run of a selection, or of another backup, writes to fewer), and
     * the hidden directories beside the target they wrote a new target's tree into ({@link
     * RestoreStaging}); their records go with them. Only the first call of a run does anything.
     */
    public void begin(Collection<Path> directories) {
        if (records == null || begun) {
            return;
        }
        begun = true;
        List<String> leftoverTokens = new ArrayList<>();
        List<Path> leftoverRecords = new ArrayList<>();
        List<String> stagedTokens = new ArrayList<>();
        List<String> stagedSecrets = new ArrayList<>();
        List<Path> stagedRecords = new ArrayList<>();
        byte[] targetBytes = Names.bytes(target);
        try (DirectoryStream<Path> all = Files.newDirectoryStream(records)) {
            for (Path r : all) {
                String name = r.getFileName().toString();
                if (!isToken(name)) {
                    continue;
                }
                byte[] content = Files.readAllBytes(r);
                int end = indexOf(content, (byte) 0);
                byte[] named = end < 0 ? content : Arrays.copyOf(content, end);
                if (!Arrays.equals(named, targetBytes) || running(r)) {
                    continue;
                }
                if (!ours(r)) {
                    // another user's record, or one another user could write (a fault tester's, owned by nobody,
                    // mode 0666, had this run delete a file of the target's on its word): never acted on
                    continue;
                }
                if (end < 0) {
                    leftoverTokens.add(name);
                    leftoverRecords.add(r);
                } else {
                    stagedTokens.add(name);
                    stagedSecrets.add(new String(
                            content, end + 1, content.length - end - 1, java.nio.charset.StandardCharsets.UTF_8));
                    stagedRecords.add(r);
                }
            }
        } catch (IOException | RuntimeException e) {
            // no records yet, or unreadable: nothing known to remove
        }
        if (!leftoverTokens.isEmpty()) {
            for (Path dir : directories) {
                removeLeftovers(dir, leftoverTokens);
            }
            // The killed run may have written where this one does not (it restored more of the tree, or another
            // backup): every directory of the target is looked at before its record goes, or its leftovers would
            // stay in the user's tree for good. Only after a killed run, so a walk of the target is rare.
            removeLeftoversBelow(target, directories, leftoverTokens);
            removeEmptyHiddenDirectories(target.getParent(), leftoverTokens);
            for (Path r : leftoverRecords) {
                try {
                    Files.deleteIfExists(r);
                } catch (IOException ignored) {
                    // removed by the next run
                }
            }
        }
        if (!stagedTokens.isEmpty()) {
            removeInTheBackground(stagedTokens, stagedSecrets, stagedRecords);
        }
        record(targetBytes);
    }

    /**
     * Removes the hidden directories killed runs wrote a new target's tree into ({@link
     * RestoreStaging#removeLeftover}) on a thread of its own, each record once its directory is gone: the
     * restore does not wait for it, and nothing put in the tree by another user (a FIFO whose opening never
     * returns, a fault tester's) can hold the restore. What it has not removed when the process ends keeps
     * its record, and a later run goes on.
     */
    private void removeInTheBackground(List<String> tokens, List<String> secrets, List<Path> recordsOf) {
        java.util.function.BooleanSupplier stopped = stop;
        Thread t = new Thread(
                () -> {
                    for (int i = 0; i < tokens.size() && !stopped.getAsBoolean(); i++) {
                        if (RestoreStaging.removeLeftover(target, tokens.get(i), secrets.get(i), stopped)) {
                            try {
                                Files.deleteIfExists(recordsOf.get(i));
                            } catch (IOException | RuntimeException ignored) {
                                // a record whose directory is gone is removed by the next run
                            }
                        }
                    }
                },
                "ballast-leftover-removal");
        t.setDaemon(true);
        t.start();
        removal = t;
    }

    /** The thread removing killed runs' hidden directories, or null; for tests. */
    @Nullable
    Thread removal() {
        return removal;
    }

    private volatile @Nullable Thread removal;

    /** How long {@link #close} waits for the removal of killed runs' hidden directories to end, in milliseconds. */
    static final long REMOVAL_GRACE_MILLIS = 5_000;

    private static int indexOf(byte[] bytes, byte b) {
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == b) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Adds to this run's record the secret the hidden directory it writes a new target's tree into holds
     * ({@link RestoreStaging#marker}): only that directory, found by it, is removed if this run is killed,
     * never another put at its name (a tester renamed a directory of root's to the run's name, and the next
     * run removed it; a device and inode did not do, as a new directory takes the inode of one removed).
     *
     * @return whether the record holds it (false without a record, or when it cannot be written)
     */
    boolean recordStaging(String secret) {
        java.nio.channels.FileChannel channel = held;
        if (channel == null) {
            return false;
        }
        try {
            channel.write(java.nio.ByteBuffer.wrap(("\0" + secret).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            channel.force(false);
            return true;
        } catch (IOException | RuntimeException e) {
            return false; // the run then writes into the target itself
        }
    }

    /**
     * Writes and locks this run's record. The lock is taken before the record holds the target, so no
     * other run ever finds it naming this target and unlocked (a run that did, while this one synced the
     * record to a busy disk, took this one for dead and removed the hidden directory it was writing
     * into: a fault tester's, with the sync slowed). Without the lock there is no record.
     */
    private void record(byte[] targetBytes) {
        Path mine = records.resolve(token);
        java.nio.channels.FileChannel channel = null;
        try {
            // The records are this user's alone (0700, 0600): another user who could read one had its secret, and
            // one who could write there planted a record of their own (a fault tester's, under umask 002).
            Files.createDirectories(records, PRIVATE_DIRECTORY);
            try {
                Files.setPosixFilePermissions(
                        records, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
            } catch (IOException | RuntimeException notOurs) {
                // a records directory of another user's: its records are not trusted ({@link #ours})
            }
            channel = java.nio.channels.FileChannel.open(
                    mine, java.util.Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), PRIVATE_FILE);
            if (channel.tryLock() == null) {
                throw new IOException("the record's lock is held");
            }
            channel.write(java.nio.ByteBuffer.wrap(targetBytes));
            channel.force(false);
            record = mine;
            held = channel;
        } catch (IOException | RuntimeException e) {
            // Without a record a killed run's temporary files stay; nothing else changes.
            if (channel != null) {
                try {
                    channel.close();
                    Files.deleteIfExists(mine);
                } catch (IOException ignored) {
                    // an empty record names no target: no run acts on it
                }
            }
        }
    }

    /** {@link #removeLeftovers} in every directory below {@code target} not in {@code done}; links are not followed. */
    private static void removeLeftoversBelow(Path target, Collection<Path> done, List<String> tokens) {
        java.util.Set<Path> cleaned = new java.util.HashSet<>(done);
        try {
            Files.walkFileTree(target, new java.nio.file.SimpleFileVisitor<>() {
                @Override
                public java.nio.file.FileVisitResult preVisitDirectory(
                        Path dir, java.nio.file.attribute.BasicFileAttributes attrs) {
                    if (!cleaned.contains(dir)) {
                        removeLeftovers(dir, tokens);
                    }
                    return java.nio.file.FileVisitResult.CONTINUE;
                }

                @Override
                public java.nio.file.FileVisitResult visitFile(
                        Path file, java.nio.file.attribute.BasicFileAttributes attrs) {
                    return java.nio.file.FileVisitResult.CONTINUE;
                }

                @Override
                public java.nio.file.FileVisitResult visitFileFailed(Path file, IOException e) {
                    return java.nio.file.FileVisitResult.CONTINUE; // unreadable: nothing this run can remove there
                }
            });
        } catch (IOException | RuntimeException ignored) {
            // what cannot be looked at holds nothing this run could remove
        }
    }

    /**
     * Removes, beside the target, the hidden directories of the runs of {@code tokens} that are empty: a run
     * killed after it made its hidden directory and before it recorded its secret there (a fault tester's
     * kill at its chmod) left one that its record, with no secret, did not lead to. Only an empty
     * directory goes ({@code rmdir(2)} takes nothing else), so nothing of anyone's can.
     */
    private static void removeEmptyHiddenDirectories(@Nullable Path parent, List<String> tokens) {
        if (parent == null) {
            return;
        }
        for (String t : tokens) {
            try {
                Files.deleteIfExists(parent.resolve(PREFIX + t + "-1"));
            } catch (IOException | RuntimeException notEmptyOrNotOurs) {
                // left as it is
            }
        }
    }

    private static void removeLeftovers(Path dir, List<String> tokens) {
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path p : entries) {
                String name = p.getFileName().toString();
                for (String t : tokens) {
                    if (name.startsWith(PREFIX + t + "-") && !Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                        Files.deleteIfExists(p);
                    }
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // a leftover that cannot be removed is harmless: no manifest names it
        }
    }

    /**
     * Whether this run is recorded ({@link #begin} wrote and locked its record): a run killed now has
     * its temporary names removed by the next run into the same target.
     */
    public boolean recorded() {
        return held != null;
    }

    /** A new temporary path next to {@code dest}; the caller creates it with {@code CREATE_NEW} via {@link #create}. */
    public Path next(Path dest) {
        return dest.resolveSibling(PREFIX + token + "-" + Long.toHexString(counter.incrementAndGet()));
    }

    /** Tries {@code create} on new temporary names next to {@code dest} until one does not exist yet. */
    public <T> T create(Path dest, Creator<T> create) throws IOException {
        for (int attempt = 0; ; attempt++) {
            Path tmp = next(dest);
            try {
                return create.create(tmp);
            } catch (FileAlreadyExistsException e) {
                if (attempt >= 16) {
                    throw e;
                }
            }
        }
    }

    /** Creates something at a temporary path. */
    @FunctionalInterface
    public interface Creator<T> {
        T create(Path tmp) throws IOException;
    }

    /** Removes this run's record: it ended, and what it wrote is renamed into place or removed. */
    @Override
    public void close() {
        Thread t = removal;
        if (t != null) {
            // The removal of a killed run's hidden directory started with this run; it is given until shortly
            // after the run to end, and no longer (a FIFO put in that tree holds its thread for good).
            try {
                t.join(REMOVAL_GRACE_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (record != null) {
            try {
                Files.deleteIfExists(record);
            } catch (IOException ignored) {
                // a stale record only makes a later run look for names no file has
            }
        }
        if (held != null) {
            try {
                held.close(); // releases the lock
            } catch (IOException ignored) {
                // the lock goes with the process
            }
            held = null;
        }
    }

    /**
     * Whether the run of record {@code r} is still running: another process holds the lock on it, or
     * this JVM does (a second run in one process). A record that cannot be opened counts as running, so
     * nothing of it is removed.
     */
    private static boolean running(Path r) {
        try (java.nio.channels.FileChannel c = java.nio.channels.FileChannel.open(r, StandardOpenOption.WRITE)) {
            java.nio.channels.FileLock lock = c.tryLock();
            if (lock == null) {
                return true;
            }
            lock.release();
            return false;
        } catch (java.nio.channels.OverlappingFileLockException inThisJvm) {
            return true;
        } catch (IOException | RuntimeException e) {
            return true;
        }
    }

    private static boolean isToken(String s) {
        if (s.length() != 16) {
            return false;
        }
        for (int i = 0; i < 16; i++) {
            char c = s.charAt(i);
            if (!(c >= '0' && c <= '9') && !(c >= 'a' && c <= 'f')) {
                return false;
            }
        }
        return true;
    }

    /**
     * Records this run and removes the temporary files a killed restore into this target left in these
     * directories (a finished restore leaves none), so a restore run again after a crash leaves the tree
     * as one that was never interrupted. Only names carrying a recorded run's token are removed: no
     * name a user's file may have is taken ({@link RestoreTemporaries}).
     */
    void beginIn(List<Path> destinations, Set<Path> directories, RestoreDirectories prepared) {
        // The directories of the files and those the run prepares: the tree's own and the links' (a
        // folder of symbolic links only held a killed run's temporary link, which a run again left).
        Set<Path> candidates = new LinkedHashSet<>(directories);
        destinations.forEach(dest -> candidates.add(dest.getParent()));
        Set<Path> dirs = new LinkedHashSet<>();
        for (Path dir : candidates) {
            if (prepared.stateOf(dir) instanceof RestoreDirectories.Usable
                    && Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                dirs.add(dir);
            }
        }
        begin(dirs);
    }
}
