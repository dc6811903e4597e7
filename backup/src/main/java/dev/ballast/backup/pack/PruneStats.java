package dev.ballast.backup.pack;

/**
 * What {@link BlobRepository#prune} did (or, from {@link BlobRepository#planPrune}, would do). Byte
 * counts are stored bytes; {@code unusedBytesLeft} and {@code storedBytesLeft} count the blobs of the
 * packs the index names that the store holds, not the packs' headers, as {@link MaxUnused} does.
 *
 * @param packsDeleted packs deleted because they held no live blob (unindexed leftovers included)
 * @param packsRepacked packs whose live blobs were copied into new packs, then deleted
 * @param packsWritten new packs written by repacking
 * @param packsKept packs left as they were (every blob in them live, their unused bytes within the
 *     limit, or kept by the caller's predicate)
 * @param blobsRemoved dead blobs no longer stored
 * @param bytesFreed stored bytes of the deleted and repacked packs, less those of the new packs
 * @param indexFilesReplaced index files deleted after the new index naming every kept blob was written
 * @param liveMissing live blob IDs in no pack in the store, or named in several packs none of whose copies
 *     opens (their backups are damaged; nothing was deleted for them)
 * @param packsKeptYoung packs the caller's predicate kept (its grace period) that would otherwise have been
 *     deleted or repacked: indexed ones holding no live blob, or holding unused bytes that the limit would
 *     have had repacked, and those no index names
 * @param unusedBytesLeft the bytes of the blobs no live blob needs in the packs left after the prune:
 *     dead blobs, and copies of live blobs whose home is another pack (those kept by the caller's
 *     predicate included)
 * @param storedBytesLeft the bytes of every blob, live or unused, in the packs after the prune (the new
 *     packs included); {@code unusedBytesLeft} is a share of it
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
        int packsKeptYoung,
        long unusedBytesLeft,
        long storedBytesLeft) {}
