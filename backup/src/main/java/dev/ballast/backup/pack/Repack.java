package dev.ballast.backup.pack;

import dev.ballast.backup.Advice;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.UnsupportedCapabilityException;
import dev.ballast.storage.object.ListEntry;
import dev.ballast.storage.object.ListRequest;
import dev.ballast.storage.object.VersionEntry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Stream;

/** One prune of a {@link BlobRepository}: run under its write lock, after a flush. */
final class Repack {
    private final BlobRepository repo;
    /** Whether only to plan: read the index and the listing, write and delete nothing. */
    private final boolean dryRun;
    /** Live blobs the index names in several packs, none of whose copies opened ({@link #homes}). */
    private final java.util.concurrent.atomic.AtomicLong unopenable = new java.util.concurrent.atomic.AtomicLong();

    Repack(BlobRepository repo, boolean dryRun) {
        this.repo = repo;
        this.dryRun = dryRun;
    }

    PruneStats prune(Set<BlobId> live, Predicate<PackFile> keep, MaxUnused maxUnused) {
        List<CheckReport.Damage> damaged = repo.damagedIndexFiles();
        if (!damaged.isEmpty()) {
            throw new IllegalStateException(
                    "Prune refuses to run while index file " + damaged.get(0).key()
                            + " is damaged: the blobs it names would be taken for dead. Rebuild the index first.");
        }
        // The index as it is now in the store: other processes may have added index files since open.
        Map<String, List<BlobLocation>> indexed = new TreeMap<>();
        List<String> replaced = new ArrayList<>();
        for (String file : repo.store.list(BlobRepository.INDEX_PREFIX)) {
            Map<String, List<BlobLocation>> packs;
            try {
                packs = repo.readIndexFile(file);
            } catch (ObjectNotFoundException gone) {
                continue;
            }
            packs.forEach(indexed::putIfAbsent);
            replaced.add(file);
        }
        Map<String, ListEntry> listed = new TreeMap<>();
        try (Stream<ListEntry> s = repo.store.listing(ListRequest.prefix(BlobRepository.DATA_PREFIX))) {
            s.filter(e -> !e.commonPrefix() && Packs.isPackKey(e.key())).forEach(e -> listed.put(e.key(), e));
        }

        // Where each live blob stays: see homes. A pack the store lacks is kept named (its loss is check's to
        // report, not prune's to hide) but holds nothing, so it is home to no blob.
        Map<BlobId, String> home = homes(indexed, listed, keep, live);
        Map<String, List<BlobLocation>> keptPacks = new LinkedHashMap<>();
        for (Map.Entry<String, List<BlobLocation>> p : indexed.entrySet()) {
            ListEntry entry = listed.get(p.getKey());
            if (entry == null || keep.test(packFile(entry, true))) {
                keptPacks.put(p.getKey(), p.getValue());
            }
        }
        List<String> delete = new ArrayList<>();
        Map<String, List<BlobLocation>> repack = new LinkedHashMap<>();
        long blobsRemoved = 0;
        long bytesFreed = 0;
        int packsDeleted = 0;
        // packs the caller keeps (its grace period) that would otherwise be deleted or repacked
        int keptYoung = 0;
        // What the indexed packs in the store hold: the live blobs' bytes (each at its home) and the unused bytes
        // of the packs that stay. A pack the store lacks holds nothing.
        long liveBytes = 0;
        long unusedBytes = 0;
        long unusedInYoungDead = 0;
        // of those, the bytes in packs the caller keeps (a backup running now may be writing them): not this
        // prune's to repack, so left out of the share it repacks down to
        long youngLive = 0;
        long youngUnused = 0;
        List<Usage> partlyUsed = new ArrayList<>();
        List<Usage> youngPartlyUsed = new ArrayList<>();
        for (Map.Entry<String, List<BlobLocation>> p : indexed.entrySet()) {
            ListEntry entry = listed.get(p.getKey());
            if (entry == null) {
                continue;
            }
            Usage u = Usage.of(p.getKey(), p.getValue(), liveIn(p.getKey(), p.getValue(), home));
            boolean young = keptPacks.containsKey(p.getKey());
            if (u.liveHere().isEmpty() && young) {
                keptYoung++;
                unusedBytes += u.unusedBytes();
                unusedInYoungDead += u.unusedBytes();
                youngUnused += u.unusedBytes();
            } else if (u.liveHere().isEmpty()) {
                delete.add(p.getKey());
                packsDeleted++;
                blobsRemoved += p.getValue().size();
                bytesFreed += entry.size();
            } else {
                liveBytes += u.liveBytes();
                if (young) {
                    youngLive += u.liveBytes();
                    youngUnused += u.unusedBytes();
                }
                if (u.unusedBlobs() > 0) {
                    unusedBytes += u.unusedBytes();
                    (young ? youngPartlyUsed : partlyUsed).add(u);
                }
            }
        }
        long unusedBeforeRepack = unusedBytes;
        for (Usage u : toRepack(partlyUsed, unusedBytes - youngUnused, liveBytes - youngLive, maxUnused)) {
            repack.put(u.pack(), u.liveHere());
            blobsRemoved += u.unusedBlobs();
            bytesFreed += listed.get(u.pack()).size();
            unusedBytes -= u.unusedBytes();
        }
        if (!youngPartlyUsed.isEmpty()) {
            // those of the young packs a prune without the caller's keeping would have repacked (it would have
            // deleted the young packs holding nothing live, whose bytes then would not count)
            List<Usage> all = new ArrayList<>(partlyUsed);
            all.addAll(youngPartlyUsed);
            for (Usage u : toRepack(all, unusedBeforeRepack - unusedInYoungDead, liveBytes, maxUnused)) {
                if (keptPacks.containsKey(u.pack())) {
                    keptYoung++;
                }
            }
        }
        Set<String> deleted = new HashSet<>(delete);
        for (Map.Entry<String, List<BlobLocation>> p : indexed.entrySet()) {
            if (!keptPacks.containsKey(p.getKey())
                    && !repack.containsKey(p.getKey())
                    && !deleted.contains(p.getKey())) {
                keptPacks.put(p.getKey(), p.getValue());
            }
        }
        long storedBytesLeft = liveBytes + unusedBytes;
        // live blobs in no pack in the store, and those no copy of which opens: their backups are damaged
        long liveMissing = live.size() - home.size() + unopenable.get();
        // Packs no index names: a killed run's, or those of a lost index file. Those a prune would delete are
        // looked into first; when a live blob has no home, every one (a kept one holding it means the same lost
        // index file).
        List<ListEntry> unindexed = new ArrayList<>();
        for (ListEntry e : listed.values()) {
            if (!indexed.containsKey(e.key())) {
                unindexed.add(e);
            }
        }
        List<ListEntry> toLook = new ArrayList<>();
        for (ListEntry e : unindexed) {
            if (liveMissing > 0 || !keep.test(packFile(e, false))) {
                toLook.add(e);
            }
        }
        Set<String> mayHoldLive = unindexedHoldingLive(toLook, live, home, indexed, liveMissing);
        for (ListEntry e : unindexed) {
            if (keep.test(packFile(e, false))) {
                keptYoung++;
            } else if (!mayHoldLive.contains(e.key())) {
                delete.add(e.key());
                packsDeleted++;
                bytesFreed += e.size();
            }
        }
        if (delete.isEmpty() && repack.isEmpty()) {
            return new PruneStats(
                    0, 0, 0, keptPacks.size(), 0, 0, 0, liveMissing, keptYoung, unusedBytes, storedBytesLeft);
        }
        if (dryRun) {
            // What the writes below would do, estimated: the repacked live blobs in packs of the usual size.
            long repackedBytes = 0;
            int repackedBlobs = 0;
            for (List<BlobLocation> blobs : repack.values()) {
                for (BlobLocation b : blobs) {
                    repackedBytes += b.length();
                    repackedBlobs++;
                }
            }
            int newPacks = repack.isEmpty()
                    ? 0
                    : (int) Math.max(1, (repackedBytes + repo.options.packSize() - 1) / repo.options.packSize());
            long written = repackedBlobs == 0
                    ? 0
                    : Packs.sizeOf(repackedBytes, repackedBlobs) + (newPacks - 1L) * Packs.sizeOf(0, 0);
            return new PruneStats(
                    packsDeleted,
                    repack.size(),
                    newPacks,
                    keptPacks.size(),
                    blobsRemoved,
                    bytesFreed - written,
                    0,
                    liveMissing,
                    keptYoung,
                    unusedBytes,
                    storedBytesLeft);
        }

        // 1. new packs holding the live blobs of the packs repacked (each read, opened and checked first)
        Map<String, List<BlobLocation>> written = copy(repack);
        for (Map.Entry<String, List<BlobLocation>> p : written.entrySet()) {
            bytesFreed -= Packs.sizeOf(
                    p.getValue().stream().mapToLong(BlobLocation::length).sum(),
                    p.getValue().size());
        }
        // 2. index files naming every blob kept; 3. the index files they replace deleted
        Map<String, List<BlobLocation>> next = new LinkedHashMap<>(keptPacks);
        next.putAll(written);
        Set<String> newFiles = new HashSet<>(next.isEmpty() ? List.of() : IndexWrite.write(repo, next));
        // Readers in this process see the new places before any old pack goes (reads do not take the lock).
        swapIndex(next, newFiles);
        int replacedCount = 0;
        for (String file : replaced) {
            if (!newFiles.contains(file)) {
                deleteAllVersions(file);
                replacedCount++;
            }
        }
        // 4. the packs no index names any more
        for (String pack : delete) {
            deleteAllVersions(pack);
        }
        for (String pack : repack.keySet()) {
            deleteAllVersions(pack);
        }
        return new PruneStats(
                packsDeleted,
                repack.size(),
                written.size(),
                keptPacks.size(),
                blobsRemoved,
                bytesFreed,
                replacedCount,
                liveMissing,
                keptYoung,
                unusedBytes,
                storedBytesLeft);
    }

