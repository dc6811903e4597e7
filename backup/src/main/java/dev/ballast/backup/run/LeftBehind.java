package dev.ballast.backup.run;

import dev.ballast.backup.snapshot.DamagedVersions;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.VersionEntry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The versions other runs of a backup name left under {@code NAME/}, when a backup found another
 * run's marker just after writing its own (a run killed with kill -9, typically part-way through a
 * first backup): a file for which such a run stored a version of the same size is hashed, and that
 * version is reused when the SHA-256 the store recorded for it matches, instead of uploading the file
 * again. Only on a store that proves what it stores ({@link ObjectStore#confirmsWrites()}): there the
 * recorded SHA-256 is that of the bytes held. A prune cannot delete a reused version before the
 * backup's manifest names it: a prune that removes the other run's marker lists the markers again
 * afterwards and finds this run's ({@link RunMarker}).
 *
 * <p>Costs one listing of the prefix (one request per 1,000 versions on S3) and one HEAD per candidate
 * (the SHA-256 recorded with the version). Thread-safe once built.
 */
public final class LeftBehind {
    /** Nothing to reuse. */
    public static final LeftBehind NONE = new LeftBehind(null, Map.of());

    private final @Nullable ObjectStore store;
    private final Map<String, List<VersionEntry>> byKey;

    private LeftBehind(@Nullable ObjectStore store, Map<String, List<VersionEntry>> byKey) {
        this.store = store;
        this.byKey = byKey;
    }

    /** Lists every version under {@code prefix} (delete markers left out), or {@link #NONE} when the store does not prove what it stores. */
    public static LeftBehind list(ObjectStore store, String prefix) {
        if (!store.confirmsWrites()) {
            return NONE;
        }
        return of(store, store.listVersions(prefix));
    }

    /**
     * Like {@link #list}, from {@code listing}, a listing of the prefix the backup already made (the
     * backup lists it once to check that the previous snapshot's versions are still held).
     */
    public static LeftBehind of(ObjectStore store, List<VersionEntry> listing) {
        if (!store.confirmsWrites()) {
            return NONE;
        }
        Map<String, List<VersionEntry>> byKey = new HashMap<>();
        for (VersionEntry v : listing) {
            if (!v.deleteMarker()) {
                byKey.computeIfAbsent(v.key(), k -> new ArrayList<>()).add(v);
            }
        }
        return new LeftBehind(store, byKey);
    }

    /**
     * The newest version of {@code key} with {@code size} bytes that {@code damaged} does not record
     * damaged, with the SHA-256 the store recorded for it; null when there is none.
     */
    @Nullable
    public Candidate candidate(String key, long size, @Nullable DamagedVersions damaged) {
        List<VersionEntry> versions = byKey.get(key);
        if (versions == null || store == null) {
            return null;
        }
        for (VersionEntry v : versions) {
            if (v.size() == size && (damaged == null || !damaged.damaged(v.versionId()))) {
                String sha = recordedSha256(store, v);
                return sha == null ? null : new Candidate(v.versionId(), sha);
            }
        }
        return null;
    }

    /** A version another run left, and the SHA-256 the store recorded for it. */
    public record Candidate(String versionId, String sha256) {}

    /** The SHA-256 the store recorded and proved for {@code v} on upload, or null when it cannot say. */
    private static @Nullable String recordedSha256(ObjectStore store, VersionEntry v) {
        try {
            String sha = store.head(v.key(), v.versionId()).sha256();
            return sha.isEmpty() ? null : sha;
        } catch (RuntimeException e) {
            return null;
        }
    }
}
