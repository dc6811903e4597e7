package dev.ballast.backup.pack;

import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.UnsupportedCapabilityException;
import dev.ballast.storage.object.ListEntry;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.VersionEntry;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * {@link BlobRepository#repair}: run under its write lock. restic's {@code repair index} and
 * {@code repair packs} in one pass: the index is made to name exactly the intact blobs of the packs
 * in the store, so that the next backup stores every other blob again from its source (and the
 * snapshots naming them read again: IDs are content-addressed).
 *
 * <p>Write order, so that a kill at any point leaves a store every command reads: (1) new packs holding
 * the intact blobs of the damaged packs; (2) new index files naming every blob kept; (3) the index files
 * read at the start deleted; (4) the damaged packs deleted. Until (3) the old index files still name
 * the damaged and missing packs, which readers treat as before; running the repair again finishes it.
 */
final class Salvage {
    private final BlobRepository repo;

    Salvage(BlobRepository repo) {
        this.repo = repo;
    }

    RepairReport repair(Predicate<String> readData) {
        repo.flushLocked();
        repo.reloadIndex(true);
        // 0. a missing pack whose earlier version the store still keeps was deleted by hand (a prune
        // deletes every version of a pack): removing the delete markers above it brings it back whole
        List<String> restored = undelete(new TreeSet<>(repo.state.missingPacks.keySet()));
        if (!restored.isEmpty()) {
            repo.reloadIndex(true);
        }
        List<CheckReport.Damage> damagedIndex = repo.damagedIndexFiles();
        Set<String> oldFiles = new TreeSet<>(repo.state.indexFiles);
        damagedIndex.forEach(d -> oldFiles.add(d.key()));

        // Packs no intact index file names: indexed from their headers, as a rebuild does.
        Map<String, ListEntry> listed = repo.listPacks();
        PackCheck packCheck = new PackCheck(repo);
        Set<String> fromHeaders = new TreeSet<>(repo.state.fromHeaders);
        List<String> unreadable = new ArrayList<>();
        List<CheckReport.Damage> headerDamage = new ArrayList<>();
        for (ListEntry e : listed.values()) {
            if (repo.state.packBlobs.containsKey(e.key())) {
                continue;
            }
            try {
                repo.state.register(e.key(), packCheck.header(e.key(), e.size()));
                fromHeaders.add(e.key());
            } catch (IntegrityException ex) {
                IntegrityException.rethrowIfInStoreIndex(ex); // the store's index, not what was read
                headerDamage.add(new CheckReport.Damage(e.key(), null, ex.getMessage()));
                unreadable.add(e.key());
            } catch (ObjectNotFoundException gone) {
                // deleted since the listing
            }
        }

        CheckReport check = packCheck.check(readData);
        List<CheckReport.Damage> damage = new ArrayList<>(check.damage());
        damage.addAll(headerDamage);
        damage.sort(java.util.Comparator.comparing(CheckReport.Damage::key));
        Set<String> missing = new TreeSet<>(repo.state.missingPacks.keySet());
        Set<String> damagedPacks = new TreeSet<>();
        for (CheckReport.Damage d : check.damage()) {
            if (d.key().startsWith(BlobRepository.DATA_PREFIX) && repo.state.packBlobs.containsKey(d.key())) {
                damagedPacks.add(d.key());
            }
        }
        if (missing.isEmpty() && damagedPacks.isEmpty() && fromHeaders.isEmpty() && damagedIndex.isEmpty()) {
            return new RepairReport(
                    0, List.of(), restored, List.of(), List.of(), 0, check.packsRead(), damage, unreadable);
        }

        // 1. the intact blobs of each damaged pack, each opened and checked, copied into new packs
        // What the check found damaged, chunk by chunk; a pack damaged as a whole in another way (missing,
        // its header, its size) has no such list: what opens of it is kept, nothing is expected.
        Map<String, @org.jspecify.annotations.Nullable Set<BlobId>> damagedBlobs = new java.util.HashMap<>();
        for (CheckReport.Damage d : check.damage()) {
            if (d.blob() != null) {
                damagedBlobs.computeIfAbsent(d.key(), k -> new HashSet<>()).add(d.blob());
            }
        }
        for (CheckReport.Damage d : check.damage()) {
            if (d.blob() == null && !d.reason().startsWith(CheckReport.Damage.BYTES_DAMAGED)) {
                damagedBlobs.put(d.key(), null);
            }
        }
        Map<String, List<BlobLocation>> written = copyIntact(damagedPacks, damagedBlobs);
        // 2. index files naming every blob kept
        Map<String, List<BlobLocation>> next = new TreeMap<>(repo.state.packBlobs);
        next.keySet().removeAll(damagedPacks);
        next.putAll(written);
        Set<BlobId> kept = new HashSet<>();
        next.values().forEach(blobs -> blobs.forEach(b -> kept.add(b.id())));
        Set<BlobId> gone = new HashSet<>();
        for (String pack : damagedPacks) {
            repo.state.packBlobs.get(pack).forEach(b -> gone.add(b.id()));
        }
        repo.state.missingPacks.values().forEach(blobs -> blobs.forEach(b -> gone.add(b.id())));
        gone.removeAll(kept);
        Set<String> newFiles = new HashSet<>(next.isEmpty() ? List.of() : IndexWrite.write(repo, next));
        // 3. the index files read at the start (and the damaged ones), 4. the damaged packs
        List<String> replaced = new ArrayList<>();
        for (String file : oldFiles) {
            if (!newFiles.contains(file)) {
                Repack.deleteAllVersions(repo, file);
            }
        }
        damagedIndex.forEach(d -> replaced.add(d.key()));
        for (String pack : damagedPacks) {
            Repack.deleteAllVersions(repo, pack);
        }
        repo.reloadIndex(true);
        return new RepairReport(
                fromHeaders.size(),
                replaced,
                restored,
                List.copyOf(missing),
                List.copyOf(damagedPacks),
                gone.size(),
                check.packsRead(),
                damage,
                unreadable);
    }

    /**
     * New packs holding every blob of {@code packs} that opens and matches its ID and no other pack
     * holds, read pack by pack.
     */
    private Map<String, List<BlobLocation>> copyIntact(
            Set<String> packs, Map<String, @org.jspecify.annotations.Nullable Set<BlobId>> damagedBlobs) {
        // Blobs another pack holds are not copied (a repair killed after writing its new packs left them).
        Set<BlobId> elsewhere = new HashSet<>();
        repo.state.packBlobs.forEach((pack, blobs) -> {
            if (!packs.contains(pack)) {
                blobs.forEach(b -> elsewhere.add(b.id()));
            }
        });
        PackCopy copy = new PackCopy(repo);
        for (String pack : packs) {
            // What the check found intact in this pack: each must open again now, or the reads disagree
            Set<BlobId> intact = new HashSet<>();
            if (!damagedBlobs.containsKey(pack) || damagedBlobs.get(pack) != null) {
                for (BlobLocation b : repo.state.packBlobs.get(pack)) {
                    if (!elsewhere.contains(b.id())) {
                        intact.add(b.id());
                    }
                }
                intact.removeAll(damagedBlobs.getOrDefault(pack, Set.of()));
            }
            copyPack(pack, elsewhere, copy);
            intact.removeAll(elsewhere);
            if (!intact.isEmpty()) {
                throw new StorageUnavailableException(
                        pack,
                        "The pack '" + pack + "' reads differently from one read to the next: " + intact.size()
                                + " chunk(s) of it that opened when the repair checked it did not open when it"
                                + " copied them, so its bytes change on their way, not in the store (a proxy or"
                                + " a link that alters data); nothing was deleted, and the repair stopped. Fix"
                                + " the path to the store, then run it again.",
                        null,
                        false);
            }
        }
        return copy.finish();
    }

    /** Copies the blobs of {@code pack} that open and are not in {@code elsewhere}, adding each to it. */
    private void copyPack(String pack, Set<BlobId> elsewhere, PackCopy copy) {
        byte[] bytes;
        try {
            bytes = repo.reader.whole(pack);
        } catch (ObjectNotFoundException gone) {
            return; // nothing of it can be read: every blob is lost
        } catch (IntegrityException storeRefused) {
            IntegrityException.rethrowIfInStoreIndex(storeRefused); // the store's index, not what was read
            // The store refused the whole object: its own check (the local store's SHA-256 of each
            // 1 MiB block) failed somewhere. Each blob is read by its own range instead, so only the
            // blobs overlapping the damaged stretch are lost, not the whole pack.
            copyBlobByBlob(pack, elsewhere, copy);
            return;
        }
        for (BlobLocation b : repo.state.packBlobs.get(pack)) {
            if (b.end() > bytes.length || elsewhere.contains(b.id())) {
                continue;
            }
            try {
                repo.reader.open(b, bytes, (int) b.offset());
            } catch (IntegrityException damaged) {
                IntegrityException.rethrowIfInStoreIndex(damaged); // the store's index, not what was read
                continue;
            }
            elsewhere.add(b.id());
            copy.append(b, bytes, (int) b.offset());
        }
    }

    /**
     * The stored bytes of {@code b}, which opened: read by its own range, and once more when it does
     * not open (a byte changed on its way is not changed twice; {@link PackReader#reread}).
     *
     * @throws IntegrityException if it does not open twice: it is damaged in the store
     */
    private byte[] openedRange(String pack, BlobLocation b) {
        byte[] stored = repo.reader.range(pack, b.offset(), b.length());
        try {
            repo.reader.open(b, stored, 0);
        } catch (IntegrityException notOpened) {
            IntegrityException.rethrowIfInStoreIndex(notOpened); // the store's index, not what was read
            stored = repo.reader.range(pack, b.offset(), b.length());
            repo.reader.open(b, stored, 0);
        }
        return stored;
    }

    /** Copies each blob of {@code pack} that reads by its own range and opens; the others are lost. */
    private void copyBlobByBlob(String pack, Set<BlobId> elsewhere, PackCopy copy) {
        for (BlobLocation b : repo.state.packBlobs.get(pack)) {
            if (elsewhere.contains(b.id())) {
                continue;
            }
            byte[] stored;
            try {
                stored = openedRange(pack, b);
            } catch (IntegrityException damaged) {
                IntegrityException.rethrowIfInStoreIndex(damaged); // the store's index, not what was read
                continue;
            } catch (ObjectNotFoundException gone) {
                return;
            }
            elsewhere.add(b.id());
            copy.append(b, stored, 0);
        }
    }

    /**
     * For each of {@code missing}: when the store keeps a version of it that is not a delete marker and
     * holds bytes, deletes the delete markers (and lost versions) newer than that version ({@link ObjectStore#versions} lists newest
     * first), so it is the current version again. A store that cannot list or remove single versions
     * restores nothing.
     *
     * @return the packs made current again
     */
    private List<String> undelete(Set<String> missing) {
        List<String> restored = new ArrayList<>();
        for (String pack : missing) {
            try {
                List<VersionEntry> versions = repo.store.versions(pack);
                int kept = -1;
                for (int i = 0; i < versions.size() && kept < 0; i++) {
                    // a version of 0 bytes holds no pack: the local store lists one whose file is lost so
                    if (!versions.get(i).deleteMarker() && versions.get(i).size() > 0) {
                        kept = i;
                    }
                }
                if (kept < 0) {
                    continue;
                }
                for (int i = 0; i < kept; i++) {
                    repo.store.deleteVersion(pack, versions.get(i).versionId());
                }
                restored.add(pack);
            } catch (UnsupportedCapabilityException | ObjectNotFoundException cannot) {
                // no versions to go back to: the pack stays missing and is dropped below
            }
        }
        return restored;
    }
}