    /** The blobs of {@code pack} that live there ({@code home}), each once. */
    private static List<BlobLocation> liveIn(String pack, List<BlobLocation> blobs, Map<BlobId, String> home) {
        List<BlobLocation> liveHere = new ArrayList<>();
        Set<BlobId> here = new HashSet<>();
        for (BlobLocation b : blobs) {
            if (pack.equals(home.get(b.id())) && here.add(b.id())) {
                liveHere.add(b);
            }
        }
        return liveHere;
    }

    /**
     * What a pack the index names holds.
     *
     * @param liveHere the live blobs it is home to, each once
     * @param liveBytes their stored bytes
     * @param unusedBytes the stored bytes of its other blobs: dead, or live and at home elsewhere
     * @param unusedBlobs how many other blobs it holds
     */
    record Usage(String pack, List<BlobLocation> liveHere, long liveBytes, long unusedBytes, int unusedBlobs) {
        static Usage of(String pack, List<BlobLocation> blobs, List<BlobLocation> liveHere) {
            long all = blobs.stream().mapToLong(BlobLocation::length).sum();
            long liveBytes = liveHere.stream().mapToLong(BlobLocation::length).sum();
            return new Usage(pack, liveHere, liveBytes, all - liveBytes, blobs.size() - liveHere.size());
        }
    }

