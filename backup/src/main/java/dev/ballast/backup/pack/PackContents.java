package dev.ballast.backup.pack;

import dev.ballast.storage.object.VersionEntry;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Whether the store still holds each pack the index names in full, asked of the store itself
 * ({@link dev.ballast.storage.object.ObjectStore#missingContent}): the local store compares each
 * pack's content file with the length it recorded, so a pack cut short is found even where only its
 * header is gone and every chunk still reads (a tester cut 50 bytes off a pack: {@code verify} said
 * OK, and once an index file was lost too its chunks could not be found again). An S3 store's
 * listing is its check, and finds none here. One listing of the packs and, on the local store, one
 * {@code stat} per pack file. Thread-safe.
 */
public final class PackContents {
    private PackContents() {}

    /**
     * The packs the index names that the store does not hold in full, in key order, each with why
     * ("its content file has 600170 bytes but 600220 are recorded").
     *
     * @throws dev.ballast.storage.StorageException if the store fails
     */
    public static Map<String, String> notHeldInFull(BlobRepository repo) {
        List<VersionEntry> packs = repo.store.listVersions(BlobRepository.DATA_PREFIX).stream()
                .filter(v -> v.latest() && !v.deleteMarker() && repo.state.packBlobs.containsKey(v.key()))
                .toList();
        Map<String, String> out = new TreeMap<>();
        repo.store.missingContent(packs).forEach((v, why) -> out.put(v.key(), why));
        return out;
    }
}
