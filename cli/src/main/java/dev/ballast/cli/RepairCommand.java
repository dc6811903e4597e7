package dev.ballast.cli;

import dev.ballast.backup.keys.KeyFiles;
import dev.ballast.storage.object.local.IndexRebuild;
import dev.ballast.storage.object.local.LocalObjectStore;
import dev.ballast.storage.object.local.LocalStoreConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(
        name = "repair",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        description =
                "'ballast repair index': in an encrypted repository (ballast init), rebuild its index from its packs, as "
                        + "'restic repair index' does: packs no intact index file names are indexed from their headers, "
                        + "damaged index files replaced, and packs the index names that are missing dropped from it, so "
                        + "the next backup stores their chunks again from the source and every backup using them reads "
                        + "again. 'ballast repair packs' also reads every pack and copies the intact chunks of a damaged "
                        + "one into new packs before deleting it ('restic repair packs'). Exit 0 when nothing was lost, "
                        + "4 when chunks were lost (the backups that need them are damaged until a backup stores them again). "
                        + "On the local store (without --endpoint), 'repair index' first rebuilds the store's own index (index.db) from the store's own files, when "
                        + "it is damaged, cut short, deleted or missing rows, as 'restic repair index' does. Every backup version "
                        + "the store's journal records comes back with its content, checked against its SHA-256; a version whose "
                        + "content is gone or damaged (a lost pack or content file, or bytes that no longer match) is named, and "
                        + "reading it is reported as damage. An index that is still intact keeps every version it holds. Damaged "
                        + "journal frames are skipped, and the versions they named are listed. The old index is kept beside the "
                        + "new one (index.db.before-repair-MILLIS) when the rebuild changed it. Exit 0 when everything came back, 4 when content is lost or "
                        + "the store has no journal, 1 when the journal is damaged, 2 when the store cannot be written; then, in an "
                        + "encrypted repository, the repository's index as above (the worse exit code of the two).")
final class RepairCommand extends BallastCommand {
    @Parameters(
            index = "0",
            paramLabel = "index|packs",
            description = "What to repair: 'index' (the repository's index, or the local store's index.db), or 'packs'"
                    + " (an encrypted repository's damaged packs).")
    String what;

    RepairCommand(CliContext ctx) {
        super(ctx);
    }

    @Override
    public Integer call() {
        if (!"index".equals(what) && !"packs".equals(what)) {
            throw new CliFailure(
                    ExitCodes.USAGE,
                    "'ballast repair " + what
                            + "' is not something ballast repairs; pass 'index' (ballast repair index) or, in an"
                            + " encrypted repository, 'packs' (ballast repair packs).");
        }
        if ("packs".equals(what) || common.endpoint != null) {
            Integer packed = PackedRepairReport.repairIfEncrypted(ctx, common, what, List.of());
            if (packed != null) {
                return packed;
            }
        }
        if ("packs".equals(what) && common.endpoint == null) {
            Path dir = StoreSession.localStoreDirectory(common, ctx);
            if (!Files.isDirectory(dir)) {
                throw new CliFailure(
                        ExitCodes.NOT_FOUND,
                        "There is no local store at " + dir + " (is --data-dir the one your backups went to?).");
            }
        }
        if ("packs".equals(what)) {
            throw new CliFailure(
                    ExitCodes.USAGE,
                    "'ballast repair packs' repairs the packs of an encrypted repository (ballast init), and this store"
                            + " is of the earlier format, which has none: run 'ballast verify NAME --repair SOURCE-DIR'"
                            + " to store good copies of damaged files.");
        }
        if (common.endpoint != null) {
            throw new CliFailure(
                    ExitCodes.USAGE,
                    "'ballast repair index' rebuilds the local store's index, and an S3 bucket has none to repair; run it"
                            + " without --endpoint.");
        }
        Path dir = StoreSession.localStoreDirectory(common, ctx);
        String where = "the local store " + dir;
        String named = common.repoSource != null ? common.repoSource : "--data-dir";
        if (!Files.isDirectory(dir)) {
            throw new CliFailure(
                    ExitCodes.NOT_FOUND,
                    "There is no local store at " + dir + " (is " + named + " the one your backups went to?).");
        }
        // A store it cannot write is refused as 'backup' and 'prune' refuse it (exit 2), before the lock is taken;
        // one -r names is its own directory, which may be a mount inside a read-only folder (a tester's)
        if (common.localRepo) {
            StoreSession.usableStore(dir);
        } else {
            StoreSession.usableDataDir(dir.getParent());
            StoreSession.usableDataDir(dir);
        }
        IndexRebuild r;
        try {
            r = Errors.translate(where, null, () -> LocalObjectStore.rebuildIndex(dir));
        } catch (IllegalArgumentException e) {
            throw new CliFailure(
                    ExitCodes.NOT_FOUND,
                    "There is no local store at " + dir + " (" + e.getMessage() + "); is " + named
                            + " the one your backups went to?",
                    e);
        }
        // Index files of an encrypted repository whose content the store lost: the repository's repair below
        // indexes their packs from the packs' headers, and then removes them.
        List<PackedRepairReport.LostVersion> lostIndexFiles = lostIndexFiles(r, dir);
        int local = report(r, dir, lostIndexFiles.size());
        // The local store's own index first (the repository cannot be opened without it), then, in an
        // encrypted repository, the repository's index of its packs.
        Integer packed = PackedRepairReport.repairIfEncrypted(ctx, common, what, lostIndexFiles);
        return packed == null ? local : Math.max(local, packed);
    }

