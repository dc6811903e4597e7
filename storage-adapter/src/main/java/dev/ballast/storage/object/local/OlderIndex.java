package dev.ballast.storage.object.local;

import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.internal.Sha256;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Tells an index older than the store's journal from the current one when a store is opened: an older
 * copy of {@code index.db} put in place of the current one (a store directory restored from a copy of
 * just that file, a disk handing back an old block) would otherwise show an older state of the store as
 * the current one, and its writer would delete what newer versions need (pack files its rows do not
 * name, contents only versions it lacks still reference). Static.
 *
 * <p>Every change the index commits is in the journal first, and the journal's COMMIT marker follows
 * the index's commit, so the index holds the effect of the journal's newest committed frame: that
 * version (unless a later frame removed it), not that removed version, that content where that move put
 * it. The newest committed frames are read back from the end of the journal, and the first of them
 * whose effect decides is compared with the index; an older index lacks it. The frames after the last
 * COMMIT marker (a writer killed between its journal and its commit or before its marker, or one
 * committing now) decide nothing, and may have removed a version or moved a content already, so a kill
 * -9 is never taken for an older index. A writer may also write and commit between the journal's
 * reading and the index's: an index found lacking is believed only when the journal is as it was read
 * (each journal file's length), else looked at again. The cost is reading the end of the newest journal
 * file or two and an index lookup.
 *
 * <p>That is the check of an index written before positions were recorded. An index that records the
 * journal position it reached ({@link Journal.Position}) is compared exactly ({@link #compare}): behind
 * its journal (refused as older), or with a journal shorter than it (a journal file cut short, or an
 * older journal restored: refused too, since that journal could no longer rebuild it, and
 * {@link IndexRepair} keeps the index and writes the journal anew from it).
 */
final class OlderIndex {
    private OlderIndex() {}

    /** The end of a journal file read: its committed frames are near its end. */
    static final int TAIL_BYTES = 256 * 1024;

    /**
     * At most this many journal files are read, newest first, for a committed frame that decides. A run
     * that leaves nothing behind (a prune with nothing to delete writes and removes its run marker)
     * writes a journal file none of whose frames decides; with 4 here, four such runs after the copy
     * hid an older index again (a tester's: an hourly prune, then the older copy put back, then a prune
     * that deleted the pack the newest snapshot needed). Journal files of such runs are a few hundred
     * bytes each.
     */
    static final int MAX_FILES = 1024;

    /** A journal that changes under every look (a writer busy in it) is taken to be followed by its index. */
    private static final int MAX_LOOKS = 5;

    /**
     * Refuses the index {@code index} of the store in {@code root} when it lacks the effect of the
     * journal's newest committed change.
     *
     * @throws IntegrityException naming the index file and the change it lacks
     */
    static void refuse(Path root, VersionIndex index) throws SQLException {
        Path dir = root.resolve(Journal.DIR);
        Journal.Position position = index.journalPosition();
        if (position != null) {
            refuseAt(root, index, position);
            return;
        }
        String lacking = null;
        try {
            for (int look = 0; look < MAX_LOOKS && lacking == null; look++) {
                Map<Long, Long> before = newestLengths(dir);
                String found = lacking(dir, index);
                if (found == null) {
                    return;
                }
                if (newestLengths(dir).equals(before)) {
                    lacking = found;
                }
            }
        } catch (IOException e) {
            return; // a journal that cannot be read tells nothing here; a rebuild reports it
        }
        if (lacking == null) {
            return;
        }
        throw older(root, lacking);
    }

    private static IntegrityException older(Path root, String lacking) {
        return new IntegrityException(
                LocalObjectStore.INDEX_FILE,
                "The index (" + LocalObjectStore.INDEX_FILE + ") of the local object store '" + root
                        + "' is older than its journal: it lacks " + lacking
                        + ", which the journal records as committed (as when an older copy of "
                        + LocalObjectStore.INDEX_FILE + " is put in place of the current one); rebuild it from the"
                        + " journal (LocalObjectStore.rebuildIndex, 'ballast repair index') before the store is"
                        + " read or written",
                null);
    }

    /** How an index that records its journal position stands to the journal. */
    enum Standing {
        /** The journal's newest committed change is the one the index reached. */
        CURRENT,
        /** The journal records changes committed after the index's position: an older index. */
        BEHIND,
        /** The journal ends before the index's position: a journal file cut short, or an older journal. */
        SHORTER
    }

    /** The standing and, unless current, what the journal holds where the index's position is. */
    record Verdict(Standing standing, String what) {}

    private static void refuseAt(Path root, VersionIndex index, Journal.Position position) throws SQLException {
        Verdict verdict = null;
        try {
            // Between two reads of the position, so that a commit meanwhile is not taken for a difference: the
            // journal's frames are synced before the index commits, its markers written after.
            for (int look = 0; look < MAX_LOOKS && verdict == null; look++) {
                Verdict found = compare(root.resolve(Journal.DIR), position);
                Journal.Position again = index.journalPosition();
                if (position.equals(again)) {
                    verdict = found;
                } else if (again == null) {
                    return;
                } else {
                    position = again;
                }
            }
        } catch (IOException e) {
            return; // a journal that cannot be read tells nothing here; a rebuild reports it
        }
        if (verdict == null || verdict.standing() == Standing.CURRENT) {
            return;
        }
        if (verdict.standing() == Standing.BEHIND) {
            String lacking;
            try {
                lacking = lacking(root.resolve(Journal.DIR), index);
            } catch (IOException e) {
                lacking = null;
            }
            throw older(
                    root,
                    (lacking == null ? "the changes after journal position " + position : lacking) + " ("
                            + verdict.what() + ")");
        }
        throw new IntegrityException(
                LocalObjectStore.INDEX_FILE,
                "The journal of the local object store '" + root + "' ends before its index: the index reached"
                        + " journal position " + position + " but " + verdict.what()
                        + " (a journal file cut short or deleted, or "
                        + Journal.DIR + "/ restored from an older copy); the index is the newer record, and"
                        + " LocalObjectStore.rebuildIndex ('ballast repair index') keeps it as it is and writes the"
                        + " journal anew from it",
                null);
    }

    /**
     * How the index at {@code position} stands to the journal in {@code dir}: behind it when a file
     * numbered above the position's has a committed change (or a base of a later state), or the
     * position's file has a COMMIT marker naming a later offset; shorter when the position's file is
     * missing or ends before the position (and no base holds the position's state); else current.
     */
    static Verdict compare(Path dir, Journal.Position position) throws IOException {
        String notAFile = null;
        for (Map.Entry<Long, Path> f : JournalFiles.files(dir).descendingMap().entrySet()) {
            long id = f.getKey();
            if (id < position.file()) {
                break;
            }
            String name = f.getValue().getFileName().toString();
            String kind = JournalFiles.notARegularFile(f.getValue());
            if (kind != null) {
                // Never opened (a FIFO's open would wait forever): no journal file, as if it were missing.
                if (notAFile == null) {
                    notAFile = "journal file " + name + " is " + kind + ", not a journal file";
                }
                continue;
            }
            if (id == position.file()) {
                long size = Files.size(f.getValue());
                if (size < position.offset()) {
                    return new Verdict(
                            Standing.SHORTER,
                            "journal file " + name + " ends at byte " + size + ", before that position");
                }
                JournalFiles.FileContents contents = JournalFiles.read(f.getValue(), position.offset());
                return contents.lastCommit() > position.offset()
                        ? new Verdict(
                                Standing.BEHIND,
                                "journal file " + name + " records changes committed after position " + position
                                        + ", to byte " + contents.lastCommit())
                        : current(notAFile);
            }
            JournalFiles.FileContents contents = JournalFiles.read(f.getValue());
            Journal.Position base = contents.base();
            if (base != null) {
                int c = base.file() == 0 ? 1 : base.compareTo(position);
                return c > 0
                        ? new Verdict(
                                Standing.BEHIND,
                                "journal file " + name + " holds the state of a position later than " + position)
                        : c == 0
                                ? current(notAFile)
                                : new Verdict(
                                        Standing.SHORTER,
                                        "journal file " + name + " holds the state of an earlier position (" + base
                                                + ")");
            }
            if (contents.lastCommit() >= 0) {
                return new Verdict(
                        Standing.BEHIND,
                        "journal file " + name + " records changes committed after position " + position);
            }
        }
        return new Verdict(
                Standing.SHORTER, notAFile != null ? notAFile : "journal file " + position.fileName() + " is missing");
    }

    /**
     * Current, unless a journal file at or after the index's position is no regular file (a directory, FIFO
     * or symbolic link in its place): the journal then cannot be appended to or read back past it, and ends
     * there as a journal file deleted would.
     */
    private static Verdict current(@Nullable String notAFile) {
        return notAFile == null ? new Verdict(Standing.CURRENT, "") : new Verdict(Standing.SHORTER, notAFile);
    }

    /** The lengths of the newest journal files, by number: what a writer changes first. */
    private static Map<Long, Long> newestLengths(Path dir) throws IOException {
        Map<Long, Long> lengths = new HashMap<>();
        for (Map.Entry<Long, Path> f : JournalFiles.files(dir).descendingMap().entrySet()) {
            if (lengths.size() > MAX_FILES) {
                break;
            }
            lengths.put(f.getKey(), Files.size(f.getValue()));
        }
        return lengths;
    }

    /** What of the journal's newest committed changes the index lacks; null when it lacks nothing found. */
    private static @Nullable String lacking(Path dir, VersionIndex index) throws IOException, SQLException {
        Set<String> removedLater = new HashSet<>();
        Set<String> placedLater = new HashSet<>();
        int read = 0;
        for (Map.Entry<Long, Path> f : JournalFiles.files(dir).descendingMap().entrySet()) {
            if (read++ == MAX_FILES) {
                return null;
            }
            long size = Files.size(f.getValue());
            JournalFiles.FileContents contents = JournalFiles.read(f.getValue(), Math.max(0, size - TAIL_BYTES));
            for (JournalFiles.Frame frame : contents.pending()) {
                if (frame.type() == Journal.REMOVE) {
                    removedLater.add(frame.versionId());
                } else if (frame.address() != null) {
                    placedLater.add(Sha256.hex(frame.address()));
                }
            }
            List<JournalFiles.Frame> committed = contents.frames().subList(0, contents.committed());
            for (int i = committed.size() - 1; i >= 0; i--) {
                JournalFiles.Frame frame = committed.get(i);
                switch (frame.type()) {
                    case Journal.VERSION -> {
                        if (removedLater.contains(frame.versionId())) {
                            continue;
                        }
                        return index.version(frame.key(), frame.versionId()) != null
                                ? null
                                : "version " + frame.versionId() + " of '" + frame.key() + "'";
                    }
                    case Journal.REMOVE -> {
                        if (index.version(frame.key(), frame.versionId()) != null) {
                            return "the removal of version " + frame.versionId() + " of '" + frame.key() + "'";
                        }
                        removedLater.add(frame.versionId());
                    }
                    case Journal.LOCATE -> {
                        if (!placedLater.add(Sha256.hex(frame.address()))) {
                            continue; // placed again since
                        }
                        VersionIndex.Location at = index.location(frame.address());
                        if (at != null) {
                            return at.pack() == frame.pack() && at.offset() == frame.offset()
                                    ? null
                                    : "a content's move to pack " + frame.pack() + " (offset " + frame.offset() + ")";
                        }
                        // no content row left: a later removal took its last version
                    }
                    default -> {
                        // JournalFiles.read hands back no other frame
                    }
                }
            }
            if (size > TAIL_BYTES && !committed.isEmpty()) {
                return null; // the decisive frame may lie before the end read: assume current rather than refuse
            }
        }
        return null;
    }
}