    /** The order in which packs holding live and unused blobs are repacked: see {@link #toRepack}. */
    static final Comparator<Usage> REPACK_ORDER = Comparator.comparingLong(Usage::unusedBytes)
            .reversed()
            .thenComparingLong(Usage::liveBytes)
            .thenComparing(Usage::pack);

    /**
     * Of {@code partlyUsed}, packs holding live and unused blobs, those to repack: the most unused bytes
     * first (then the fewest live bytes, then key order), until the unused bytes left are within
     * {@code maxUnused} of the bytes the packs hold after the prune.
     *
     * @param unusedBytes the unused bytes of every pack that stays before any is repacked (those of
     *     {@code partlyUsed} among them)
     * @param liveBytes the bytes of every live blob in the packs, each once
     */
    static List<Usage> toRepack(List<Usage> partlyUsed, long unusedBytes, long liveBytes, MaxUnused maxUnused) {
        List<Usage> order = new ArrayList<>(partlyUsed);
        order.sort(REPACK_ORDER);
        List<Usage> chosen = new ArrayList<>();
        long left = unusedBytes;
        for (Usage u : order) {
            if (maxUnused.allows(left, liveBytes + left)) {
                break;
            }
            chosen.add(u);
            left -= u.unusedBytes();
        }
        return chosen;
    }

