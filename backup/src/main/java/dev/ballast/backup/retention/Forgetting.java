package dev.ballast.backup.retention;

import dev.ballast.backup.Advice;
import dev.ballast.backup.BackupException;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.Manifests;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.VersionEntry;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Which manifest versions (snapshots) of a backup name {@code forget} keeps and which it removes:
 * by a {@link RetentionPolicy}, or by naming them. The newest version is never removed (the next
 * backup starts from it), nor is a version whose manifest cannot be read, nor an incomplete one
 * newer than the newest complete one; an incomplete one older than that is removed whatever the
 * policy. Removing deletes only the manifest versions; {@link Pruner} deletes the stored files no
 * manifest references any more.
 */
public final class Forgetting {
    private Forgetting() {}

    /** One manifest version as forget sees it; {@code manifest} null when not read, or unreadable. */
    public record Backup(VersionEntry version, @Nullable Manifest manifest) {
        /** When its run started, or the version's last-modified time when the manifest is not read. */
        public Instant time() {
            return manifest != null ? manifest.createdAt() : version.lastModified();
        }
    }

    /** A version kept, and why ("keep-last 3", "unreadable manifest: kept", ...). */
    public record Kept(Backup backup, String why) {}

    /** What forget keeps (in the order it decided) and removes. */
    public record Plan(List<Kept> keep, List<Backup> remove) {
        /** Copies the lists. */
        public Plan {
            keep = List.copyOf(keep);
            remove = List.copyOf(remove);
        }
    }

    /**
     * The plan for {@code policy} over every manifest version of {@code name}, the days, weeks and
     * months counted in {@code zone}.
     *
     * @param where the store, as messages name it
     * @throws BackupException with {@link BackupException.Kind#NOT_FOUND} if there is no backup named so
     */
    public static Plan byPolicy(
            ObjectStore store, String name, RetentionPolicy policy, ZoneId zone, Instant now, String where) {
        List<VersionEntry> versions = versions(store, name, where);
        String newest = versions.get(0).versionId();
        List<Backup> remove = new ArrayList<>();
        List<Kept> keep = new ArrayList<>();
        List<Backup> all = new ArrayList<>();
        for (VersionEntry v : versions) {
            all.add(new Backup(v, readOrNull(store, name, v)));
        }
        Instant newestComplete = all.stream()
                .filter(b -> b.manifest() != null && b.manifest().complete())
                .map(Backup::time)
                .max(Instant::compareTo)
                .orElse(null);
        List<RetentionPolicy.Snapshot<Backup>> counted = new ArrayList<>();
        for (Backup b : all) {
            if (b.manifest() == null) {
                keep.add(new Kept(b, "unreadable manifest: kept"));
            } else if (b.manifest().complete()) {
                counted.add(new RetentionPolicy.Snapshot<>(b, b.time()));
            } else if (b.version().versionId().equals(newest)
                    || newestComplete == null
                    || b.time().isAfter(newestComplete)) {
                keep.add(new Kept(b, "incomplete, newer than the newest complete backup"));
            } else {
                remove.add(b);
            }
        }
        for (RetentionPolicy.Decision<Backup> d : policy.apply(counted, zone, now)) {
            Backup b = d.snapshot().id();
            if (d.keep() || b.version().versionId().equals(newest)) {
                keep.add(new Kept(b, d.keep() ? String.join(", ", d.reasons()) : "newest manifest version"));
            } else {
                remove.add(b);
            }
        }
        return new Plan(keep, remove);
    }

    /**
     * The plan removing the manifest versions {@code ids} of {@code name}: each a version ID, its
     * prefix or {@link Manifests#LATEST}; a version given more than once (in one form or several) is in the
     * plan once.
     *
     * @throws BackupException with {@link BackupException.Kind#NOT_FOUND} if there is no such backup or
     *     version, {@link BackupException.Kind#INVALID_INPUT} if one is the newest, or the newest complete one
     */
    public static Plan byVersions(ObjectStore store, String name, List<String> ids, String where) {
        List<VersionEntry> versions = versions(store, name, where);
        String newest = versions.get(0).versionId();
        // Newer versions that did not finish leave it the newest a restore reads: removed, 'latest' would move to
        // the one before it, and forgetting 'latest' again and again would leave only runs that did not finish.
        VersionEntry newestComplete = Manifests.newestComplete(store, name, versions);
        List<Backup> remove = new ArrayList<>();
        // Each version once, however many times and in whichever form (short ID, version ID, prefix) it is given.
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (String id : ids) {
            VersionEntry v = id.equals(Manifests.LATEST) ? newestComplete : Manifests.byIdOrPrefix(versions, name, id);
            if (v == null) {
                throw new BackupException(
                        BackupException.Kind.NOT_FOUND,
                        "Backup '" + name + "' has no complete manifest version, so '" + Manifests.LATEST
                                + "' names none; " + Advice.LIST_VERSIONS.text() + ".");
            }
            if (v.versionId().equals(newest)) {
                throw new BackupException(
                        BackupException.Kind.INVALID_INPUT,
                        "Manifest version " + Manifests.label(v.versionId()) + " is the newest of '" + name
                                + "' and is "
                                + "never removed: the next backup starts from it. Back up again first, then forget it.");
            }
            if (newestComplete != null && v.versionId().equals(newestComplete.versionId())) {
                throw new BackupException(
                        BackupException.Kind.INVALID_INPUT,
                        "Manifest version " + Manifests.label(v.versionId()) + " is the newest complete one of '"
                                + name + "' (the newer ones did not finish) and is never removed: a restore of '"
                                + name + "' reads it. Back up again first, then forget it.");
            }
            if (!seen.add(v.versionId())) {
                continue;
            }
            // read, so the line shows what it removes as list shows it: its start, files and size
            remove.add(new Backup(v, readOrNull(store, name, v)));
        }
        return new Plan(List.of(), remove);
    }

    /** Deletes one manifest version {@code plan} removes. */
    public static void remove(ObjectStore store, String name, Backup b) {
        store.deleteVersion(Manifest.key(name), b.version().versionId());
    }

    private static List<VersionEntry> versions(ObjectStore store, String name, String where) {
        List<VersionEntry> versions = Manifests.versions(store, name);
        if (versions.isEmpty()) {
            throw Manifests.noSuchBackup(store, name, where);
        }
        return versions;
    }

    private static @Nullable Manifest readOrNull(ObjectStore store, String name, VersionEntry v) {
        try {
            return Manifests.read(store, name, v.versionId());
        } catch (BackupException | ObjectNotFoundException | IntegrityException e) {
            IntegrityException.rethrowIfInStoreIndex(e); // the store's index, not what was read
            return null;
        }
    }
}
