package dev.ballast.cli;

import dev.ballast.backup.keys.KeyFiles;
import dev.ballast.backup.keys.Passwords;

/**
 * What {@code backup} does with a store that is new (empty, or not there yet) since issue 22: makes
 * it an encrypted repository first ({@link StoreSession#ENCRYPT_NEW_STORES}), or, with
 * {@value #NO_ENCRYPTION_OPTION}, writes the earlier, unencrypted format into it. Stateless.
 */
final class NewStore {
    private NewStore() {}

    /** The option of {@code backup} that keeps a new store of the earlier, unencrypted format. */
    static final String NO_ENCRYPTION_OPTION = "--insecure-no-encryption";

    /**
     * Opens the store for {@code backup}: as {@link StoreSession#open(CommonOptions, CliContext, StoreSession.Access)} with
     * {@link StoreSession.Access#WRITE}, a new store (no object Ballast writes but key files, {@link StoreSession#holdsNothingButKeys}; another
     * program's objects may be there, or none at all) first
     * made an encrypted repository ({@link StoreSession#ENCRYPT_NEW_STORES}), unless {@code insecureNoEncryption}
     * ({@value #NO_ENCRYPTION_OPTION}): then an empty store is written in the earlier, unencrypted
     * format, a store of that format is used as it is, and an encrypted repository is refused.
     *
     * @throws CliFailure exit 2, nothing written, when the store is empty and no password can be had
     *     (no password option or variable, no terminal), or with {@code insecureNoEncryption} on an
     *     encrypted repository; else as {@link StoreSession#open(CommonOptions, CliContext, StoreSession.Access)}
     */
    static StoreSession openForBackup(CommonOptions o, CliContext ctx, boolean insecureNoEncryption) {
        if (insecureNoEncryption) {
            StoreSession session = StoreSession.openWithoutKey(o, ctx, StoreSession.Access.WRITE);
            try {
                if (Errors.translate(session.where(), null, () -> KeyFiles.isRepository(session.objects()))) {
                    throw new CliFailure(
                            ExitCodes.USAGE,
                            NO_ENCRYPTION_OPTION + " asks for the earlier, unencrypted format, but " + session.where()
                                    + " is an encrypted repository, whose backups stay encrypted: leave the option out"
                                    + " (its password opens it), or pass " + o.anotherStore() + " for a new store"
                                    + " of the earlier format.");
                }
                session.unlock(o, ctx);
                return session;
            } catch (RuntimeException e) {
                session.close();
                throw e;
            }
        }
        if (!StoreSession.ENCRYPT_NEW_STORES) {
            return StoreSession.open(o, ctx, StoreSession.Access.WRITE, false);
        }
        boolean given = Passwords.anyGiven(StoreSession.passwordSources(o, ctx));
        if (!given && holdsNothing(o, ctx)) {
            // Refused before the store is opened for writing: no directory, bucket or object is made.
            throw new CliFailure(
                    ExitCodes.USAGE,
                    "No password was given for the encrypted repository this first backup makes of "
                            + describe(o, ctx) + ": " + Passwords.ways(ctx.env()) + " (or pass "
                            + NO_ENCRYPTION_OPTION + " to store it unencrypted, in the earlier format).");
        }
        if (given && o.unlocked == null && holdsNothing(o, ctx)) {
            // Read now, before the store is opened for writing: a password file that is missing or not
            // UTF-8, or a command that fails, is refused with nothing made (it left a store of an index and
            // a lock that listed as empty, exit 0, before).
            o.newRepositoryPassword = Passwords.forNewRepository(StoreSession.passwordSources(o, ctx));
        }
        try {
            return StoreSession.open(o, ctx, StoreSession.Access.WRITE, true);
        } finally {
            if (o.newRepositoryPassword != null) {
                java.util.Arrays.fill(o.newRepositoryPassword, '\0');
                o.newRepositoryPassword = null;
            }
        }
    }

    /** The store the options name, as messages name it, before it is opened. */
    private static String describe(CommonOptions o, CliContext ctx) {
        return o.endpoint == null
                ? "the local store " + StoreSession.localStoreDirectory(o, ctx)
                : "the S3 endpoint " + o.endpoint + ", bucket '" + o.bucket + "'";
    }

    /**
     * Whether the store the options name is new ({@link StoreSession#holdsNothingButKeys}, or does not exist),
     * looked at read-only: nothing is created, locked or written.
     */
    private static boolean holdsNothing(CommonOptions o, CliContext ctx) {
        if (o.endpoint == null
                && !dev.ballast.storage.object.local.LocalObjectStore.exists(
                        StoreSession.localStoreDirectory(o, ctx))) {
            return true; // a local store the backup would create
        }
        try (StoreSession peek = StoreSession.openWithoutKey(o, ctx, StoreSession.Access.READ)) {
            return Errors.translate(peek.where(), null, () -> {
                try {
                    return peek.holdsNothingButKeys();
                } catch (dev.ballast.storage.BucketNotFoundException e) {
                    return true; // a bucket the backup would create
                }
            });
        }
    }
}
