package dev.ballast.cli;

import dev.ballast.backup.BackupException;
import dev.ballast.backup.content.PackedContent;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.backup.snapshot.Manifests;
import dev.ballast.backup.snapshot.SnapshotTime;
import dev.ballast.storage.StorageException;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.VersionEntry;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Whether an older snapshot of a backup name is worth restoring for files whose chunks are missing from
 * an encrypted repository: only one that holds them in other chunks, all of which the index names in
 * packs the store still holds (one listing of each such pack's versions). An
 * older snapshot of a file that did not change holds the same chunks, and offering it would send the user
 * to a restore that fails the same way. Stateless.
 */
final class OlderCopies {
    private OlderCopies() {}

    /** At most this many snapshots older than the chosen one are read, newest first. */
    static final int LOOKED_AT = 10;

    /**
     * The clause that offers the newest older snapshot of {@code name} (of the {@link #LOOKED_AT} before
     * {@code chosen}) holding any of {@code lacking} in chunks none of which {@code lacking} uses, all of
     * which the index names in packs {@code store} holds ({@code "; or restore the older --manifest-version SHORT (ID) of DATE, which
     * holds another copy of that file"}); empty when none does, or they cannot be read.
     */
    static String offer(
            ObjectStore metadata,
            ObjectStore store,
            String name,
            Manifests.Versioned chosen,
            Collection<ManifestEntry> lacking,
            PackedContent content) {
        Set<String> missing = new HashSet<>();
        Map<String, Boolean> packsHeld = new HashMap<>();
        lacking.forEach(e -> missing.addAll(e.chunks() == null ? List.of() : e.chunks()));
        try {
            List<VersionEntry> versions = Manifests.versions(metadata, name);
            int at = versions.indexOf(versions.stream()
                    .filter(v -> v.versionId().equals(chosen.version().versionId()))
                    .findFirst()
                    .orElse(null));
            if (at < 0) {
                return "";
            }
            for (VersionEntry v : versions.subList(at + 1, Math.min(versions.size(), at + 1 + LOOKED_AT))) {
                Manifest older;
                try {
                    older = Manifests.read(metadata, name, v.versionId());
                } catch (BackupException | StorageException damaged) {
                    continue;
                }
                Map<String, ManifestEntry> byPath = new HashMap<>();
                older.files().forEach(f -> byPath.put(f.path(), f));
                int held = 0;
                for (ManifestEntry e : lacking) {
                    ManifestEntry copy = byPath.get(e.path());
                    if (copy != null
                            && copy.chunks() != null
                            && copy.chunks().stream().noneMatch(missing::contains)
                            && content.readableAll(copy.chunks())
                            && held(store, content.packsOf(copy.chunks()), packsHeld)) {
                        held++;
                    }
                }
                if (held > 0) {
                    return "; or restore the older --manifest-version " + Manifests.label(v.versionId()) + " of "
                            + SnapshotTime.of(older) + ", which holds "
                            + (lacking.size() == 1
                                    ? "another copy of that file"
                                    : "other copies of " + held + " of those " + lacking.size() + " files");
                }
            }
        } catch (StorageException e) {
            // only advice: left out when the store cannot tell
        }
        return "";
    }

    /**
     * Whether {@code store} holds each of {@code packs} (null: not known, taken as held): its current version
     * listed and, where the store lists from an index of its own, its bytes there ({@link
     * ObjectStore#missingContent}). Answers are kept in {@code known}.
     */
    private static boolean held(ObjectStore store, @Nullable Set<String> packs, Map<String, Boolean> known) {
        if (packs == null) {
            return true;
        }
        for (String pack : packs) {
            boolean held = known.computeIfAbsent(pack, p -> {
                List<VersionEntry> current = store.versions(p).stream()
                        .filter(v -> v.latest() && !v.deleteMarker())
                        .toList();
                return !current.isEmpty() && store.missingContent(current).isEmpty();
            });
            if (!held) {
                return false;
            }
        }
        return true;
    }
}
