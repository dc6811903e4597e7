package dev.ballast.backup.pack;

import com.github.luben.zstd.Zstd;
import dev.ballast.backup.keys.MasterKey;
import dev.ballast.storage.IntegrityException;
import java.util.Arrays;

/**
 * A blob's stored form: {@code seal(encoded, aad = type || flags || id)}, where {@code encoded} is
 * the zstd frame of the plain bytes when that is shorter than {@code plain - plain / 32} (flag bit 0
 * set), else the plain bytes. Stateless and thread-safe.
 */
final class BlobCodec {
    /** Flag bit 0: the sealed bytes hold a zstd frame. */
    static final int COMPRESSED = 1;

    private BlobCodec() {}

    /** A sealed blob and how it was encoded. */
    record Sealed(byte[] bytes, boolean compressed) {}

    static byte[] associatedData(BlobType type, boolean compressed, BlobId id) {
        byte[] aad = new byte[2 + BlobId.LENGTH];
        aad[0] = type.code();
        aad[1] = (byte) (compressed ? COMPRESSED : 0);
        id.copyTo(aad, 2);
        return aad;
    }

    static Sealed encode(MasterKey key, int level, BlobType type, BlobId id, byte[] plain, int offset, int length) {
        if (level > 0 && length >= 64) {
            // Worth keeping only when it saves more than 1/32 of the bytes (restic's "auto").
            int keep = length - length / 32 - 1;
            byte[] dst = new byte[(int) Math.min(Zstd.compressBound(length), Integer.MAX_VALUE - 64)];
            long n = Zstd.compressByteArray(dst, 0, dst.length, plain, offset, length, level);
            if (Zstd.isError(n)) {
                throw new IllegalStateException("zstd failed to compress a blob: " + Zstd.getErrorName(n));
            }
            if (n <= keep) {
                return new Sealed(key.seal(dst, 0, (int) n, associatedData(type, true, id)), true);
            }
        }
        return new Sealed(key.seal(plain, offset, length, associatedData(type, false, id)), false);
    }

    /**
     * The plain bytes of the sealed blob {@code stored[offset, offset + length)}.
     *
     * @throws IntegrityException naming {@code pack} and the blob, if it does not open, does not
     *     decompress to {@code plainLength} bytes, or its {@link MasterKey#id} is not {@code id}
     */
    static byte[] decode(
            MasterKey key,
            String pack,
            BlobType type,
            boolean compressed,
            BlobId id,
            int plainLength,
            byte[] stored,
            int offset,
            int length) {
        byte[] encoded;
        try {
            encoded = key.open(stored, offset, length, associatedData(type, compressed, id));
        } catch (MasterKey.TamperedException e) {
            throw damaged(pack, id, "does not open: " + e.getMessage());
        }
        byte[] plain;
        if (compressed) {
            plain = new byte[plainLength];
            long n = Zstd.decompressByteArray(plain, 0, plainLength, encoded, 0, encoded.length);
            if (Zstd.isError(n)) {
                throw damaged(pack, id, "does not decompress: " + Zstd.getErrorName(n));
            }
            if (n != plainLength) {
                throw damaged(pack, id, "decompresses to " + n + " bytes, not the " + plainLength + " indexed");
            }
        } else {
            plain = encoded;
            if (plain.length != plainLength) {
                throw damaged(pack, id, "holds " + plain.length + " bytes, not the " + plainLength + " indexed");
            }
        }
        if (!Arrays.equals(key.id(plain, 0, plain.length), id.bytes())) {
            throw damaged(pack, id, "holds other bytes than its ID names");
        }
        return plain;
    }

    static IntegrityException damaged(String pack, BlobId id, String clause) {
        return new IntegrityException(pack, "Blob " + id + " in pack " + pack + " " + clause + ".");
    }
}
