package dev.ballast.storage.internal;

import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;

/** SHA-256 helpers (FIPS 180-4). Stateless and thread-safe. */
public final class Sha256 {
    private static final HexFormat HEX = HexFormat.of();

    private Sha256() {}

    /** Cloned for each new digest: a provider lookup per digest costs more than hashing a small object. */
    private static final MessageDigest PROTOTYPE = lookUp();

    private static MessageDigest lookUp() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
    }

    /** A new SHA-256 digest; every JDK provides it. */
    public static MessageDigest newDigest() {
        try {
            return (MessageDigest) PROTOTYPE.clone();
        } catch (CloneNotSupportedException e) {
            return lookUp();
        }
    }

    /** Lowercase hex of a digest. */
    public static String hex(byte[] digest) {
        return HEX.formatHex(digest);
    }

    /** Base64 of the raw digest, as S3's {@code x-amz-checksum-sha256} wants it. */
    public static String base64(byte[] digest) {
        return Base64.getEncoder().encodeToString(digest);
    }

    /** The raw digest of a lowercase or uppercase hex string. */
    public static byte[] fromHex(String hex) {
        return HEX.parseHex(hex);
    }

    /** Digest of {@code bytes}. */
    public static byte[] of(byte[] bytes) {
        return newDigest().digest(bytes);
    }

    /** Digest of the rest of {@code in}, read in 64 KiB chunks; does not close it. */
    public static byte[] of(InputStream in) throws IOException {
        MessageDigest digest = newDigest();
        byte[] buf = new byte[64 * 1024];
        int n;
        while ((n = in.read(buf)) != -1) {
            digest.update(buf, 0, n);
        }
        return digest.digest();
    }
}
