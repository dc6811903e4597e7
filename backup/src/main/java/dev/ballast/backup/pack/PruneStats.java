package dev.ballast.backup.pack;

/**
 * What {@link BlobRepository#prune} did.
 *
 * @param packsDeleted packs deleted because they held no live blob (unindexed leftovers included)
 * @param packsRepacked packs whose live blobs were copied into new packs, then deleted
 * @param packsWritten new packs written by repacking
 * @param packsKept packs left as they were (live enough, or kept by the caller's predicate)
 * @param blobsRemoved dead blobs no longer stored
 * @param bytesFreed stored bytes of the deleted and repacked packs, less those of the new packs
 * @param indexFilesReplaced index files deleted after the new index naming every kept blob was written
 * @param liveMissing live blob IDs in no pack in the store, or named in several packs none of whose copies
 *     opens (their backups are damaged; nothing was deleted for them)
 * @param packsKeptYoung packs the caller's predicate kept (its grace period) that would otherwise have been
 *     deleted or repacked: indexed ones with dead blobs enough, and those no index names
 */
public record PruneStats(
        int packsDeleted,
        int packsRepacked,
        int packsWritten,
        int packsKept,
        long blobsRemoved,
        long bytesFreed,
        int indexFilesReplaced,
        long liveMissing,
        int packsKeptYoung) {}