    /**
     * The pack each live blob stays in: of the packs in the store that the index names, those the caller
     * keeps first, then in key order, the first holding it. Where several hold it (a blob stored again
     * after an index file or pack was lost, and the old pack indexed again by a repair), each copy is read
     * in that order and the first that opens is chosen: a damaged copy that sorts first must not make
     * the prune delete the only intact one. A live blob no pack in the store holds has no entry.
     */
    private Map<BlobId, String> homes(
            Map<String, List<BlobLocation>> indexed,
            Map<String, ListEntry> listed,
            Predicate<PackFile> keep,
            Set<BlobId> live) {
        List<String> order = new ArrayList<>();
        List<String> rest = new ArrayList<>();
        for (String pack : indexed.keySet()) {
            ListEntry entry = listed.get(pack);
            if (entry != null) {
                (keep.test(packFile(entry, true)) ? order : rest).add(pack);
            }
        }
        order.addAll(rest);
        Map<BlobId, List<BlobLocation>> copies = new java.util.HashMap<>();
        for (String pack : order) {
            for (BlobLocation b : indexed.get(pack)) {
                if (live.contains(b.id())) {
                    List<BlobLocation> at = copies.computeIfAbsent(b.id(), k -> new ArrayList<>(1));
                    if (at.stream().noneMatch(c -> c.pack().equals(pack))) {
                        at.add(b);
                    }
                }
            }
        }
        Map<BlobId, String> home = new java.util.concurrent.ConcurrentHashMap<>();
        List<List<BlobLocation>> several = new ArrayList<>();
        copies.forEach((id, at) -> {
            if (at.size() == 1) {
                home.put(id, at.get(0).pack());
            } else {
                several.add(at);
            }
        });
        try {
            Parallel.run(repo.readExecutor, repo.options.readThreads(), several, at -> {
                for (BlobLocation c : at) {
                    try {
                        repo.reader.read(c);
                        home.put(c.id(), c.pack());
                        return;
                    } catch (IntegrityException | ObjectNotFoundException damaged) {
                        IntegrityException.rethrowIfInStoreIndex(damaged); // the store's index, not what was read
                        // the next copy
                    }
                }
                home.put(at.get(0).id(), at.get(0).pack()); // none opens: the blob is damaged wherever it is
                unopenable.incrementAndGet();
            });
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return home;
    }

    /**
     * Of {@code unindexed}, packs no index file names (those a prune would delete, and all of them when a
     * live blob has no home), the ones to keep: read from each pack's header. A pack whose header does
     * not open may hold a live blob: it is kept while {@code liveMissing} (live blobs with no home, or none
     * of whose copies opens) is above zero, and deleted otherwise (nothing needed can be only there). A pack holding a live blob that has no home (an index
     * file is missing), or another copy of a live blob whose home copy does not open (each such home
     * copy is read), stops the prune: deleting it could delete the only copy that reads, and
     * {@code ballast repair index} indexes it again, after which a prune keeps the copy that opens.
     *
     * @throws PruneRefusedException naming every such pack (the first {@value #PACKS_NAMED}, and how many more)
     */
    private Set<String> unindexedHoldingLive(
            List<ListEntry> unindexed,
            Set<BlobId> live,
            Map<BlobId, String> home,
            Map<String, List<BlobLocation>> indexed,
            long liveMissing) {
        if (unindexed.isEmpty()) {
            return Set.of();
        }
        List<String> damaged = new ArrayList<>();
        Map<String, List<BlobLocation>> found = new PackCheck(repo).headers(unindexed, damaged);
        Map<BlobId, BlobLocation> homeCopies = new java.util.HashMap<>();
        List<String> holdingNeeded = new ArrayList<>();
        long needed = 0;
        for (Map.Entry<String, List<BlobLocation>> p : found.entrySet()) {
            long here = p.getValue().stream()
                    .filter(b -> live.contains(b.id()) && !home.containsKey(b.id()))
                    .count();
            if (here > 0) {
                holdingNeeded.add(p.getKey());
                needed += here;
            }
            for (BlobLocation b : p.getValue()) {
                String at = home.get(b.id());
                if (at != null && !homeCopies.containsKey(b.id())) {
                    indexed.get(at).stream()
                            .filter(c -> c.id().equals(b.id()))
                            .findFirst()
                            .ifPresent(c -> homeCopies.put(b.id(), c));
                }
            }
        }
        if (!holdingNeeded.isEmpty()) {
            throw new PruneRefusedException(unindexedPacks(holdingNeeded) + " " + needed
                    + " chunk(s) that snapshots need (an index file is missing), so nothing was pruned; run"
                    + " " + Advice.REPAIR_INDEX.text() + " to index " + (holdingNeeded.size() == 1 ? "it" : "them")
                    + " again, then prune");
        }
        Set<BlobId> unreadable = java.util.concurrent.ConcurrentHashMap.newKeySet();
        try {
            Parallel.run(repo.readExecutor, repo.options.readThreads(), List.copyOf(homeCopies.values()), c -> {
                try {
                    repo.reader.read(c);
                } catch (IntegrityException | ObjectNotFoundException e) {
                    IntegrityException.rethrowIfInStoreIndex(e); // the store's index, not what was read
                    unreadable.add(c.id());
                }
            });
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        if (!unreadable.isEmpty()) {
            List<String> holdingCopies = new ArrayList<>();
            long copies = 0;
            for (Map.Entry<String, List<BlobLocation>> p : found.entrySet()) {
                long here = p.getValue().stream()
                        .filter(b -> unreadable.contains(b.id()))
                        .count();
                if (here > 0) {
                    holdingCopies.add(p.getKey());
                    copies += here;
                }
            }
            if (!holdingCopies.isEmpty()) {
                throw new PruneRefusedException(unindexedPacks(holdingCopies) + " another copy of " + copies
                        + " chunk(s) whose indexed copy does not open (an index file is missing), so nothing was"
                        + " pruned; run " + Advice.REPAIR_INDEX.text() + " to index "
                        + (holdingCopies.size() == 1 ? "it" : "them")
                        + " again, then prune");
            }
        }
        // A header that does not open hides what the pack holds. While every live blob has a home in the store,
        // nothing a snapshot needs can be only there, and the pack goes as a killed run's would; while one is
        // missing, it may be there, and the pack is kept.
        return liveMissing > 0 ? Set.copyOf(damaged) : Set.of();
    }

    /** At most this many packs are named in a refusal; the rest are counted. */
    static final int PACKS_NAMED = 5;

    /**
     * The subject of a refusal naming {@code packs} no index file names, with its verb: "pack A, which
     * no index file names, holds", "packs A and B, which no index file names, hold", or, past {@value
     * #PACKS_NAMED}, "7 packs (A, B, C, D, E and 2 more), which no index file names, hold".
     */
    static String unindexedPacks(List<String> packs) {
        if (packs.size() == 1) {
            return "pack " + packs.get(0) + ", which no index file names, holds";
        }
        List<String> shown = packs.subList(0, Math.min(packs.size(), PACKS_NAMED));
        String names = packs.size() > PACKS_NAMED
                ? String.join(", ", shown) + " and " + (packs.size() - PACKS_NAMED) + " more"
                : String.join(", ", shown.subList(0, shown.size() - 1)) + " and " + shown.get(shown.size() - 1);
        return (packs.size() > PACKS_NAMED ? packs.size() + " packs (" + names + ")" : "packs " + names)
                + ", which no index file names, hold";
    }

    /** Makes the in-memory index that of {@code next}, with no moment in which a kept blob is missing. */
    private void swapIndex(Map<String, List<BlobLocation>> next, Set<String> newFiles) {
        Set<BlobId> kept = new HashSet<>();
        for (Map.Entry<String, List<BlobLocation>> p : next.entrySet()) {
            repo.state.packBlobs.put(p.getKey(), List.copyOf(p.getValue()));
            for (BlobLocation b : p.getValue()) {
                if (kept.add(b.id())) {
                    repo.state.index.put(b.id(), b);
                }
            }
        }
        repo.state.index.keySet().retainAll(kept);
        repo.state.packBlobs.keySet().retainAll(next.keySet());
        repo.state.indexFiles.retainAll(newFiles);
        repo.state.indexFiles.addAll(newFiles);
    }

    private Map<String, List<BlobLocation>> copy(Map<String, List<BlobLocation>> repack) {
        PackCopy copy = new PackCopy(repo);
        for (List<BlobLocation> blobs : repack.values()) {
            for (PackReader.Span span : PackReader.spans(blobs)) {
                PackReader.Window window = repo.reader.spanBytes(span);
                boolean reread = false;
                List<BlobLocation> inSpan = span.blobs();
                for (int i = 0; i < inSpan.size(); i++) {
                    BlobLocation b = inSpan.get(i);
                    try {
                        // checked before it is copied: a damaged blob stops the prune
                        repo.reader.open(b, window.bytes(), (int) (b.offset() - window.offset()));
                    } catch (IntegrityException notOpened) {
                        IntegrityException.rethrowIfInStoreIndex(notOpened); // the store's index, not what was read
                        if (reread) {
                            throw notOpened;
                        }
                        // a byte changed on its way here is not changed twice (PackReader#reread)
                        reread = true;
                        window = repo.reader.reread(
                                new PackReader.Span(b.offset(), span.end(), inSpan.subList(i, inSpan.size())));
                        repo.reader.open(b, window.bytes(), (int) (b.offset() - window.offset()));
                    }
                    copy.append(b, window.bytes(), (int) (b.offset() - window.offset()));
                }
            }
        }
        return copy.finish();
    }

    private static PackFile packFile(ListEntry e, boolean indexed) {
        Instant at = e.lastModified() == null ? Instant.EPOCH : e.lastModified();
        return new PackFile(e.key(), e.size(), at, indexed);
    }

    /** Deletes every version of {@code key}, or, where single versions cannot be removed, deletes it. */
    void deleteAllVersions(String key) {
        deleteAllVersions(repo, key);
    }

    static void deleteAllVersions(BlobRepository repo, String key) {
        repo.reader.forget(key);
        List<VersionEntry> versions = repo.store.versions(key);
        try {
            for (VersionEntry v : versions) {
                repo.store.deleteVersion(key, v.versionId());
            }
        } catch (UnsupportedCapabilityException e) {
            repo.store.delete(key);
        }
    }
}
