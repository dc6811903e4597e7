package dev.ballast.cli;

import dev.ballast.backup.snapshot.Manifests;
import dev.ballast.storage.object.VersionEntry;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(
        name = "versions",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        description = "List the stored versions of one file of a backup, newest first, with version IDs, dates "
                + "and sizes (delete markers included).")
final class VersionsCommand extends BallastCommand {
    @Parameters(
            index = "0",
            paramLabel = "NAME/PATH",
            description = "The backup name and the file's path in it, e.g. jdk/lib/modules.")
    String key;

    VersionsCommand(CliContext ctx) {
        super(ctx);
    }

    @Override
    public Integer call() {
        int slash = key.indexOf('/');
        if (slash <= 0 || slash == key.length() - 1) {
            throw new CliFailure(
                    ExitCodes.USAGE,
                    "'" + key + "' is not NAME/PATH; pass the backup name and the file's "
                            + "path in it, e.g. 'jdk/lib/modules'.");
        }
        Manifests.checkExistingName(key.substring(0, slash));
        try (StoreSession session = StoreSession.open(common, ctx, StoreSession.Access.READ)) {
            if (Repository.masterKey(session) != null) {
                throw new CliFailure(
                        ExitCodes.USAGE,
                        "'versions' does not apply to an encrypted repository, whose files are chunks in packs rather"
                                + " than objects with versions: 'ballast list' shows the snapshots of each name,"
                                + " 'ballast ls " + key.substring(0, slash) + " --manifest-version ID' the files of"
                                + " one of them with their sizes and times, and 'ballast restore "
                                + key.substring(0, slash) + " TARGET-DIR " + key.substring(slash + 1)
                                + " --manifest-version ID' restores the file as that snapshot holds it.");
            }
            List<VersionEntry> versions;
            try {
                versions = Errors.translate(
                        session.where(), null, () -> session.objects().versions(key));
            } catch (IllegalArgumentException e) {
                throw new CliFailure(
                        ExitCodes.USAGE, "'" + key + "' is not a valid object key (" + e.getMessage() + ").", e);
            }
            if (versions.isEmpty()) {
                throw new CliFailure(
                        ExitCodes.NOT_FOUND,
                        "No versions of '" + key + "' in " + session.where()
                                + "; 'ballast list' shows the backup names and 'ballast ls NAME' the paths in one.");
            }
            ctx.out().println(key);
            for (VersionEntry v : versions) {
                ctx.out()
                        .printf(
                                "  %-40s %s %12s%s%s%n",
                                v.versionId(),
                                v.lastModified(),
                                v.deleteMarker() ? "-" : v.size() + " B",
                                v.latest() ? "  (latest)" : "",
                                v.deleteMarker() ? "  DELETE MARKER" : "");
            }
            return ExitCodes.OK;
        }
    }
}
