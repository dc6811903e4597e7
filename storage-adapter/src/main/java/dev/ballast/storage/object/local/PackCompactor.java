package dev.ballast.storage.object.local;

import dev.ballast.storage.internal.Sha256;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * One compaction of a {@link LocalObjectStore}'s pack files (see {@link LocalObjectStore#compact()}):
 * packs no content row refers to are deleted first (on a full disk their space is what the copies
 * need), then the referenced contents of packs less than half referenced are copied to the newest
 * pack, their rows moved and the moves journalled in one transaction per 16 MiB, and those packs
 * deleted. Runs under the store's write lock; used once.
 */
final class PackCompactor {
    private final Path root;
    private final VersionIndex writer;
    private final Packs packs;
    private final Journal journal;
    /** Whether every pack holding a byte no content row refers to is rewritten, not only those less than half referenced. */
    private final boolean fully;

    PackCompactor(Path root, VersionIndex writer, Packs packs, Journal journal, boolean fully) {
        this.root = root;
        this.writer = writer;
        this.packs = packs;
        this.journal = journal;
        this.fully = fully;
    }

    /**
     * Compacts once (see {@link LocalObjectStore#compact()} and {@link LocalObjectStore#compactFully()}).
     *
     * @throws dev.ballast.storage.StorageException if the index or a pack file cannot be read or written
     */
    LocalObjectStore.Compaction run() {
        try {
            Map<Long, Long> live = writer.liveBytesByPack();
            long newest = writer.newestPack();
            Set<Long> remove = new TreeSet<>();
            Set<Long> rewrite = new TreeSet<>();
            long reclaimed = 0;
            for (long id : writer.packs()) {
                long length = packLength(id);
                long referenced = live.getOrDefault(id, 0L);
                if (referenced == 0) {
                    remove.add(id);
                    reclaimed += length;
                } else if (fully ? referenced < length : referenced * 2 < length) {
                    rewrite.add(id);
                    reclaimed += length - referenced;
                }
            }
            if (remove.contains(newest) || rewrite.contains(newest)) {
                packs.startNewPack(); // nothing may be appended to a pack about to be deleted
            }
            // Packs nothing refers to go first: on a full disk their space is what the copies below need.
            removePacks(remove);
            int removed = remove.size();
            remove.clear();
            int moved = 0;
            if (!rewrite.isEmpty()) {
                List<VersionIndex.Packed> contents = writer.packedIn(rewrite);
                Set<Long> kept = new HashSet<>();
                int from = 0;
                while (from < contents.size()) {
                    int to = from;
                    long bytes = 0;
                    while (to < contents.size()
                            && (to == from || bytes + contents.get(to).size() <= LocalObjectStore.MAX_QUEUED_BYTES)) {
                        bytes += contents.get(to).size();
                        to++;
                    }
                    moved += copyToNewestPack(contents.subList(from, to), kept);
                    from = to;
                }
                for (long id : rewrite) {
                    if (kept.contains(id)) {
                        reclaimed -= packLength(id) - live.getOrDefault(id, 0L);
                    } else {
                        remove.add(id);
                    }
                }
            }
            removePacks(remove);
            removed += remove.size();
            if (removed > 0) {
                LocalObjectStore.LOG.info(
                        "Compacted '{}': removed {} pack file(s), moved {} content(s), reclaimed {} bytes",
                        root,
                        removed,
                        moved,
                        reclaimed);
            }
            return new LocalObjectStore.Compaction(removed, moved, reclaimed);
        } catch (IOException | SQLException e) {
            try {
                writer.rollback();
            } catch (SQLException ignored) {
                // the connection is unusable; the transaction is gone with it
            }
            packs.batchFailed();
            journal.rolledBack();
            throw LocalObjectStore.unavailable(
                    null, "Compacting the pack files of the local object store '" + root + "'", e);
        }
    }

    /** Forgets the packs {@code ids} in one transaction, then deletes their files. */
    private void removePacks(Set<Long> ids) throws IOException, SQLException {
        if (ids.isEmpty()) {
            return;
        }
        writer.begin();
        for (long id : ids) {
            writer.removePack(id);
        }
        writer.commit();
        for (long id : ids) {
            Files.deleteIfExists(packs.path(id));
            packs.closeReader(id);
        }
    }

    /** A pack file's length, 0 when it is missing. */
    private long packLength(long id) throws IOException {
        try {
            return Files.size(packs.path(id));
        } catch (NoSuchFileException e) {
            return 0;
        }
    }

    /**
     * Copies {@code contents} to the newest pack in one transaction; those that cannot be read stay,
     * and their packs are added to {@code kept}.
     *
     * @return how many were copied
     */
    private int copyToNewestPack(List<VersionIndex.Packed> contents, Set<Long> kept) throws IOException, SQLException {
        writer.begin();
        long pack = packs.beginBatch(writer);
        List<VersionIndex.Packed> copied = new ArrayList<>(contents.size());
        List<Long> offsets = new ArrayList<>(contents.size());
        for (VersionIndex.Packed c : contents) {
            byte[] bytes;
            try {
                bytes = packs.read(c.pack(), c.offset(), (int) c.size());
            } catch (IOException e) {
                LocalObjectStore.LOG.warn(
                        "Compaction left content {} in pack {} of '{}': {}",
                        Sha256.hex(c.address()),
                        c.pack(),
                        root,
                        e.toString());
                kept.add(c.pack());
                continue;
            }
            offsets.add(packs.add(bytes));
            copied.add(c);
        }
        packs.writeBatch();
        packs.force();
        for (int i = 0; i < copied.size(); i++) {
            writer.movePacked(copied.get(i), pack, offsets.get(i));
            journal.locate(copied.get(i).address(), pack, offsets.get(i));
        }
        journal.write();
        journal.force();
        Journal.Position at = journal.record(writer);
        writer.commit();
        journal.committed(at);
        return copied.size();
    }
}
