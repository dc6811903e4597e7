package dev.ballast.backup.snapshot;

import com.github.luben.zstd.Zstd;

/**
 * The zstd compression of manifests in a repository of format 3, before they are sealed
 * (docs/backup-format.md): a single zstd frame with its content size, level 3 (zstd's default).
 */
final class ManifestCompression {
    private ManifestCompression() {}

    /** A manifest this long is refused when read (a forged frame header could ask for any size). */
    static final long MAX_PLAIN_BYTES = Integer.MAX_VALUE - 8;

    static byte[] compress(byte[] plain) {
        return Zstd.compress(plain, 3);
    }

    /**
     * @throws IllegalArgumentException if {@code compressed} is not one zstd frame with its content size
     */
    static byte[] decompress(byte[] compressed) {
        long size = Zstd.getFrameContentSize(compressed);
        if (size < 0 || size > MAX_PLAIN_BYTES) {
            throw new IllegalArgumentException("it is not a zstd frame with a content size (" + size + ")");
        }
        byte[] plain = Zstd.decompress(compressed, (int) size);
        if (plain.length != size) {
            throw new IllegalArgumentException("its zstd frame holds " + plain.length + " bytes, not " + size);
        }
        return plain;
    }
}
