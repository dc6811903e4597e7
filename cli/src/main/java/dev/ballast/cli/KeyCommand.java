package dev.ballast.cli;

import dev.ballast.backup.keys.KdfParameters;
import dev.ballast.backup.keys.KeyFiles;
import dev.ballast.backup.keys.KeyFiles.KeyInfo;
import dev.ballast.backup.keys.Passwords;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ballast key list|add|remove ID|passwd}: the keys (passwords) of an encrypted repository, as
 * restic's {@code key} command. Every subcommand opens the repository with a current password first
 * (the common password options); {@code add} and {@code passwd} take the new one from
 * {@code --new-password-file} or ask for it twice on the terminal.
 */
@Command(
        name = "key",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        description = "Manage the keys of an encrypted repository: each key is one password that opens it. 'key"
                + " list' shows them, 'key add' adds a password, 'key remove ID' removes one (never the one in use,"
                + " never the last), 'key passwd' changes the password in use.",
        subcommands = {KeyCommand.ListKeys.class, KeyCommand.Add.class, KeyCommand.Remove.class, KeyCommand.Passwd.class
        })
final class KeyCommand extends BallastCommand {
    KeyCommand(CliContext ctx) {
        super(ctx);
    }

    @Override
    public Integer call() {
        throw new CliFailure(
                ExitCodes.USAGE,
                "Missing subcommand: pass one of list, add, remove ID, passwd ('ballast key --help').");
    }

    /** Opens the store and its repository (the password checked), or says the store is none. */
    static StoreSession openRepository(CommonOptions common, CliContext ctx, StoreSession.Access access) {
        StoreSession session = StoreSession.open(common, ctx, access);
        if (session.repository() == null) {
            String where = session.where();
            session.close();
            throw new CliFailure(
                    ExitCodes.NOT_FOUND,
                    "There is no encrypted repository in " + where + " (it has no config), so it has no keys; 'ballast"
                            + " init' makes one in an empty store.");
        }
        return session;
    }

    /** The option of the subcommands that set a new password. */
    static final class NewPassword {
        @Option(
                names = "--new-password-file",
                paramLabel = "FILE",
                description = "Read the new password from the first line of FILE (default: asked twice on the"
                        + " terminal).")
        Path file;

        char[] read(CliContext ctx) {
            return Passwords.forNewKey(file, StoreSession.terminalPrompt(ctx));
        }
    }

    @Command(
            name = "list",
            sortOptions = false,
            mixinStandardHelpOptions = true,
            description = "List the keys of the repository: ID (the first 8 of 64 hex digits), who added it on which"
                    + " host, when, and its password's Argon2id cost; '*' marks the key whose password was given.")
    static final class ListKeys extends BallastCommand {
        ListKeys(CliContext ctx) {
            super(ctx);
        }

        @Override
        public Integer call() {
            try (StoreSession session = openRepository(common, ctx, StoreSession.Access.READ)) {
                List<KeyInfo> keys = Errors.translate(
                        session.where(),
                        null,
                        () -> session.keyFiles()
                                .list(session.objects(), session.repository().keyId()));
                ctx.out().println(table(keys));
                return ExitCodes.OK;
            }
        }

        /** A key's short ID; the whole name of another object under keys/ (keys/junk), which is not one. */
        private static String shownId(KeyInfo k) {
            return k.id().matches("[0-9a-f]{64}") ? k.shortId() : k.id();
        }

