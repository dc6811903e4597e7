package dev.ballast.backup.keys;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * A repository's master key: what seals every blob, pack header, index, manifest and the
 * repository's config, what keys the IDs of chunks and backup names, and what seeds the chunker.
 * It is made once by {@code init}, stored only sealed under each password's key (the key files),
 * and never leaves the process in clear.
 *
 * <p><b>Sealing.</b> {@link #seal} is AES-256-GCM (NIST SP 800-38D) under a key derived for that one
 * message: {@code HMAC-SHA256(encryptionKey, "ballast seal v1" || salt)} with a random 16-byte salt,
 * and a random 12-byte nonce. The output is {@code salt (16) || nonce (12) || ciphertext || tag (16)},
 * {@value #OVERHEAD} bytes longer than the plain text. A key of its own per message removes GCM's
 * limit of about 2<sup>32</sup> random nonces under one key (SP 800-38D section 8.3), which a
 * repository of many small chunks could reach; it is the construction of Tink's AES-GCM-HKDF
 * streaming AEAD, used here for one-shot messages. {@code associatedData} binds a message to its
 * place (a blob's type, an object's role) and is authenticated, not stored.
 *
 * <p><b>IDs.</b> {@link #id} is {@code HMAC-SHA256(idKey, data)}: a chunk's ID does not tell someone
 * who can list the store whether it holds a file they know (a plain SHA-256 would).
 *
 * <p>Immutable and thread-safe. Its key bytes are copies; {@link #encoded()} returns a fresh copy.
 */
public final class MasterKey {
    /** Bytes {@link #seal} adds to the plain text: salt 16, nonce 12, tag 16. */
    public static final int OVERHEAD = 16 + 12 + 16;

    private static final int KEY_BYTES = 32;
    private static final int SLICE = 64 * 1024;
    private static final byte[] SEAL_LABEL = "ballast seal v1".getBytes(StandardCharsets.US_ASCII);
    private static final SecureRandom RANDOM = new SecureRandom();

    /**
     * Each thread's store of random bytes for salts and nonces, 64 messages' worth at a time, read from
     * the kernel's generator ({@code /dev/urandom}) where there is one, otherwise drawn from
     * {@link #RANDOM}. The JDK's default SecureRandom on Linux (NativePRNG) reads that same device and
     * mixes in SHA1PRNG's output, computed in Java: in a command's first seconds, before the JIT has
     * compiled it, 20,000 draws of 28 bytes took 0.3 s of CPU, and 313 draws of 1,792 bytes as long,
     * where reading the device took 2 to 6 ms (a JVM started as the launcher starts it). Each byte is
     * handed out once; salts and nonces are stored in clear beside the ciphertext, so holding them a
     * while in memory reveals nothing.
     */
    private static final ThreadLocal<SaltsAndNonces> SALTS_AND_NONCES = ThreadLocal.withInitial(SaltsAndNonces::new);

    private final byte[] encryptionKey;
    private final byte[] idKey;
    private final long chunkerSeed;

    /**
     * Each thread's HMAC under the ID key, the HMAC under the encryption key that derives a message's
     * key, and AES-GCM cipher: {@code Mac.getInstance} and {@code Cipher.getInstance} look the
     * algorithm up among the providers and build a new object by reflection, and initialising an HMAC
     * hashes its key; per blob, that was a good part of the CPU time of a restore of 20,000 small
     * files. A {@code doFinal} leaves a Mac ready for the next message under the same key; the cipher
     * is initialised anew with each message's key.
     */
    private final ThreadLocal<Mac> idMacs;

    private final ThreadLocal<Mac> deriveMacs;
    private final ThreadLocal<Cipher> ciphers = ThreadLocal.withInitial(MasterKey::newGcm);

    private MasterKey(byte[] encryptionKey, byte[] idKey, long chunkerSeed) {
        this.encryptionKey = encryptionKey;
        this.idKey = idKey;
        this.chunkerSeed = chunkerSeed;
        this.idMacs = ThreadLocal.withInitial(() -> hmac(idKey));
        this.deriveMacs = ThreadLocal.withInitial(() -> hmac(encryptionKey));
    }

    /** A new random master key (the JDK's {@link SecureRandom}). */
    public static MasterKey generate() {
        byte[] enc = new byte[KEY_BYTES];
        byte[] id = new byte[KEY_BYTES];
        RANDOM.nextBytes(enc);
        RANDOM.nextBytes(id);
        return new MasterKey(enc, id, RANDOM.nextLong());
    }

    /**
     * The master key of {@link #encoded()}'s bytes.
     *
     * @throws IllegalArgumentException if {@code encoded} is not 72 bytes
     */
    public static MasterKey decode(byte[] encoded) {
        if (encoded.length != 2 * KEY_BYTES + 8) {
            throw new IllegalArgumentException(
                    "a master key is " + (2 * KEY_BYTES + 8) + " bytes, not " + encoded.length);
        }
        long seed = 0;
        for (int i = 0; i < 8; i++) {
            seed = (seed << 8) | (encoded[2 * KEY_BYTES + i] & 0xFF);
        }
        return new MasterKey(
                Arrays.copyOfRange(encoded, 0, KEY_BYTES), Arrays.copyOfRange(encoded, KEY_BYTES, 2 * KEY_BYTES), seed);
    }

    /** The 72 bytes a key file seals: encryption key (32), ID key (32), chunker seed (8, big-endian). */
    public byte[] encoded() {
        byte[] out = new byte[2 * KEY_BYTES + 8];
        System.arraycopy(encryptionKey, 0, out, 0, KEY_BYTES);
        System.arraycopy(idKey, 0, out, KEY_BYTES, KEY_BYTES);
        for (int i = 0; i < 8; i++) {
            out[2 * KEY_BYTES + i] = (byte) (chunkerSeed >>> (56 - 8 * i));
        }
        return out;
    }

    /** The seed of the content-defined chunker's gear table: chunk boundaries differ per repository. */
    public long chunkerSeed() {
        return chunkerSeed;
    }

    /** {@code plain[offset, offset + length)} sealed; see the class comment for the layout. */
    public byte[] seal(byte[] plain, int offset, int length, byte[] associatedData) {
        Objects.checkFromIndexSize(offset, length, plain.length);
        byte[] out = new byte[OVERHEAD + length];
        seal(plain, offset, length, associatedData, out, 0);
        return out;
    }

    /**
     * {@code plain[offset, offset + length)} sealed into {@code out} from {@code outOffset}: the same
     * bytes {@link #seal(byte[], int, int, byte[])} returns, written where the caller wants them (a
     * reused buffer, say).
     *
     * @return how many bytes were written, {@code length + }{@value #OVERHEAD}
     * @throws IndexOutOfBoundsException if {@code out} has fewer than that many bytes from {@code outOffset}
     */
    public int seal(byte[] plain, int offset, int length, byte[] associatedData, byte[] out, int outOffset) {
        Objects.checkFromIndexSize(offset, length, plain.length);
        Objects.checkFromIndexSize(outOffset, OVERHEAD + length, out.length);
        byte[] saltAndNonce = new byte[28];
        SALTS_AND_NONCES.get().next(saltAndNonce); // only these: the rest is ciphertext and tag
        System.arraycopy(saltAndNonce, 0, out, outOffset, 28);
        try {
            Cipher gcm = cipher(Cipher.ENCRYPT_MODE, saltAndNonce);
            gcm.updateAAD(associatedData);
            // In slices: the JDK's GCM runs its intrinsic per call, and many calls get the loop around
            // it compiled by C2 soon (one 1 MiB doFinal per chunk ran at a tenth of the speed for seconds).
            int o = outOffset + 28;
            int end = offset + length;
            int p = offset;
            while (end - p > SLICE) {
                o += gcm.update(plain, p, SLICE, out, o);
                p += SLICE;
            }
            gcm.doFinal(plain, p, end - p, out, o);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-256-GCM failed to seal: " + e.getMessage(), e);
        }
        return OVERHEAD + length;
    }

    /** {@code plain} sealed. */
    public byte[] seal(byte[] plain, byte[] associatedData) {
        return seal(plain, 0, plain.length, associatedData);
    }

    /**
     * The plain text of {@code sealed[offset, offset + length)}.
     *
     * @throws TamperedException if it was not sealed by this key with this {@code associatedData}, or
     *     was changed since (a flipped byte, a cut, another object's bytes)
     */
    public byte[] open(byte[] sealed, int offset, int length, byte[] associatedData) throws TamperedException {
        Objects.checkFromIndexSize(offset, length, sealed.length);
        if (length < OVERHEAD) {
            throw new TamperedException("it is " + length + " bytes, shorter than a sealed message's " + OVERHEAD
                    + "-byte salt, nonce and tag");
        }
        try {
            Cipher gcm = cipher(Cipher.DECRYPT_MODE, Arrays.copyOfRange(sealed, offset, offset + 28));
            gcm.updateAAD(associatedData);
            return gcm.doFinal(sealed, offset + 28, length - 28);
        } catch (AEADBadTagException e) {
            throw new TamperedException(
                    "its authentication tag does not match: it was changed, or sealed by another key");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-256-GCM failed to open: " + e.getMessage(), e);
        }
    }

    /**
     * The plain text of {@code sealed[offset, offset + length)} written into {@code out} from
     * {@code outOffset}, as {@link #open(byte[], int, int, byte[])} returns it (into a reused buffer,
     * say). When it throws, {@code out}'s bytes in that range are undefined: never hand them on.
     *
     * @return the plain text's length, {@code length - }{@value #OVERHEAD}
     * @throws TamperedException as {@link #open(byte[], int, int, byte[])}
     * @throws IndexOutOfBoundsException if {@code out} has fewer than that many bytes from {@code outOffset}
     */
    public int open(byte[] sealed, int offset, int length, byte[] associatedData, byte[] out, int outOffset)
            throws TamperedException {
        Objects.checkFromIndexSize(offset, length, sealed.length);
        if (length < OVERHEAD) {
            throw new TamperedException("it is " + length + " bytes, shorter than a sealed message's " + OVERHEAD
                    + "-byte salt, nonce and tag");
        }
        Objects.checkFromIndexSize(outOffset, length - OVERHEAD, out.length);
        try {
            Cipher gcm = cipher(Cipher.DECRYPT_MODE, Arrays.copyOfRange(sealed, offset, offset + 28));
            gcm.updateAAD(associatedData);
            return gcm.doFinal(sealed, offset + 28, length - 28, out, outOffset);
        } catch (AEADBadTagException e) {
            throw new TamperedException(
                    "its authentication tag does not match: it was changed, or sealed by another key");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-256-GCM failed to open: " + e.getMessage(), e);
        }
    }

    /** The plain text of {@code sealed}. */
    public byte[] open(byte[] sealed, byte[] associatedData) throws TamperedException {
        return open(sealed, 0, sealed.length, associatedData);
    }

    /** {@code HMAC-SHA256(idKey, data[offset, offset + length))}, 32 bytes. */
    public byte[] id(byte[] data, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, data.length);
        Mac mac = idMacs.get();
        mac.reset(); // a no-op after the last doFinal; a Mac left mid-message by a failure starts over
        mac.update(data, offset, length);
        return mac.doFinal();
    }

    /** {@link #id} of {@code data} as 64 lowercase hex digits. */
    public String idHex(byte[] data) {
        return HexFormat.of().formatHex(id(data, 0, data.length));
    }

    /** A MAC keyed by the ID key, to feed data in parts; {@code doFinal} gives the same bytes as {@link #id}. */
    public Mac idMac() {
        return hmac(idKey);
    }

    /**
     * This thread's AES-GCM cipher, initialised for one message under its derived key. A cipher that
     * threw (a wrong tag, say) is initialised anew on its next use, which discards what it held.
     */
    private Cipher cipher(int mode, byte[] saltAndNonce) throws GeneralSecurityException {
        Mac derive = deriveMacs.get();
        derive.reset();
        derive.update(SEAL_LABEL);
        derive.update(saltAndNonce, 0, 16);
        byte[] messageKey = derive.doFinal();
        Cipher gcm = ciphers.get();
        gcm.init(mode, new SecretKeySpec(messageKey, "AES"), new GCMParameterSpec(128, saltAndNonce, 16, 12));
        return gcm;
    }

    private static Cipher newGcm() {
        try {
            return Cipher.getInstance("AES/GCM/NoPadding");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK has no AES/GCM/NoPadding: " + e.getMessage(), e);
        }
    }

    private static Mac hmac(byte[] key) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac;
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("the JDK has no HmacSHA256: " + e.getMessage(), e);
        }
    }

    /** Random bytes for one thread's salts and nonces ({@link #SALTS_AND_NONCES}); not thread-safe. */
    private static final class SaltsAndNonces {
        private final byte[] bytes = new byte[64 * 28];
        private int used = bytes.length;

        /** Fills {@code out} with bytes never handed out before. */
        void next(byte[] out) {
            if (bytes.length - used < out.length) {
                if (!KernelRandom.read(bytes)) {
                    RANDOM.nextBytes(bytes);
                }
                used = 0;
            }
            System.arraycopy(bytes, used, out, 0, out.length);
            Arrays.fill(bytes, used, used + out.length, (byte) 0);
            used += out.length;
        }
    }

    /** Sealed bytes that did not open: one sentence saying how, without the object's name (the caller adds it). */
    public static final class TamperedException extends Exception {
        private static final long serialVersionUID = 1L;

        public TamperedException(String message) {
            super(message);
        }
    }
}
