package dev.ballast.backup.verify;

import dev.ballast.backup.Advice;
import dev.ballast.backup.BackupException;
import dev.ballast.backup.CheckResult;
import dev.ballast.backup.Messages;
import dev.ballast.backup.pack.BlobId;
import dev.ballast.backup.pack.BlobLocation;
import dev.ballast.backup.pack.BlobRepository;
import dev.ballast.backup.pack.CheckReport;
import dev.ballast.backup.retention.PackedPrune;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.backup.snapshot.Manifests;
import dev.ballast.backup.snapshot.SealedStore;
import dev.ballast.backup.snapshot.SnapshotTime;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.object.VersionEntry;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * The check of a whole repository of format 3, as restic's {@code check}: first the packs against the
 * index ({@link BlobRepository#check}: each present with the size the index implies; the packs
 * {@code readPack} picks read whole, every chunk matched against its ID), then every version of every
 * snapshot against what is left: a file one of whose chunks no pack holds intact is named. It writes
 * nothing: unlike {@code verify}, which drops the damaged chunks it finds so the next backup stores them
 * again, a check only reports, so it can run beside backups, on a read-only copy, or with credentials
 * that cannot write.
 *
 * <p>Not thread-safe; one check at a time per {@link BlobRepository} (its check holds its write lock).
 */
public final class RepositoryCheck {
    private RepositoryCheck() {}

    /**
     * Checks the repository seen through {@code view}, whose packs and index {@code blobs} opened.
     *
     * @param readPack which packs (by key) to read whole; {@code k -> false} checks presence and size only
     * @param clock for the prune markers' leases
     * @throws BackupException of kind {@link BackupException.Kind#UNAVAILABLE} when a prune is running,
     *     or started during the check and damage was found (it may be the prune's deletions)
     * @throws dev.ballast.storage.StorageException if the store fails (a missing or damaged object is
     *     reported, not thrown)
     */
    public static CheckResult run(SealedStore view, BlobRepository blobs, Predicate<String> readPack, Clock clock) {
        PackedPrune.runningPrune(view, clock.instant()).ifPresent(prune -> {
            throw new BackupException(
                    BackupException.Kind.UNAVAILABLE,
                    "A prune of the repository is running (" + prune + "), deleting packs a check would report"
                            + " missing; check again once it has ended " + Advice.REMOVE_PRUNE_MARKER.text());
        });
        CheckResult result = check(view, blobs, readPack);
        if (!result.ok()) {
            PackedPrune.runningPrune(view, clock.instant()).ifPresent(prune -> {
                throw new BackupException(
                        BackupException.Kind.UNAVAILABLE,
                        "A prune of the repository started while the check ran (" + prune + "), so what it found"
                                + " missing may be the prune's deletions; check again once the prune has ended");
            });
        }
        return result;
    }

    private static CheckResult check(SealedStore view, BlobRepository blobs, Predicate<String> readPack) {
        CheckReport packs = blobs.check(readPack);
        Unusable unusable = Unusable.of(packs, readPack);
        List<String> damage = new ArrayList<>();
        packs.damage().forEach(d -> damage.add(d.toString()));
        Set<String> names = new TreeSet<>();
        List<CheckResult.SnapshotDamage> snapshotDamage = new ArrayList<>();
        int snapshots = 0;
        Map<String, Boolean> chunkOk = new HashMap<>();
        for (Map.Entry<String, List<VersionEntry>> e :
                view.allSnapshotVersions().entrySet()) {
            List<VersionEntry> newestFirst = new ArrayList<>(e.getValue());
            newestFirst.sort(
                    java.util.Comparator.comparing(VersionEntry::lastModified).reversed());
            String name = null;
            List<CheckResult.SnapshotDamage> unopened = new ArrayList<>();
            for (VersionEntry v : newestFirst) {
                Manifest m;
                try {
                    m = view.readSnapshot(e.getKey(), v.versionId());
                } catch (ObjectNotFoundException gone) {
                    continue; // removed by a forget since the listing
                } catch (BackupException damaged) {
                    snapshots++;
                    String why = Manifests.damaged(damaged) ? Manifests.why(damaged) : damaged.getMessage();
                    unopened.add(new CheckResult.SnapshotDamage(
                            e.getKey(),
                            v.versionId(),
                            v.lastModified(),
                            "its manifest does not open: " + why,
                            List.of()));
                    continue;
                }
                snapshots++;
                name = name == null ? m.name() : name;
                List<String> lacking = new ArrayList<>();
                for (ManifestEntry f : m.files()) {
                    if (f.packed() && !allUsable(blobs, unusable, f.chunks(), chunkOk)) {
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
            if (name != null) {
                names.add(name);
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
        return new CheckResult(
                names.size(),
                snapshots,
                packs.packsChecked(),
                packs.packsRead(),
                packs.blobsRead(),
                damage,
                snapshotDamage,
                packs.unindexedPacks().size());
    }

    /** Whether each chunk has a copy in a pack that is neither missing nor damaged where the chunk lies. */
    private static boolean allUsable(
            BlobRepository blobs, Unusable unusable, List<String> chunks, Map<String, Boolean> known) {
        for (String c : chunks) {
            Boolean ok = known.get(c);
            if (ok == null) {
                ok = usable(blobs, unusable, BlobId.parse(c));
                known.put(c, ok);
            }
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    private static boolean usable(BlobRepository blobs, Unusable unusable, BlobId id) {
        for (BlobLocation at : blobs.locations(id)) {
            if (!unusable.packs.contains(at.pack()) && !unusable.chunks.contains(at.pack() + " " + id.hex())) {
                return true;
            }
        }
        return false;
    }

    /**
     * What the pack check found that a chunk cannot be read from: whole packs (missing, unreadable, or
     * with a header that does not open) and single chunks in a pack.
     */
    private record Unusable(Set<String> packs, Set<String> chunks) {
        static Unusable of(CheckReport report, Predicate<String> read) {
            Set<String> packs = new HashSet<>();
            Set<String> chunks = new HashSet<>();
            for (CheckReport.Damage d : report.damage()) {
                if (d.blob() != null) {
                    chunks.add(d.key() + " " + d.blob().hex());
                } else if (!d.sizeOnly() || !read.test(d.key())) {
                    // a pack of the wrong size that was read stays usable: the chunks in it that are not
                    // intact were named one by one
                    packs.add(d.key());
                }
            }
            return new Unusable(packs, chunks);
        }
    }
}