        static String table(List<KeyInfo> keys) {
            DateTimeFormatter when =
                    DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneOffset.UTC);
            String[] header = {" ID", "User", "Host", "Created (UTC)", "KDF"};
            List<String[]> rows = new java.util.ArrayList<>();
            rows.add(header);
            for (KeyInfo k : keys) {
                KdfParameters kdf = k.kdf();
                rows.add(
                        k.damage() != null || kdf == null
                                ? new String[] {
                                    " " + shownId(k),
                                    "",
                                    "",
                                    "",
                                    "damaged: " + k.damage() + " (ballast key remove " + shownId(k) + ")"
                                }
                                : new String[] {
                                    (k.current() ? "*" : " ") + k.shortId(),
                                    k.username(),
                                    k.host(),
                                    when.format(k.created()),
                                    "argon2id " + kdf.memoryKiB() / 1024 + " MiB t=" + kdf.iterations() + " p="
                                            + kdf.parallelism()
                                });
            }
            int[] widths = new int[header.length];
            for (String[] r : rows) {
                for (int i = 0; i < r.length; i++) {
                    widths[i] = Math.max(widths[i], Errors.printable(r[i]).length());
                }
            }
            StringBuilder out = new StringBuilder();
            for (int n = 0; n < rows.size(); n++) {
                String[] r = rows.get(n);
                StringBuilder line = new StringBuilder();
                for (int i = 0; i < r.length; i++) {
                    String cell = Errors.printable(r[i]);
                    line.append(cell).append(i < r.length - 1 ? " ".repeat(widths[i] - cell.length() + 2) : "");
                }
                out.append(line.toString().stripTrailing()).append('\n');
                if (n == 0) {
                    out.append("-".repeat(line.toString().stripTrailing().length()))
                            .append('\n');
                }
            }
            return out.toString().stripTrailing();
        }
    }

    @Command(
            name = "add",
            sortOptions = false,
            mixinStandardHelpOptions = true,
            description = "Add a key: a new password that opens the repository beside the others. The current"
                    + " password comes from the password options; the new one from --new-password-file, else it is"
                    + " asked twice on the terminal.")
    static final class Add extends BallastCommand {
        @picocli.CommandLine.Mixin
        NewPassword newPassword = new NewPassword();

        Add(CliContext ctx) {
            super(ctx);
        }

        @Override
        public Integer call() {
            try (StoreSession session = openRepository(common, ctx, StoreSession.Access.UPDATE)) {
                char[] pw = newPassword.read(ctx);
                try {
                    KeyInfo added = Errors.translate(
                            session.where(),
                            null,
                            () -> session.keyFiles().add(session.objects(), session.repository(), pw));
                    ctx.out().println("Added key " + added.shortId() + " (" + added.id() + ").");
                    return ExitCodes.OK;
                } finally {
                    Arrays.fill(pw, '\0');
                }
            }
        }
    }

    @Command(
            name = "remove",
            sortOptions = false,
            mixinStandardHelpOptions = true,
            description = "Remove the key whose ID starts with ID (as 'key list' shows it), every stored version of"
                    + " its key file: its password no longer opens the repository. Never the key whose password was"
                    + " given (use 'key passwd' to change it), so never the last one.")
    static final class Remove extends BallastCommand {
        @Parameters(index = "0", paramLabel = "ID", description = "The key's ID or its first characters.")
        String id;

        Remove(CliContext ctx) {
            super(ctx);
        }

        @Override
        public Integer call() {
            try (StoreSession session = openRepository(common, ctx, StoreSession.Access.UPDATE)) {
                KeyInfo removed = Errors.translate(
                        session.where(),
                        null,
                        () -> session.keyFiles().remove(session.objects(), session.repository(), id));
                ctx.out().println("Removed key " + removed.shortId() + " (" + removed.id() + ").");
                return ExitCodes.OK;
            }
        }
    }

    @Command(
            name = "passwd",
            sortOptions = false,
            mixinStandardHelpOptions = true,
            description = "Change the password of the key in use: a key with the new password is added, then the"
                    + " old one removed (so the repository is never without a key). The new password comes from"
                    + " --new-password-file, else it is asked twice on the terminal.")
    static final class Passwd extends BallastCommand {
        @picocli.CommandLine.Mixin
        NewPassword newPassword = new NewPassword();

        Passwd(CliContext ctx) {
            super(ctx);
        }

        @Override
        public Integer call() {
            try (StoreSession session = openRepository(common, ctx, StoreSession.Access.UPDATE)) {
                char[] pw = newPassword.read(ctx);
                try {
                    KeyFiles.UnlockedRepository changed = Errors.translate(
                            session.where(),
                            null,
                            () -> session.keyFiles().changePassword(session.objects(), session.repository(), pw));
                    ctx.out()
                            .println("Changed the password: key "
                                    + changed.keyId().substring(0, KeyFiles.SHORT_ID)
                                    + " replaces key "
                                    + session.repository().keyId().substring(0, KeyFiles.SHORT_ID)
                                    + ".");
                    return ExitCodes.OK;
                } finally {
                    Arrays.fill(pw, '\0');
                }
            }
        }
    }
}
