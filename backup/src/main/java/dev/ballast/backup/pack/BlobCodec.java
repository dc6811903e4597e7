package dev.ballast.backup.pack;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdException;
import dev.ballast.backup.keys.CipherWarmUp;
import dev.ballast.backup.keys.MasterKey;
import dev.ballast.storage.IntegrityException;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * A blob's stored form: {@code seal(encoded, aad = type || flags || id)}, where {@code encoded} is
 * the zstd frame of the plain bytes when that is shorter than {@code plain - plain / 32} (flag bit 0
 * set), else the plain bytes. Thread-safe.
 *
 * <p>Each thread that encodes or decodes keeps a zstd context and one scratch buffer (the compressed
 * frame before sealing; the opened frame before decompressing), grown to the largest blob it met:
 * a fresh context and a fresh buffer of about a chunk per blob were a good part of what a backup and
 * a restore allocated, and of the garbage collector's time (docs/backup-format.md, "Speed").
 */
final class BlobCodec {
    /** Flag bit 0: the sealed bytes hold a zstd frame. */
    static final int COMPRESSED = 1;

    /** A thread's zstd contexts and scratch buffer; used by one call at a time. */
    private static final class Scratch {
        private @Nullable ZstdCompressCtx compressor;
        private int level;
        private @Nullable ZstdDecompressCtx decompressor;
        private byte[] buffer = new byte[0];
        /** The plain bytes of {@link #decodeBorrowed}. */
        private byte[] plain = new byte[0];

        byte[] buffer(long atLeast) {
            if (buffer.length < atLeast) {
                buffer = new byte[(int) Math.min(Math.max(atLeast, 2L * buffer.length), Integer.MAX_VALUE - 64)];
            }
            return buffer;
        }

        byte[] plain(int atLeast) {
            if (plain.length < atLeast) {
                plain = new byte[(int) Math.min(Math.max(atLeast, 2L * plain.length), Integer.MAX_VALUE - 64)];
            }
            return plain;
        }

        ZstdCompressCtx compressor(int level) {
            ZstdCompressCtx c = compressor;
            if (c == null || this.level != level) {
                if (c != null) {
                    c.close();
                }
                c = new ZstdCompressCtx().setLevel(level).setContentSize(true).setChecksum(false);
                compressor = c;
                this.level = level;
            }
            return c;
        }

        ZstdDecompressCtx decompressor() {
            ZstdDecompressCtx d = decompressor;
            if (d == null) {
                d = new ZstdDecompressCtx();
                decompressor = d;
            }
            return d;
        }
    }

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

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

    /**
     * File content is what a run seals or opens in bulk: its first chunk starts the ciphers' warm-up
     * ({@link CipherWarmUp#start}); manifests, index files and keys alone do not.
     */
    private static void warmUpFor(BlobType type) {
        if (type == BlobType.DATA) {
            CipherWarmUp.start();
        }
    }

    static Sealed encode(MasterKey key, int level, BlobType type, BlobId id, byte[] plain, int offset, int length) {
        warmUpFor(type);
        if (level > 0 && length >= 64) {
            // Worth keeping only when it saves more than 1/32 of the bytes (restic's "auto").
            int keep = length - length / 32 - 1;
            Scratch scratch = SCRATCH.get();
            byte[] dst = scratch.buffer(Math.min(Zstd.compressBound(length), Integer.MAX_VALUE - 64));
            int n;
            try {
                n = scratch.compressor(level).compressByteArray(dst, 0, dst.length, plain, offset, length);
            } catch (ZstdException e) {
                throw new IllegalStateException("zstd failed to compress a blob: " + e.getMessage(), e);
            }
            if (n <= keep) {
                return new Sealed(key.seal(dst, 0, n, associatedData(type, true, id)), true);
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
        byte[] plain = new byte[plainLength];
        decodeInto(key, pack, type, compressed, id, plainLength, stored, offset, length, plain);
        return plain;
    }

    /**
     * {@link #decode} into this thread's plain buffer, reused by its next call on this thread: the
     * returned array's first {@code plainLength} bytes are the blob's, checked; never hand the array
     * on beyond that.
     */
    static byte[] decodeBorrowed(
            MasterKey key,
            String pack,
            BlobType type,
            boolean compressed,
            BlobId id,
            int plainLength,
            byte[] stored,
            int offset,
            int length) {
        byte[] plain = SCRATCH.get().plain(plainLength);
        decodeInto(key, pack, type, compressed, id, plainLength, stored, offset, length, plain);
        return plain;
    }

    /** Opens, decompresses and checks the blob into {@code plain[0, plainLength)}. */
    private static void decodeInto(
            MasterKey key,
            String pack,
            BlobType type,
            boolean compressed,
            BlobId id,
            int plainLength,
            byte[] stored,
            int offset,
            int length,
            byte[] plain) {
        warmUpFor(type);
        if (compressed) {
            Scratch scratch = SCRATCH.get();
            byte[] encoded = scratch.buffer(Math.max(0, length - MasterKey.OVERHEAD));
            int encodedLength;
            try {
                encodedLength = key.open(stored, offset, length, associatedData(type, true, id), encoded, 0);
            } catch (MasterKey.TamperedException e) {
                throw damaged(pack, id, "does not open: " + e.getMessage());
            }
            int n;
            try {
                n = scratch.decompressor().decompressByteArray(plain, 0, plainLength, encoded, 0, encodedLength);
            } catch (ZstdException e) {
                throw damaged(pack, id, "does not decompress: " + e.getMessage());
            }
            if (n != plainLength) {
                throw damaged(pack, id, "decompresses to " + n + " bytes, not the " + plainLength + " indexed");
            }
        } else {
            try {
                if (length - MasterKey.OVERHEAD != plainLength) {
                    // the plain text would not fit where it goes: open it on its own to say what is wrong
                    byte[] opened = key.open(stored, offset, length, associatedData(type, false, id));
                    throw damaged(pack, id, "holds " + opened.length + " bytes, not the " + plainLength + " indexed");
                }
                key.open(stored, offset, length, associatedData(type, false, id), plain, 0);
            } catch (MasterKey.TamperedException e) {
                throw damaged(pack, id, "does not open: " + e.getMessage());
            }
        }
        if (!Arrays.equals(key.id(plain, 0, plainLength), id.bytes())) {
            throw damaged(pack, id, "holds other bytes than its ID names");
        }
    }

    static IntegrityException damaged(String pack, BlobId id, String clause) {
        return new IntegrityException(pack, "Blob " + id + " in pack " + pack + " " + clause + ".");
    }
}
