package dev.ballast.backup.pack;

/**
 * The size of what a {@link BlobRepository}'s index names.
 *
 * @param packs packs named
 * @param blobs distinct blobs
 * @param storedBytes bytes of the packs (blobs as stored, headers included)
 * @param plainBytes bytes of the blobs once opened and decompressed
 */
public record RepositoryStats(long packs, long blobs, long storedBytes, long plainBytes) {}
