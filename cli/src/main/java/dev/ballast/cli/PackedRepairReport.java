package dev.ballast.cli;

import dev.ballast.backup.content.PackedBlobs;
import dev.ballast.backup.pack.CheckReport;
import dev.ballast.backup.pack.RepairReport;
import dev.ballast.backup.retention.PackedRepair;
import dev.ballast.backup.snapshot.Manifests;
import dev.ballast.backup.snapshot.SnapshotTime;
import dev.ballast.storage.object.local.LocalObjectStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * {@code ballast repair index} and {@code ballast repair packs} on an encrypted repository (format 3):
 * {@link PackedRepair} under the prune marker, and its report in a few lines.
 */
final class PackedRepairReport {
    private PackedRepairReport() {}

    /** At most this many damaged objects are listed one a line; the rest are counted. */
    private static final int LISTED = 20;

    /** A version of {@code key} whose content the store lost ({@code IndexRebuild#contentMissing}). */
    record LostVersion(String key, String versionId) {}

    /** {@link #repairIfEncrypted(CliContext, CommonOptions, String, List)} with no lost index files. */
    static @Nullable Integer repairIfEncrypted(CliContext ctx, CommonOptions common, String what) {
        return repairIfEncrypted(ctx, common, what, List.of());
    }

    /**
     * Repairs the store the options name when it is an encrypted repository, returning the exit code;
     * null when it is a store of the earlier format (or a local store whose own index.db is too damaged
     * to open it), which the caller repairs as before. Once the repair ran, {@code lostIndexFiles} (index
     * files whose content the local store lost) are removed: the packs they named are indexed from their
     * headers by then.
     */
    static @Nullable Integer repairIfEncrypted(
            CliContext ctx, CommonOptions common, String what, List<LostVersion> lostIndexFiles) {
        if (common.endpoint == null) {
            Path dir = StoreSession.localStoreDirectory(common, ctx);
            if (!LocalObjectStore.exists(dir)) {
                return null; // no store, or one whose index.db is gone: the local rebuild says which
            }
        }
        StoreSession session;
        try {
            session = StoreSession.open(common, ctx, StoreSession.Access.REMOVE);
        } catch (CliFailure f) {
            if (common.endpoint == null
                    && !"packs".equals(what)
                    && f.exitCode() != ExitCodes.WRONG_PASSWORD
                    && f.exitCode() != ExitCodes.USAGE) {
                // the local store does not open (its own index.db damaged, say): rebuilt from its journal first
                return null;
            }
            // 'repair packs' has no other path: the store's own failure (a damaged config, say) is the
            // answer, not that the store would be of the earlier format
            throw f;
        }
        try (session) {
            if (session.masterKey() == null) {
                return null;
            }
            return repair(ctx, session, "packs".equals(what), lostIndexFiles);
        }
    }

    private static int repair(
            CliContext ctx, StoreSession session, boolean readData, List<LostVersion> lostIndexFiles) {
        try (Repository repo = Repository.storeOnly(session)) {
            PackedBlobs blobs = (PackedBlobs) Errors.translate(session.where(), null, () -> repo.content(4));
            PackedRepair.Result r = Errors.translate(
                    session.where(),
                    null,
                    () -> PackedRepair.run(repo.sealed(), blobs.blobs(), pack -> readData, ctx.clock()));
            r.skipped().forEach(why -> ctx.err().println("Not repaired: " + Errors.printable(why) + "."));
            RepairReport report = r.report();
            if (report == null) {
                ctx.err()
                        .println("Repair of " + session.where()
                                + " changed nothing; run it again once the backups and prunes have ended.");
                return ExitCodes.UNAVAILABLE;
            }
            // What the repair leaves damaged: snapshots naming chunks no pack holds any more (dropped now or by an
            // earlier repair or verify), which only a backup of a source that still has the files heals.
            List<PackedRepair.Lacking> lacking =
                    Errors.translate(session.where(), null, () -> PackedRepair.lacking(repo.sealed(), blobs));
            int code = print(ctx, session.where(), report, readData, lacking);
            removeLost(ctx, session, lostIndexFiles);
            return code;
        }
    }

    /**
     * Removes {@code lostFiles}, index files whose content the local store lost and no longer lists, once
     * the repository's repair ran: it indexed the packs they named from the packs' headers.
     */
    private static void removeLost(CliContext ctx, StoreSession session, List<LostVersion> lostFiles) {
        if (lostFiles.isEmpty()) {
            return;
        }
        java.util.Set<String> listed = new java.util.HashSet<>(
                Errors.translate(session.where(), null, () -> session.objects().list("index/")));
        int removed = 0;
        for (LostVersion v : lostFiles) {
            if (!listed.contains(v.key())) {
                Errors.translate(session.where(), null, () -> {
                    session.objects().deleteVersion(v.key(), v.versionId());
                    return null;
                });
                removed++;
            }
        }
        if (removed > 0) {
            ctx.out()
                    .println("Removed " + removed + " index file(s) whose content the store had lost; the packs they"
                            + " named are indexed from their headers.");
        }
    }

