package dev.ballast.backup.pack;

import dev.ballast.backup.keys.MasterKey;
import dev.ballast.storage.IntegrityException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * The pack layout: {@code blob_1 || ... || blob_n || seal(header, "pack header") || u32le(length of the
 * sealed header)}; the header is, per blob, {@code type (1) || flags (1) || stored length (u32le) ||
 * plain length (u32le) || ID (32)}, offsets the running sum of stored lengths. A pack's key is
 * {@code data/<first 2 hex>/<SHA-256 of its bytes, 64 hex>}.
 */
final class Packs {
    static final int ENTRY = 1 + 1 + 4 + 4 + BlobId.LENGTH;
    static final byte[] HEADER_AAD = "pack header".getBytes(StandardCharsets.US_ASCII);

    private Packs() {}

    /** The key of a pack whose bytes have this SHA-256 hex. */
    static String key(String sha256Hex) {
        return BlobRepository.DATA_PREFIX + sha256Hex.substring(0, 2) + "/" + sha256Hex;
    }

    /** Whether {@code key} has the form of a pack key. */
    static boolean isPackKey(String key) {
        return key.length() == 5 + 3 + 64
                && key.startsWith(BlobRepository.DATA_PREFIX)
                && key.charAt(7) == '/'
                && key.regionMatches(5, key, 8, 2)
                && isHex(key, 8);
    }

    static boolean isHex(String s, int from) {
        for (int i = from; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
        }
        return true;
    }

    /** The size of a pack holding blobs of these stored lengths in total: blobs, sealed header, length. */
    static long sizeOf(long storedBytes, int blobs) {
        return storedBytes + (long) ENTRY * blobs + MasterKey.OVERHEAD + 4;
    }

    /** A pack being filled. Not thread-safe. */
    static final class Builder {
        private byte[] buf;
        private int size;
        private final int capacity;
        private final List<BlobLocation> entries = new ArrayList<>();

        /** A pack expected to grow to about {@code capacity} bytes: its buffer starts small and doubles up to that. */
        Builder(int capacity) {
            this.capacity = Math.max(1024, capacity);
            this.buf = new byte[Math.min(this.capacity, 1024 * 1024)];
        }

        /**
         * A pack expected to grow to about {@code capacity} bytes, filled into {@code buffer} (a finished
         * pack's, see {@link #takeBuffer}) while it is long enough.
         */
        Builder(int capacity, byte[] buffer) {
            this.capacity = Math.max(1024, capacity);
            this.buf = buffer;
        }

        /**
         * The buffer a {@link #finish}ed pack was filled in, for the next pack's {@link #Builder(int,
         * byte[])}: its bytes were copied into the finished pack's. Empty before {@code finish} or
         * when taken already.
         */
        byte[] takeBuffer() {
            byte[] b = finished ? buf : new byte[0];
            buf = new byte[0];
            return b;
        }

        private boolean finished;

        int size() {
            return size;
        }

        int count() {
            return entries.size();
        }

        boolean isEmpty() {
            return entries.isEmpty();
        }

        /** The IDs appended so far. */
        List<BlobId> ids() {
            List<BlobId> ids = new ArrayList<>(entries.size());
            for (BlobLocation e : entries) {
                ids.add(e.id());
            }
            return ids;
        }

        /** Appends one sealed blob ({@code pack} of its location is filled in at {@link #finish}). */
        void append(
                BlobType type,
                BlobId id,
                byte[] sealed,
                int sealedOffset,
                int sealedLength,
                boolean compressed,
                int plainLength) {
            if (buf.length - size < sealedLength) {
                long want = Math.max(Math.min((long) buf.length * 2, capacity), (long) size + sealedLength);
                buf = Arrays.copyOf(buf, (int) Math.min(want, Integer.MAX_VALUE - 64));
            }
            System.arraycopy(sealed, sealedOffset, buf, size, sealedLength);
            entries.add(new BlobLocation(id, type, "", size, sealedLength, plainLength, compressed));
            size += sealedLength;
        }

