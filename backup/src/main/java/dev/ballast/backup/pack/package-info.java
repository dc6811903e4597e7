/**
 * The content layer of a repository of format 3 (docs/backup-format.md): content-defined chunks
 * ({@link dev.ballast.backup.pack.Chunker}), blobs compressed with zstd where it pays and sealed with
 * the repository's {@link dev.ballast.backup.keys.MasterKey}, packed into pack files under
 * {@code data/}, found through the index files under {@code index/}
 * ({@link dev.ballast.backup.pack.BlobRepository}). Engine room, not API.
 */
@NullMarked
package dev.ballast.backup.pack;

import org.jspecify.annotations.NullMarked;
