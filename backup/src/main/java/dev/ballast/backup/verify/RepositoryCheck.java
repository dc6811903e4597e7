package dev.ballast.backup.verify;

import dev.ballast.backup.Advice;
import dev.ballast.backup.BackupException;
import dev.ballast.backup.CheckResult;
import dev.ballast.backup.Messages;
import dev.ballast.backup.content.PackedBlobs;
import dev.ballast.backup.keys.MasterKey;
import dev.ballast.backup.pack.BlobId;
import dev.ballast.backup.pack.BlobLocation;
import dev.ballast.backup.pack.BlobRepository;
import dev.ballast.backup.pack.CheckReport;
import dev.ballast.backup.pack.PackContents;
import dev.ballast.backup.retention.PackedPrune;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.backup.snapshot.Manifests;
import dev.ballast.backup.snapshot.SealedStore;
import dev.ballast.backup.snapshot.SnapshotTime;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.VersionEntry;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The check of a whole repository of format 3, as restic's {@code check}: first the packs against the
 * index ({@link BlobRepository#check}: each present with the size the index implies; the packs the
 * read-data subset picks read whole, every chunk matched against its ID), then every version of every
 * snapshot against what is left: a file one of whose chunks no pack holds intact is named. It writes
 * nothing: unlike {@code verify}, which drops the damaged chunks it finds so the next backup stores them
 * again, a check only reports, so it can run beside backups, on a read-only copy, or with credentials
 * that cannot write.
 *
 * <p>What it finds damaged is looked at again against the index as it is then: a backup that finished
 * during the check (a snapshot newer than the index first read) or a prune that deleted packs (their
 * chunks no longer indexed, the snapshots naming them forgotten) is not damage.
 *
 * <p>Not thread-safe; one check at a time.
 */
public final class RepositoryCheck {
    private RepositoryCheck() {}

    /**
     * Checks the repository in {@code store}, seen through {@code view}, whose master key is {@code key}.
     *
     * @param subset which packs to read whole, or null for none (presence and size only)
     * @param threads packs read at once
     * @param clock for the prune markers' leases
     * @throws BackupException of kind {@link BackupException.Kind#UNAVAILABLE} when a prune is running,
     *     or started during the check and what it found may be the prune's deletions
     * @throws dev.ballast.storage.StorageException if the store fails (a missing or damaged object is
     *     reported, not thrown)
     */
    public static CheckResult run(
            SealedStore view, ObjectStore store, MasterKey key, int threads, @Nullable DataSubset subset, Clock clock) {
        PackedPrune.runningPrune(view, clock.instant()).ifPresent(prune -> {
            throw new BackupException(
                    BackupException.Kind.UNAVAILABLE,
                    "A prune of the repository is running (" + prune + "), deleting packs a check would report"
                            + " missing; check again once it has ended " + Advice.REMOVE_PRUNE_MARKER.text());
        });
        Pass first;
        try (PackedBlobs content = PackedBlobs.open(store, key, threads)) {
            BlobRepository blobs = content.blobs();
            Set<String> read = subset == null ? Set.of() : subset.packs(blobs.packSizes(), new SecureRandom());
            CheckReport packs = blobs.check(read::contains);
            List<CheckReport.Damage> damage = new ArrayList<>(packs.damage());
            // A store that lists from an index of its own (the local store) may list a pack whose bytes it no
            // longer holds in full: not damage the listing's sizes show.
            PackContents.notHeldInFull(blobs)
                    .forEach((pack, why) ->
                            damage.add(new CheckReport.Damage(pack, null, CheckReport.Damage.NOT_HELD_IN_FULL + why)));
            damage.sort(Comparator.comparing(CheckReport.Damage::key));
            first = Pass.of(view, store, blobs, packs, damage, null);
        }
        Pass last = first;
        if (!first.result().ok()) {
            // Against the index as it is now: what a backup or prune did meanwhile is not damage.
            try (PackedBlobs now = PackedBlobs.open(store, key, threads)) {
                last = first.recheck(view, store, now.blobs());
            }
        }
        if (!last.result().ok()) {
            PackedPrune.runningPrune(view, clock.instant()).ifPresent(prune -> {
                throw new BackupException(
                        BackupException.Kind.UNAVAILABLE,
                        "A prune of the repository started while the check ran (" + prune + "), so what it found"
                                + " missing may be the prune's deletions; check again once the prune has ended");
            });
        }
        return last.result();
    }

    /**
     * One pass over the snapshots against an index: what it found, with what a recheck needs.
     *
     * @param result what is reported
     * @param packDamage the pack check's findings behind {@code result.damage()}
     * @param packs the pack check's counts
     * @param onlyUnindexed chunks the snapshots need found only in packs no index file names
     */
    private record Pass(CheckResult result, List<CheckReport.Damage> packDamage, CheckReport packs, int onlyUnindexed) {
        /**
         * The snapshots of the whole repository against {@code blobs} and {@code damage}; with
         * {@code only}, just those snapshots (by stored key and version) that an earlier pass found
         * damaged.
         */
        static Pass of(
                SealedStore view,
                ObjectStore store,
                BlobRepository blobs,
                CheckReport packs,
                List<CheckReport.Damage> damage,
                @Nullable Set<String> only) {
            Unusable unusable = Unusable.of(damage);
            Chunks chunks = new Chunks(blobs, unusable);
            Set<String> names = new TreeSet<>();
            List<CheckResult.SnapshotDamage> snapshotDamage = new ArrayList<>();
            int snapshots = 0;
            Map<String, List<VersionEntry>> all = view.allSnapshotVersions();
            // the version IDs whose stored bytes the store does not hold, each with why ("its content file ... is
            // missing", "... is not a regular file"), as list and restore say it
            Map<String, String> contentMissing = new HashMap<>();
            List<VersionEntry> listed = new ArrayList<>();
            all.values().forEach(listed::addAll);
            store.missingContent(listed).forEach((v, why) -> contentMissing.put(v.versionId(), why));
            for (Map.Entry<String, List<VersionEntry>> e : all.entrySet()) {
                List<VersionEntry> newestFirst = new ArrayList<>(e.getValue());
                newestFirst.sort(
                        Comparator.comparing(VersionEntry::lastModified).reversed());
                String name = null;
                int snapshotsBefore = snapshots;
                List<CheckResult.SnapshotDamage> unopened = new ArrayList<>();
                for (VersionEntry v : newestFirst) {
                    boolean recheck = only == null || only.contains(e.getKey() + " " + v.versionId());
                    Manifest m = null;
                    boolean gone = contentMissing.containsKey(v.versionId());
                    if (!gone) {
                        try {
                            m = view.readSnapshot(e.getKey(), v.versionId());
                        } catch (ObjectNotFoundException notFound) {
                            gone = true;
                        } catch (BackupException damaged) {
                            snapshots++;
                            if (recheck) {
                                String why = Manifests.damaged(damaged) ? Manifests.why(damaged) : damaged.getMessage();
                                unopened.add(new CheckResult.SnapshotDamage(
                                        e.getKey(),
                                        v.versionId(),
                                        v.lastModified(),
                                        "its manifest does not open: " + why,
                                        List.of()));
                            }
                            continue;
                        }
                    }
                    if (gone || m == null) {
                        // Listed, its bytes gone: damage (a store that lists from an index of its own); or
                        // removed by a forget since the listing: not damage.
                        if (recheck
                                && (contentMissing.containsKey(v.versionId())
                                        || stillListed(view, e.getKey(), v.versionId()))) {
                            snapshots++;
                            unopened.add(new CheckResult.SnapshotDamage(
                                    e.getKey(),
                                    v.versionId(),
                                    v.lastModified(),
                                    "its manifest is listed but "
                                            + contentMissing.getOrDefault(
                                                    v.versionId(), "its content is missing from the store"),
                                    List.of()));
                        }
                        continue;
                    }
                    snapshots++;
                    name = name == null ? m.name() : name;
                    if (!recheck) {
                        continue;
                    }
                    List<String> lacking = new ArrayList<>();
                    for (ManifestEntry f : m.files()) {
                        if (f.packed() && !chunks.allReadable(f.chunks())) {
                            lacking.add(f.path());
                        }
                    }
                    if (!lacking.isEmpty()) {
                        snapshotDamage.add(new CheckResult.SnapshotDamage(
                                m.name(),
                                v.versionId(),
                                SnapshotTime.instant(m, v),
                                Messages.count(lacking.size(), "file") + (lacking.size() == 1 ? " lacks" : " lack")
                                        + " a chunk that no pack holds intact",
                                lacking));
                    }
                }
                if (snapshots > snapshotsBefore) {
                    // one backup name per snapshot object, also when none of its versions opens to tell it
                    names.add(name != null ? name : e.getKey());
                }
                for (CheckResult.SnapshotDamage u : unopened) {
                    // named as the versions that open name it; by its stored key when none does
                    snapshotDamage.add(
                            name == null
                                    ? u
                                    : new CheckResult.SnapshotDamage(
                                            name, u.versionId(), u.startedAt(), u.reason(), u.files()));
                }
            }
            List<String> lines = new ArrayList<>();
            damage.forEach(d -> lines.add(d.toString()));
            if (chunks.onlyUnindexed > 0) {
                lines.add("index: " + Messages.count(chunks.onlyUnindexed, "chunk")
                        + " the snapshots need are only in packs no index file names (a restore reads them from"
                        + " the packs' own headers, but a backup would store them again and a prune could delete"
                        + " those packs); " + Advice.REPAIR_INDEX.text() + " indexes them");
            }
            long unread = damage.stream()
                    .filter(d -> d.blob() != null && !d.reason().startsWith("it runs past"))
                    .count();
            CheckResult result = new CheckResult(
                    names.size(),
                    snapshots,
                    packs.packsChecked(),
                    packs.packsRead(),
                    Math.max(0, packs.blobsRead() - unread),
                    lines,
                    snapshotDamage,
                    packs.unindexedPacks().size());
            return new Pass(result, damage, packs, chunks.onlyUnindexed);
        }

        /**
         * This pass's findings looked at again against {@code now}, the index read again: damage to a
         * pack the index no longer names is gone with the pack (a prune's or repair's), and a snapshot is
         * damaged only if it still is against {@code now} (a backup that finished meanwhile indexed its
         * packs; a forget removed it).
         */
        Pass recheck(SealedStore view, ObjectStore store, BlobRepository now) {
            List<CheckReport.Damage> kept = new ArrayList<>();
            Set<String> damagedIndexFiles = new HashSet<>();
            now.damagedIndexFiles().forEach(d -> damagedIndexFiles.add(d.key()));
            for (CheckReport.Damage d : packDamage) {
                boolean stands = d.key().startsWith(BlobRepository.DATA_PREFIX)
                        ? now.indexes(d.key())
                        : !d.key().startsWith(BlobRepository.INDEX_PREFIX) || damagedIndexFiles.contains(d.key());
                if (stands) {
                    kept.add(d);
                }
            }
            Set<String> again = new HashSet<>();
            Map<String, String> keyOfName = new HashMap<>();
            for (CheckResult.SnapshotDamage s : result.snapshotDamage()) {
                keyOfName.putIfAbsent(
                        s.name(), s.name().startsWith("snapshots/") ? s.name() : view.snapshotKey(s.name()));
                again.add(keyOfName.get(s.name()) + " " + s.versionId());
            }
            // chunks found only in unindexed packs are counted over every snapshot, not only the damaged ones
            return of(view, store, now, packs, kept, onlyUnindexed > 0 ? null : again);
        }

        private static boolean stillListed(SealedStore view, String key, String versionId) {
            List<VersionEntry> versions = view.allSnapshotVersions().get(key);
            return versions != null
                    && versions.stream().anyMatch(v -> v.versionId().equals(versionId));
        }
    }

    /** Whether chunks can be read, each looked up once. */
    private static final class Chunks {
        private final BlobRepository blobs;
        private final Unusable unusable;
        private final Map<String, Boolean> known = new HashMap<>();
        /** Chunks found only in packs no index file names. */
        int onlyUnindexed;

        Chunks(BlobRepository blobs, Unusable unusable) {
            this.blobs = blobs;
            this.unusable = unusable;
        }

        boolean allReadable(List<String> chunks) {
            for (String c : chunks) {
                Boolean ok = known.get(c);
                if (ok == null) {
                    ok = readable(BlobId.parse(c));
                    known.put(c, ok);
                }
                if (!ok) {
                    return false;
                }
            }
            return true;
        }

        private boolean readable(BlobId id) {
            for (BlobLocation at : blobs.locations(id)) {
                if (unusable.usable(at.pack(), id)) {
                    return true;
                }
            }
            // A pack no index file names (its index file lost): a restore reads it from the pack's header.
            java.util.Optional<BlobLocation> unindexed = blobs.findReadable(id);
            if (unindexed.isPresent() && !blobs.indexes(unindexed.get().pack())) {
                onlyUnindexed++;
                return true;
            }
            return false;
        }
    }

    /**
     * What the pack check found that a chunk cannot be read from: whole packs (missing, unreadable, or
     * with a header that does not open) and single chunks in a pack. A pack of the wrong size is not
     * unusable as a whole: a cut one has the chunks past its end named one by one.
     */
    private record Unusable(Set<String> packs, Set<String> chunks) {
        static Unusable of(List<CheckReport.Damage> damage) {
            Set<String> packs = new HashSet<>();
            Set<String> chunks = new HashSet<>();
            for (CheckReport.Damage d : damage) {
                if (d.blob() != null) {
                    chunks.add(d.key() + " " + d.blob().hex());
                } else if (!d.sizeOnly()) {
                    packs.add(d.key());
                }
            }
            return new Unusable(packs, chunks);
        }

        boolean usable(String pack, BlobId id) {
            return !packs.contains(pack) && !chunks.contains(pack + " " + id.hex());
        }
    }
}