        /** The finished pack: its bytes, key and blob locations. */
        Finished finish(MasterKey key) {
            byte[] header = new byte[ENTRY * entries.size()];
            int p = 0;
            for (BlobLocation e : entries) {
                header[p] = e.type().code();
                header[p + 1] = (byte) (e.compressed() ? BlobCodec.COMPRESSED : 0);
                putInt(header, p + 2, e.length());
                putInt(header, p + 6, e.plainLength());
                e.id().copyTo(header, p + 10);
                p += ENTRY;
            }
            byte[] sealedHeader = key.seal(header, HEADER_AAD);
            byte[] bytes = new byte[size + sealedHeader.length + 4];
            System.arraycopy(buf, 0, bytes, 0, size);
            System.arraycopy(sealedHeader, 0, bytes, size, sealedHeader.length);
            putInt(bytes, size + sealedHeader.length, sealedHeader.length);
            finished = true; // buf is free now; takeBuffer hands it on
            MessageDigest sha = sha256();
            String packKey = key(HexFormat.of().formatHex(sha.digest(bytes)));
            List<BlobLocation> located = new ArrayList<>(entries.size());
            for (BlobLocation e : entries) {
                located.add(new BlobLocation(
                        e.id(), e.type(), packKey, e.offset(), e.length(), e.plainLength(), e.compressed()));
            }
            return new Finished(packKey, bytes, List.copyOf(located));
        }
    }

    /** A pack ready to upload. */
    record Finished(String key, byte[] bytes, List<BlobLocation> blobs) {}

    /**
     * The blob locations a pack's header lists, from the pack's last bytes: {@code tail} holds the
     * pack's bytes {@code [packSize - tail.length, packSize)} and must include the sealed header and
     * its length.
     *
     * @throws IntegrityException naming the pack, if the length is impossible, the header does not open
     *     or its entries do not add up to the pack's size
     */
    static List<BlobLocation> parseHeader(MasterKey key, String packKey, long packSize, byte[] tail) {
        if (tail.length < 4 || packSize < 4) {
            throw new IntegrityException(
                    packKey, "Pack " + packKey + " is " + packSize + " bytes, too short to end with a header length.");
        }
        int hlen = getInt(tail, tail.length - 4);
        if (hlen < MasterKey.OVERHEAD || (long) hlen + 4 > packSize || hlen + 4 > tail.length) {
            throw new IntegrityException(
                    packKey,
                    "Pack " + packKey + " ends with header length " + (hlen & 0xFFFFFFFFL)
                            + ", impossible in a pack of " + packSize + " bytes: it was cut or changed.");
        }
        byte[] header;
        try {
            header = key.open(tail, tail.length - 4 - hlen, hlen, HEADER_AAD);
        } catch (MasterKey.TamperedException e) {
            throw new IntegrityException(
                    packKey, "The header of pack " + packKey + " does not open: " + e.getMessage() + ".");
        }
        if (header.length % ENTRY != 0) {
            throw new IntegrityException(
                    packKey,
                    "The header of pack " + packKey + " is " + header.length + " bytes, not a whole number of " + ENTRY
                            + "-byte entries.");
        }
        List<BlobLocation> out = new ArrayList<>(header.length / ENTRY);
        long offset = 0;
        for (int p = 0; p < header.length; p += ENTRY) {
            BlobType type;
            try {
                type = BlobType.ofCode(header[p]);
            } catch (IllegalArgumentException e) {
                throw new IntegrityException(packKey, "Pack " + packKey + "'s header: " + e.getMessage() + ".");
            }
            boolean compressed = (header[p + 1] & BlobCodec.COMPRESSED) != 0;
            int length = getInt(header, p + 2);
            int plain = getInt(header, p + 6);
            if (length < MasterKey.OVERHEAD || plain < 0) {
                throw new IntegrityException(
                        packKey,
                        "Pack " + packKey + "'s header gives a blob stored length " + length + " and plain length "
                                + plain + ", which no blob has.");
            }
            out.add(new BlobLocation(BlobId.of(header, p + 10), type, packKey, offset, length, plain, compressed));
            offset += length;
        }
        if (offset + hlen + 4 != packSize) {
            throw new IntegrityException(
                    packKey,
                    "Pack " + packKey + "'s header lists " + offset + " bytes of blobs, but the pack holds "
                            + (packSize - hlen - 4) + ".");
        }
        return out;
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    static void putInt(byte[] b, int at, int v) {
        b[at] = (byte) v;
        b[at + 1] = (byte) (v >>> 8);
        b[at + 2] = (byte) (v >>> 16);
        b[at + 3] = (byte) (v >>> 24);
    }

    static int getInt(byte[] b, int at) {
        return (b[at] & 0xFF) | (b[at + 1] & 0xFF) << 8 | (b[at + 2] & 0xFF) << 16 | (b[at + 3] & 0xFF) << 24;
    }
}