    /** The key of an encrypted repository's index file: {@code index/} and 64 hex digits. */
    private static final Pattern INDEX_FILE_KEY = Pattern.compile("index/[0-9a-f]{64}");

    /**
     * The versions whose content is missing that are index files of an encrypted repository, when every
     * version with missing content is one (else none: the store's report stands as it is).
     */
    private static List<PackedRepairReport.LostVersion> lostIndexFiles(IndexRebuild r, Path dir) {
        if (r.contentMissingCount() == 0
                || r.contentMissingCount() != r.missingVersions().size()) {
            return List.of();
        }
        List<PackedRepairReport.LostVersion> lost = new ArrayList<>();
        for (IndexRebuild.MissingVersion v : r.missingVersions()) {
            if (!INDEX_FILE_KEY.matcher(v.key()).matches()) {
                return List.of();
            }
            lost.add(new PackedRepairReport.LostVersion(v.key(), v.versionId()));
        }
        try (LocalObjectStore store = LocalObjectStore.open(
                dir, LocalStoreConfig.builder().readOnly(true).build())) {
            return KeyFiles.isRepository(store) ? List.copyOf(lost) : List.of();
        } catch (RuntimeException e) {
            return List.of(); // the repository's repair meets it and says so
        }
    }

    private int report(IndexRebuild r, Path dir, int lostIndexFiles) {
        for (String moved : r.movedAside()) {
            ctx.out().println(Errors.printable(moved) + ".");
        }
        if (!r.journalFound()) {
            ctx.err()
                    .println("The local store " + dir + " has no journal: it was written only by builds of ballast that"
                            + " kept none, so which backup and file each of its " + r.packFiles() + " pack file(s) and "
                            + r.contentFiles()
                            + " content file(s) belongs to was recorded only in its index, which cannot"
                            + " be rebuilt without it. Nothing was changed; restore the store's directory from a copy."
                            + " (A store that a backup of this build has written to since has a journal.)");
            return ExitCodes.INTEGRITY;
        }
        String journal = "its journal (" + Summary.count(r.journalFiles(), "file") + ")";
        String versions = Summary.count(r.versions(), "version") + " of stored files and manifests";
        if (r.journalShorter()) {
            ctx.out()
                    .println("The journal of " + dir
                            + " ended before its index (a journal file cut short or deleted, the journal restored from"
                            + " an older copy, or something other than a file in a journal file's place): the index,"
                            + " the newer record, was kept as it was with its "
                            + versions + ", the versions only the journal named were removed on purpose, not lost, and"
                            + " the journal was written anew from the index; nothing else to do.");
            return missingContent(r) ? ExitCodes.INTEGRITY : ExitCodes.OK;
        }
        if (r.damagePastIndex()) {
            ctx.out()
                    .println("The journal of " + dir + " was damaged only after the last change its index records ("
                            + Errors.printable(String.join("; ", r.journalDamage()))
                            + "): the index, intact and holding every change the journal committed, was kept as it was"
                            + " with its " + versions
                            + ", and the journal was written anew from it; nothing was lost.");
            return missingContent(r) ? ExitCodes.INTEGRITY : ExitCodes.OK;
        }
        ctx.out()
                .println(
                        r.changed()
                                ? "Rebuilt the index of " + dir + " from " + journal + ": " + versions + "."
                                : "The index of " + dir + " is intact and already holds what " + journal + " records, "
                                        + versions + ": nothing was changed.");
        if (r.previousIndex() != null) {
            ctx.out()
                    .println("The previous index was kept as " + r.previousIndex()
                            + "; delete it when you no longer need it.");
        }
        if (r.previousIndexKept() && !r.journalDamage().isEmpty()) {
            ctx.out()
                    .println("The previous index was intact (SQLite's quick_check passed): every version it held was"
                            + " kept, and the journal added what it lacked.");
        }
        for (String d : r.journalDamage()) {
            ctx.err().println("Journal damaged: " + Errors.printable(d) + ".");
        }
        for (String lost : r.unrecovered()) {
            ctx.err().println("Version lost from the index: " + Errors.printable(lost));
        }
        boolean unknownLoss = !r.journalDamage().isEmpty() && !r.previousIndexKept();
        if (!r.unrecovered().isEmpty() || unknownLoss) {
            ctx.err()
                    .println((r.unrecovered().isEmpty()
                                    ? "The journal's damaged frames may have recorded versions"
                                    : r.unrecovered().size()
                                            + " version(s) recorded only in damaged journal frames (listed"
                                            + " above, as BACKUP/PATH)")
                            + " are not in the rebuilt index and may be lost"
                            + (unknownLoss ? " (the previous index could not be read to keep them)" : "")
                            + ": a backup whose manifest is among them is no longer listed, and 'ballast restore' of"
                            + " its name restores the newest backup left. Restore the store's directory from a copy, or"
                            + " back the sources up again.");
        }
        if (lostIndexFiles > 0 && lostIndexFiles == r.contentMissingCount()) {
            ctx.err()
                    .println(lostIndexFiles + " index file(s) of the repository have no content left in the store"
                            + " (first: " + Errors.printable(r.contentMissing().get(0)) + "): the repository's repair"
                            + " below indexes the packs they named from the packs' own headers, then removes them.");
            return r.journalDamage().isEmpty() ? ExitCodes.OK : ExitCodes.INCOMPLETE;
        }
        if (missingContent(r)) {
            return ExitCodes.INTEGRITY;
        }
        return r.journalDamage().isEmpty() ? ExitCodes.OK : ExitCodes.INCOMPLETE;
    }

    /** Names the versions whose content is missing, if any, and says what that means. */
    private boolean missingContent(IndexRebuild r) {
        if (r.contentMissingCount() > 0) {
            for (String lost : r.contentMissing()) {
                ctx.err().println("Content lost/damaged: " + Errors.printable(lost));
            }
            if (r.contentMissingCount() > r.contentMissing().size()) {
                ctx.err()
                        .println("... and "
                                + (r.contentMissingCount() - r.contentMissing().size()) + " more.");
            }
            ctx.err()
                    .println(
                            r.contentMissingCount() + " version(s) have no intact content left in the store (a pack or"
                                    + " content file is missing, or its bytes no longer match their SHA-256; listed above, as"
                                    + " BACKUP/PATH): 'ballast restore' writes every other file and names these, and a manifest"
                                    + " among them is listed DAMAGED by 'ballast list'. Back the sources up again to store them anew.");
            return true;
        }
        return false;
    }
}
