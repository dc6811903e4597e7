package dev.ballast.cli;

import dev.ballast.backup.keys.KeyDerivationAhead;
import dev.ballast.backup.keys.KeyFiles;
import dev.ballast.backup.keys.Passwords;
import java.util.Arrays;
import picocli.CommandLine.Command;

/**
 * {@code ballast init}: makes the store the common options name an encrypted repository (format 3,
 * docs/backup-format.md): a new master key, sealed in its first key file under the password, and its
 * {@code config}. As restic's {@code init}: it prints the repository's ID and that the password cannot
 * be recovered. The store must be empty: one holding backups of the earlier formats is refused
 * (those keep working unencrypted), as is one that is already a repository.
 */
@Command(
        name = "init",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        description = "Create an encrypted repository in the store (the local store under --data-dir, or the"
                + " --endpoint bucket), which must be empty: every backup stored in it is then sealed with AES-256-GCM"
                + " under a master key that only its passwords open (Argon2id). The password comes from"
                + " --password-file, --password-command, $BALLAST_PASSWORD, $BALLAST_PASSWORD_FILE or"
                + " $BALLAST_PASSWORD_COMMAND, else it is asked twice on the terminal."
                + " Without the password, nothing in the repository can be read back: keep it safe, or add a second"
                + " key with 'ballast key add'.")
final class InitCommand extends BallastCommand {
    InitCommand(CliContext ctx) {
        super(ctx);
    }

    @Override
    public Integer call() {
        // The password first: nothing is created (no bucket, no directory) when none is given.
        char[] password = Passwords.forNewRepository(StoreSession.passwordSources(common, ctx));
        try (StoreSession session = StoreSession.openWithoutKey(common, ctx, StoreSession.Access.WRITE)) {
            KeyDerivationAhead key = KeyDerivationAhead.none();
            KeyFiles.UnlockedRepository made = Errors.translate(
                    session.where(), null, () -> session.keyFiles().init(session.objects(), password, key));
            String place = StoreSession.cachePlace(common, ctx);
            KeyDerivationAhead.Salt salt = key.opened();
            if (place != null && salt != null) {
                // The next command derives this key while it opens the store (replacing another repository's entry).
                new KeySaltCache(ctx.cacheDir(), ctx.clock()).remember(place, salt);
            }
            ctx.out()
                    .println("Created the encrypted repository " + made.config().id() + " in " + session.where()
                            + " (key " + made.keyId().substring(0, KeyFiles.SHORT_ID) + ").");
            ctx.out()
                    .println("Keep the password safe: without it (or the password of another key, 'ballast key"
                            + " add'), nothing in this repository can be read back, by you or anyone.");
            return ExitCodes.OK;
        } finally {
            Arrays.fill(password, '\0');
        }
    }
}