    private static int print(
            CliContext ctx, String where, RepairReport r, boolean readData, List<PackedRepair.Lacking> lacking) {
        int listed = 0;
        for (CheckReport.Damage d : r.damage()) {
            if (listed++ < LISTED) {
                ctx.err().println("Damaged: " + Errors.printable(d.toString()));
            }
        }
        if (r.damage().size() > LISTED) {
            ctx.err().println("... and " + (r.damage().size() - LISTED) + " more.");
        }
        String read = readData ? ", " + Summary.count(r.packsRead(), "pack") + " read whole" : "";
        if (!r.changed()) {
            if (!r.unreadablePacks().isEmpty()) {
                ctx.out()
                        .println("The repository's index in " + where + " names every pack in the store whose header"
                                + " opens" + read + ": nothing else to repair.");
                ctx.err().println(unreadableSentence(r) + ".");
                printLacking(ctx, lacking, true);
                return ExitCodes.INTEGRITY;
            }
            if (!lacking.isEmpty()) {
                ctx.out()
                        .println("The repository's index in " + where + " names every pack in the store and nothing"
                                + " else" + read + ": no pack or index file to repair, but backups still lack chunks"
                                + " (below).");
                printLacking(ctx, lacking, true);
                return ExitCodes.INTEGRITY;
            }
            ctx.out()
                    .println("The repository's index in " + where + " names every pack in the store and nothing else"
                            + read + ": nothing to repair"
                            + (readData ? "." : " ('ballast repair packs' also reads every pack)."));
            return ExitCodes.OK;
        }
        List<String> done = new ArrayList<>();
        if (r.packsIndexed() > 0) {
            done.add(r.packsIndexed() + " pack(s) indexed from their headers");
        }
        if (!r.indexFilesReplaced().isEmpty()) {
            done.add(r.indexFilesReplaced().size() + " damaged index file(s) replaced");
        }
        if (!r.restoredPacks().isEmpty()) {
            done.add(r.restoredPacks().size() + " deleted pack(s) brought back from their earlier version");
        }
        if (!r.missingPacks().isEmpty()) {
            done.add(r.missingPacks().size() + " missing pack(s) dropped");
        }
        if (!r.salvagedPacks().isEmpty()) {
            done.add(r.salvagedPacks().size() + " damaged pack(s) replaced by their intact chunks");
        }
        ctx.out().println("Repaired the repository's index in " + where + read + ": " + String.join(", ", done) + ".");
        if (r.blobsLost() == 0 && r.unreadablePacks().isEmpty() && lacking.isEmpty()) {
            return ExitCodes.OK;
        }
        printLacking(ctx, lacking, r.blobsLost() == 0);
        if (r.blobsLost() == 0) {
            if (!r.unreadablePacks().isEmpty()) {
                ctx.err().println(unreadableSentence(r) + ".");
            }
            return ExitCodes.INTEGRITY;
        }
        ctx.err()
                .println(r.blobsLost() + " chunk(s) are lost from the repository: the backups that use them are"
                        + " damaged until a backup of a source that still holds those files stores them again (run"
                        + " 'ballast backup' of each source, then 'ballast verify NAME' to see what is still missing)"
                        + (r.unreadablePacks().isEmpty() ? "." : "; " + unreadableSentence(r) + "."));
        return ExitCodes.INTEGRITY;
    }

    /**
     * Names each snapshot that lacks chunks and its first files, one a line, then (with {@code advise})
     * what heals them, in {@code verify}'s words ({@link VerifyCommand#missingChunksAdvice}).
     */
    private static void printLacking(CliContext ctx, List<PackedRepair.Lacking> lacking, boolean advise) {
        if (lacking.isEmpty()) {
            return;
        }
        int listed = 0;
        java.util.Set<String> names = new java.util.TreeSet<>();
        for (PackedRepair.Lacking l : lacking) {
            names.add(l.name());
            if (listed++ < LISTED) {
                ctx.err()
                        .println("Lacking chunks: backup '" + Errors.printable(l.name()) + "', snapshot "
                                + Manifests.label(l.versionId()) + " of " + SnapshotTime.of(l.snapshot()) + ": "
                                + Summary.count(l.files().size(), "file") + " ("
                                + String.join(
                                        ", ",
                                        l.files().stream()
                                                .limit(3)
                                                .map(Errors::printable)
                                                .toList())
                                + (l.files().size() > 3 ? " and " + (l.files().size() - 3) + " more" : "") + ")");
            }
        }
        if (lacking.size() > LISTED) {
            ctx.err().println("... and " + (lacking.size() - LISTED) + " more.");
        }
        if (advise) {
            ctx.err()
                    .println(lacking.size() + " snapshot(s) of " + names.size() + " backup(s) name chunks no pack in"
                            + " the repository holds (listed above), so those files cannot be restored from them"
                            + " and no repair can bring the chunks back; "
                            + VerifyCommand.missingChunksAdvice(
                                    "missing",
                                    "; or restore, with --manifest-version, a snapshot of the same name that is not"
                                            + " listed, if there is one")
                            + " ('ballast verify NAME' names every such file).");
        }
    }

    /**
     * Packs no index file names whose header does not open: which chunks they hold cannot be known, so they
     * are neither indexed nor counted as lost.
     */
    private static String unreadableSentence(RepairReport r) {
        return r.unreadablePacks().size() + " pack(s) that no index file names have a header that does not open"
                + " (named above): which chunks they hold cannot be read, so they were left as they are and are not"
                + " counted; 'ballast verify NAME' says whether a backup misses a chunk (a prune deletes such packs"
                + " once they are older than its grace period, unless a chunk a snapshot needs is missing)";
    }
}
