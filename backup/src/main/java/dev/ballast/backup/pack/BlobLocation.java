package dev.ballast.backup.pack;

import java.util.Objects;

/**
 * Where the index says a blob is: one entry of an index file.
 *
 * @param id the blob's ID
 * @param type its type
 * @param pack the pack's object key, {@code data/<2 hex>/<64 hex>}
 * @param offset where its stored (sealed) bytes start in the pack, bytes from the pack's start
 * @param length its stored length in bytes (sealed: {@code MasterKey.OVERHEAD} more than the encoded form)
 * @param plainLength its length in bytes once opened and decompressed
 * @param compressed whether the sealed bytes hold zstd-compressed content
 */
public record BlobLocation(
        BlobId id, BlobType type, String pack, long offset, int length, int plainLength, boolean compressed) {
    public BlobLocation {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(pack, "pack");
        if (offset < 0 || length < 0 || plainLength < 0) {
            throw new IllegalArgumentException("blob " + id + " in " + pack + ": offset " + offset + ", length "
                    + length + " and plain length " + plainLength + " must not be negative");
        }
    }

    /** The byte after the blob's last, in the pack. */
    public long end() {
        return offset + length;
    }
}
