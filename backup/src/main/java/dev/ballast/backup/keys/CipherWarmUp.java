package dev.ballast.backup.keys;

import java.security.GeneralSecurityException;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Gets the JDK's AES-GCM, HMAC-SHA-256 and SHA-256 compiled by C2 with their intrinsics before a run
 * seals or opens file content in bulk ({@link MasterKey} uses them).
 */
public final class CipherWarmUp {
    private CipherWarmUp() {}

    /** Calls {@link #start} makes of each of the JDK's AES-GCM entry points: above C2's threshold (5,000). */
    static final int WARM_UP_CALLS = 6_000;

    private static final AtomicBoolean WARMING = new AtomicBoolean();

    /**
     * Starts, once per JVM, a daemon thread that gets the JDK's AES-GCM compiled with its intrinsics
     * (AES-NI counter mode, carry-less-multiply GHASH) before the bulk of a run's sealing and opening:
     * HotSpot uses them only in code C2 compiled, and C2 compiles a method after about 5,000 calls.
     * A run seals one chunk per call of about 1 MiB (16 slices of 64 KiB) and opens one per call:
     * 256 MiB is 4,096 slices and 256 opens, so without this a whole run's GCM ran in the JDK's
     * Java fallback at about 35 MiB/s (measured with JFR on a 256 MiB file; docs/backup-format.md,
     * "Speed"). {@value #WARM_UP_CALLS} tiny updates and as many tiny opens under a throwaway key take
     * about 0.15 s of CPU, which a command that seals or opens no file content (an unchanged backup,
     * {@code list}, {@code forget}) should not pay: the pack codec calls this at the first chunk of file
     * content it seals or opens ({@link dev.ballast.backup.pack.BlobType#DATA}). Idempotent, cheap once
     * started (one volatile read); never throws. A class of its own, so that starting it from a command's
     * main thread does not initialise {@link MasterKey} (whose {@link java.security.SecureRandom} sets up the
     * JDK's providers, about 45 ms) there before the key derivation has begun.
     */
    public static void start() {
        if (WARMING.get() || !WARMING.compareAndSet(false, true)) {
            return;
        }
        Thread t = new Thread(CipherWarmUp::run, "ballast-crypto-warm-up");
        t.setDaemon(true);
        t.setPriority(Thread.MIN_PRIORITY);
        t.start();
    }

    private static void run() {
        try {
            SecretKeySpec k = new SecretKeySpec(new byte[32], "AES");
            byte[] iv = new byte[12];
            byte[] block = new byte[32];
            byte[] out = new byte[64];
            Cipher enc = Cipher.getInstance("AES/GCM/NoPadding");
            enc.init(Cipher.ENCRYPT_MODE, k, new GCMParameterSpec(128, iv));
            for (int i = 0; i < WARM_UP_CALLS; i++) {
                enc.update(block, 0, block.length, out, 0);
            }
            byte[] sealed = enc.doFinal();
            // Opens of one real message: after a doFinal a decrypting cipher is ready for the next
            // message under the same key and IV (Cipher#doFinal), so no key schedule per call, and the
            // tag matches, so no exception per call.
            Cipher once = Cipher.getInstance("AES/GCM/NoPadding");
            once.init(Cipher.ENCRYPT_MODE, k, new GCMParameterSpec(128, iv));
            once.updateAAD(block);
            byte[] message = once.doFinal(block);
            Cipher dec = Cipher.getInstance("AES/GCM/NoPadding");
            dec.init(Cipher.DECRYPT_MODE, k, new GCMParameterSpec(128, iv));
            for (int i = 0; i < WARM_UP_CALLS; i++) {
                dec.updateAAD(block);
                dec.doFinal(message, 0, message.length, out, 0);
            }
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(new byte[32], "HmacSHA256"));
            for (int i = 0; i < WARM_UP_CALLS; i++) {
                mac.update(sealed, 0, sealed.length);
            }
            // SHA-256 (chunk IDs, file hashes) over many 64-byte blocks per call: C2 uses its many-block
            // intrinsic where it compiles a caller of DigestBase.implCompressMultiBlock0, which happens
            // after about 5,000 calls of that caller (it has no loop of its own to count). A restore
            // calls it once per chunk of about 1 MiB, so in some runs most chunks were hashed one 64-byte
            // block per call (profiles of restores of the JDK tree). 6,000 calls of two blocks get it
            // compiled, hashing 750 KiB.
            java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
            byte[] blocks = new byte[128];
            for (int i = 0; i < WARM_UP_CALLS; i++) {
                sha.update(blocks, 0, blocks.length);
            }
            sha.digest();
        } catch (GeneralSecurityException | RuntimeException | OutOfMemoryError e) {
            // only a warm-up: the real calls report their own failures (a heap too small for the
            // password's Argon2id is reported by the key derivation, in one sentence); without this
            // catch the thread's death would print a line of its own beside that sentence
        }
    }
}
