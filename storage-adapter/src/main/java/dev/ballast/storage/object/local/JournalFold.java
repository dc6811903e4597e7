package dev.ballast.storage.object.local;

import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.sql.SQLException;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Folds a {@link LocalObjectStore}'s journal into one file, as the store's own maintenance: every writer
 * that opens a store adds a journal file, and once there are more than {@value #FOLD_AT} the first writer
 * to open it writes every version of its index (with where its content is) to a new file, a base, and
 * deletes the files before it. Static.
 *
 * <p>Crash safety, step by step: the base is written under a temporary name ({@code NNNNNNNN.log.tmp},
 * which nothing reads and the next fold deletes) and synced; renamed to {@code NNNNNNNN.log} and the
 * directory synced; the index's journal position set to the base's end in one transaction; then the
 * files before it deleted. A base names the index position whose state it holds, so an index killed
 * before its transaction (still at that position) is current, not older ({@link OlderIndex}); a rebuild
 * starts at the newest base and ignores the files before it, so files a kill left undeleted change
 * nothing. A kill at any step leaves a store that opens and loses nothing.
 */
final class JournalFold {
    private JournalFold() {}

    /** A journal of more files than this is folded by the first writer that opens the store. */
    static final int FOLD_AT = 8;

    static final String TEMPORARY = ".tmp";

    /** Where a fold has got to, for tests that stop it there as a kill would. */
    @FunctionalInterface
    interface Steps {
        void reached(String step) throws IOException;
    }

    static final Steps NO_STEPS = step -> {};

    /** Folds the journal of the store in {@code root} when it holds more than {@value #FOLD_AT} files. */
    static void foldIfLong(Path root, VersionIndex writer, Journal journal, Steps steps)
            throws IOException, SQLException {
        if (JournalFiles.files(root.resolve(Journal.DIR)).size() > FOLD_AT) {
            fold(root, writer, journal, steps);
            LocalObjectStore.LOG.info("Folded the journal of '{}' into one file", root);
        }
    }

    /** Writes a base holding the index's state at its position, records it, and deletes the files before it. */
    static void fold(Path root, VersionIndex writer, Journal journal, Steps steps) throws IOException, SQLException {
        Journal.Position at;
        writer.begin();
        try {
            Journal.Position through = writer.journalPosition();
            at = writeBase(root, writer, journal, through, steps);
            writer.recordJournalPosition(at);
            writer.commit();
        } catch (IOException | SQLException | RuntimeException e) {
            try {
                writer.rollback();
            } catch (SQLException | RuntimeException r) {
                e.addSuppressed(r); // the failure that stopped the fold is the one to report
            }
            throw e;
        }
        steps.reached("committed");
        deleteBefore(root, at.file(), steps);
    }

    /**
     * Writes every version of {@code index} to a new journal file numbered above every file present and
     * above {@code through}'s, whose BASE frame names {@code through} (null: a state of its own). Called
     * inside a transaction of {@code index}'s writer, so no other writer of the process writes frames.
     *
     * @return where the base's frames end, to record in the index
     */
    static Journal.Position writeBase(
            Path root, VersionIndex index, Journal journal, Journal.@Nullable Position through, Steps steps)
            throws IOException, SQLException {
        Path dir = root.resolve(Journal.DIR);
        Files.createDirectories(dir);
        journal.startNewFile();
        deleteTemporaryFiles(dir);
        long id = through == null ? 1 : through.file() + 1;
        for (long existing : JournalFiles.files(dir).keySet()) {
            id = Math.max(id, existing + 1);
        }
        Path file = dir.resolve(String.format("%08x.log", id));
        Path temporary = file.resolveSibling(file.getFileName() + TEMPORARY);
        long end;
        try (FileChannel channel = FileChannel.open(
                temporary,
                StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS)) {
            DataOutputStream out =
                    new DataOutputStream(new BufferedOutputStream(Channels.newOutputStream(channel), 1 << 16));
            Journal.frame(out, Journal.headerPayload(journal.inlineThreshold()));
            Journal.frame(
                    out,
                    ByteBuffer.allocate(17)
                            .put(Journal.BASE)
                            .putLong(through == null ? 0 : through.file())
                            .putLong(through == null ? 0 : through.offset())
                            .array());
            index.forEachVersion(v -> Journal.frame(out, Journal.versionPayload(v)));
            out.flush();
            end = channel.position();
            Journal.frame(out, Journal.commitPayload(end));
            out.flush();
            channel.force(false);
        }
        steps.reached("written");
        Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE);
        Blobs.syncDirectory(dir);
        steps.reached("renamed");
        return new Journal.Position(id, end);
    }

    /** Deletes the journal files numbered below {@code base}, which it supersedes. */
    static void deleteBefore(Path root, long base, Steps steps) throws IOException {
        Path dir = root.resolve(Journal.DIR);
        for (Map.Entry<Long, Path> f : JournalFiles.files(dir).headMap(base).entrySet()) {
            Files.deleteIfExists(f.getValue());
            steps.reached("deleted " + f.getValue().getFileName());
        }
        Blobs.syncDirectory(dir);
    }

    private static void deleteTemporaryFiles(Path dir) throws IOException {
        try (DirectoryStream<Path> left = Files.newDirectoryStream(dir, "*.log" + TEMPORARY)) {
            for (Path f : left) {
                Files.deleteIfExists(f);
            }
        }
    }
}
