package dev.ballast.storage.internal;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * MD5 (RFC 1321) for S3's {@code Content-MD5} header (RFC 1864) and multipart ETags: an integrity
 * check the server validates, never a security digest. Stateless and thread-safe.
 */
public final class Md5 {
    private Md5() {}

    /** Cloned for each new digest, as {@link Sha256} does. */
    private static final MessageDigest PROTOTYPE = lookUp();

    private static MessageDigest lookUp() {
        try {
            return MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is required of every Java platform", e);
        }
    }

    /** A new MD5 digest; every JDK provides it. */
    public static MessageDigest newDigest() {
        try {
            return (MessageDigest) PROTOTYPE.clone();
        } catch (CloneNotSupportedException e) {
            return lookUp();
        }
    }

    /** Base64 of a raw digest, as {@code Content-MD5} carries it (RFC 1864). */
    public static String base64(byte[] digest) {
        return Base64.getEncoder().encodeToString(digest);
    }

    /**
     * The ETag S3 gives an object completed from parts with these MD5s: the hex MD5 of the parts' raw
     * MD5s concatenated, a hyphen and the part count, in quotes. AWS documents the form
     * ({@code "...-N"}, <a href="https://docs.aws.amazon.com/AmazonS3/latest/userguide/checking-object-integrity.html">checking
     * object integrity</a>) and Ceph RGW, MinIO and S3Mock compute it so.
     */
    public static String multipartETag(byte[][] partMd5s) {
        MessageDigest md5 = newDigest();
        for (byte[] part : partMd5s) {
            md5.update(part);
        }
        return "\"" + Sha256.hex(md5.digest()) + "-" + partMd5s.length + "\"";
    }
}
