package dev.ballast.cli;

import com.fasterxml.jackson.core.JsonFactory;
import dev.ballast.backup.keys.KdfParameters;
import dev.ballast.storage.object.local.LocalObjectStore;
import dev.ballast.storage.object.s3.S3ObjectStore;
import java.security.MessageDigest;
import org.jspecify.annotations.Nullable;

/**
 * What a command starts before its arguments are parsed, each on a daemon thread of its own so that
 * the main thread never waits for it: the warm-up of what nearly every command loads, the memory of
 * the key derivation, and the S3 client's one-time work. A guess from the raw arguments that turns out
 * wrong costs that thread's CPU only; the command then does the work itself where it needs it.
 */
final class StartUp {
    private StartUp() {}

    /** Starts the threads that {@code args} (and {@code repositoryVariable}, $BALLAST_REPOSITORY) call for. */
    static void begin(String[] args, @Nullable String repositoryVariable) {
        String s3 = s3Endpoint(args, repositoryVariable);
        warmUp(s3 == null);
        prepareKeyDerivation(args);
        if (s3 != null) {
            prepareS3(!isPlainHttp(s3));
        }
    }

    /**
     * Loads, on a second thread while the command line is parsed, what nearly every command needs
     * next: the local store's SQLite driver and native library, the SHA-256 provider and the JSON
     * parser, and the JDK's AES-GCM and HMAC. On two or more cores this takes a few hundred
     * milliseconds off a short command. Nothing waits for it; a failure is met again, and reported, where
     * the command needs the part. A command given an S3 endpoint ({@code localStore} false) never opens
     * the local store: loading SQLite for it took about 0.25 s of CPU from the other threads of a restore
     * from Ceph RGW (async-profiler), on two cores that the command's own threads need.
     */
    private static void warmUp(boolean localStore) {
        Thread warmUp = new Thread(
                () -> {
                    if (localStore) {
                        LocalObjectStore.preload();
                    }
                    try {
                        MessageDigest.getInstance("SHA-256").digest(new byte[64]);
                        // the first Cipher sets up the JDK's JCE (its policy files, its providers): about
                        // 20 ms the key file's opening would otherwise spend after the key derivation
                        javax.crypto.Cipher.getInstance("AES/GCM/NoPadding");
                        javax.crypto.Mac.getInstance("HmacSHA256");
                    } catch (java.security.GeneralSecurityException ignored) {
                        // every JDK has these; the command reports it if not
                    }
                    new JsonFactory();
                },
                "ballast-warm-up");
        warmUp.setDaemon(true);
        warmUp.start();
    }

    /** The commands that open a repository, and so derive a key from its password. */
    private static final java.util.Set<String> DERIVING =
            java.util.Set.of("init", "backup", "restore", "list", "ls", "verify", "forget", "prune", "repair", "key");

    /**
     * For a command that will derive the key of a repository's password (Argon2id, 64 MiB by
     * default), allocates that memory now on a thread of its own (KdfParameters#prepare): its page
     * faults are then paid while the arguments are parsed and the store opened, not when the key is
     * derived. Not for help, a version or a store of the unencrypted format asked for.
     */
    private static void prepareKeyDerivation(String[] args) {
        if (args.length == 0 || !DERIVING.contains(args[0])) {
            return;
        }
        for (String a : args) {
            if (a.equals("--help")
                    || a.equals("-h")
                    || a.equals("--version")
                    || a.equals("-V")
                    || a.equals("--insecure-no-encryption")) {
                return;
            }
        }
        Thread prepare = new Thread(KdfParameters.DEFAULT::prepare, "ballast-kdf-memory");
        prepare.setDaemon(true);
        prepare.start();
    }

    /**
     * For a command given an S3 endpoint ({@code --endpoint}, or {@code s3:...} as {@code -r},
     * {@code --repo} or, without {@code --data-dir}, {@code $BALLAST_REPOSITORY}), does the S3 store's
     * one-time start-up work ({@link S3ObjectStore#preload}: the TLS context, the AWS SDK's service
     * metadata) on a thread of its own while the arguments are parsed and the password read, not on the
     * main thread when the store is opened (about 0.2 s of a restore from Ceph RGW given {@code -r
     * s3:...}, which did it on the main thread). A wrong guess costs that thread's CPU, and the local
     * store's classes are then loaded when the command opens it. Without the TLS context ({@code tls}
     * false) for an {@code http://} endpoint, whose client is built with {@link PlainHttpOnly}'s: on two
     * cores setting up the JDK's default one (about 0.15 s of CPU) took time from the command's own threads.
     */
    private static void prepareS3(boolean tls) {
        Thread preload = new Thread(() -> S3ObjectStore.preload(tls), "ballast-s3-preload");
        preload.setDaemon(true);
        preload.start();
    }

    /** Whether {@code args} (or {@code variable}, $BALLAST_REPOSITORY) name an S3 endpoint, as {@link #prepareS3} says. */
    static boolean namesS3Endpoint(String[] args, @Nullable String variable) {
        return s3Endpoint(args, variable) != null;
    }

    /**
     * The S3 endpoint {@code args} (or {@code variable}) name, as given ({@code --endpoint}'s URL, or the
     * {@code s3:...} repository; empty when {@code --endpoint} ends the arguments), or null when they name
     * none.
     */
    static @Nullable String s3Endpoint(String[] args, @Nullable String variable) {
        boolean local = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.startsWith("--endpoint=")) {
                return a.substring("--endpoint=".length());
            }
            if (a.equals("--endpoint")) {
                return i + 1 < args.length ? args[i + 1] : "";
            }
            String repo = a.startsWith("--repo=")
                    ? a.substring("--repo=".length())
                    : (a.equals("-r") || a.equals("--repo")) && i + 1 < args.length ? args[i + 1] : null;
            if (repo != null) {
                return isS3(repo) ? repo : null;
            }
            local |= a.equals("--data-dir") || a.startsWith("--data-dir=");
        }
        return !local && variable != null && isS3(variable) ? variable : null;
    }

    /**
     * Whether an endpoint as {@link #s3Endpoint} returns it is plain HTTP ({@code http://...} or
     * {@code s3:http://...}); {@code s3:host/bucket} is HTTPS, as in restic.
     */
    static boolean isPlainHttp(String endpoint) {
        String url = isS3(endpoint) ? endpoint.substring(3) : endpoint;
        return url.regionMatches(true, 0, "http://", 0, 7);
    }

    private static boolean isS3(String repository) {
        return repository.regionMatches(true, 0, "s3:", 0, 3);
    }
}
