package dev.ballast.cli;

import dev.ballast.backup.content.PackedContent;
import dev.ballast.backup.keys.CipherWarmUp;
import dev.ballast.backup.retention.PackedRepair;
import dev.ballast.backup.run.RestoreLock;
import dev.ballast.backup.snapshot.DamagedVersions;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.backup.snapshot.Manifests;
import dev.ballast.backup.verify.DamagedChunks;
import dev.ballast.backup.verify.DataSubset;
import dev.ballast.backup.verify.Verifier;
import dev.ballast.backup.verify.Verifier.Damage;
import dev.ballast.storage.StorageUnavailableException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "verify",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        description = "Re-read every object of the newest complete backup of NAME (or of --manifest-version) from "
                + "the store, never from a cache, and check its length and SHA-256 against the manifest; --transfers objects "
                + "at a time. A damaged version is recorded, so no later backup reuses it: the next backup uploads the file "
                + "again, and --repair SOURCE-DIR stores a good copy at once from the unchanged source. In an encrypted "
                + "repository the damaged chunks are dropped from its index (the intact ones kept) and, with --repair "
                + "SOURCE-DIR, stored again from the source, which heals every backup using them. --read-data-subset "
                + "reads only part of them and checks that every other one is present with its size, from one listing of the "
                + "store.")
final class VerifyCommand extends BallastCommand {
    /**
     * What to do about damaged or missing chunks of an encrypted repository: a new backup reuses a chunk
     * the index names, so a damaged one is dropped from the index first (a missing pack's chunks are
     * absent already, and stored again by the next backup).
     */
    static String packedDamageAdvice(String name) {
        return "run 'ballast verify " + name + " --repair SOURCE-DIR' to drop the damaged chunks from the index and"
                + " store them again from the backed-up directory now, or 'ballast repair packs' and then back the"
                + " source up again: the backup stores them again, and every backup that uses them reads again";
    }

    /**
     * What to do about chunks of an encrypted repository that no pack holds (dropped by verify or
     * {@code repair packs}, or lost with their pack): nothing is left to drop, the next backup stores
     * them again; {@code missingOrDropped} says which they are, and {@code olderOffer} names an older
     * snapshot that holds other copies of the files ({@link OlderCopies#offer}), or is empty.
     */
    static String missingChunksAdvice(String missingOrDropped, String olderOffer) {
        return "back the source up again: the backup stores the " + missingOrDropped + " chunks again wherever the"
                + " source still holds the files, and every backup that uses them reads again" + olderOffer;
    }

    @Parameters(index = "0", paramLabel = "NAME", description = "The backup name.")
    String name;

    @Option(
            names = "--manifest-version",
            paramLabel = "ID",
            description = "Verify this manifest version instead of the newest complete one: " + Manifests.VERSION_HELP)
    String manifestVersion;

    @Option(
            names = "--repair",
            paramLabel = "SOURCE-DIR",
            description = "Store a good copy of each damaged file from SOURCE-DIR, the backed-up directory, when the "
                    + "file there still has the SHA-256 the manifest records; every backup naming the damaged version then "
                    + "reads the good copy.")
    Path repairFrom;

    @Option(
            names = "--read-data-subset",
            paramLabel = "SUBSET",
            converter = OptionValues.SubsetConverter.class,
            description =
                    "Read only a subset, as restic's check: n/t (the n-th of t fixed groups; 1/t to t/t read "
                            + "everything once), x%% (a random x percent of the files) or a size such as 500M (random files up to it).")
    String readDataSubset;

    @Mixin
    TransferOptions transferOptions;

    VerifyCommand(CliContext ctx) {
        super(ctx);
    }

    /** The manifest being verified, whose format decides each file's object key. */
    private Manifest verified;

    @Override
    public Integer call() {
        name = Manifests.checkExistingName(name);
        DataSubset subset;
        try {
            subset = readDataSubset == null ? null : DataSubset.parse(readDataSubset);
        } catch (IllegalArgumentException e) {
            throw new CliFailure(ExitCodes.USAGE, "--read-data-subset " + e.getMessage() + ".");
        }
        transferOptions.check(ctx.out()); // a bad --transfers refused before the store is opened
        if (repairFrom != null && !Files.isDirectory(repairFrom)) {
            throw new CliFailure(
                    ExitCodes.USAGE,
                    "'" + repairFrom + "' is not a directory; pass --repair the directory " + "that was backed up.");
        }
        StoreSession.Access access = repairFrom != null ? StoreSession.Access.UPDATE : StoreSession.Access.READ;
        CipherWarmUp.start(); // verify opens file content in bulk: its ciphers compile while the key is derived
        try (StoreSession session = StoreSession.open(common, ctx, access);
                Repository repo = Repository.storeOnly(session);
                // No prune or repair deletes packs while they are read (released before damaged chunks are dropped).
                RestoreLock reading = repo.packed()
                        ? Errors.translate(
                                session.where(),
                                null,
                                () -> RestoreLock.forReading(repo.sealed(), ctx.clock(), "verify"))
                        : RestoreLock.shared(null)) {
            Manifests.Versioned chosen = Errors.translate(
                    session.where(),
                    null,
                    () -> Manifests.select(
                            repo.metadata(), name, manifestVersion, session.where(), ctx.err()::println));
            DamagedVersions record = Errors.translate(
                    session.where(), null, () -> DamagedVersions.load(repo.metadata(), name, ctx.err()::println));
            Manifest m = chosen.manifest();
            verified = m;
            java.util.Set<String> unnamedAtStart = java.util.Set.of();
            List<String> packsNotHeld = List.of();
            if (repo.packed()) {
                PackedContent content =
                        Errors.translate(session.where(), null, () -> repo.content(transferOptions.transfers));
                Errors.translate(session.where(), null, () -> PackedRepair.damageNotes(content, m))
                        .forEach(ctx.err()::println);
                packsNotHeld = Errors.translate(session.where(), null, () -> PackedRepair.storedPackNotes(content));
                packsNotHeld.forEach(ctx.err()::println);
                unnamedAtStart = content.unindexedPacksRead();
            }
            Verifier.Result found = Errors.translate(
                    session.where(),
                    null,
                    () -> Verifier.run(
                            repo.metadata(),
                            m,
                            record,
                            subset,
                            transferOptions.transfers,
                            ctx.cancellation(),
                            (files, size) -> Progress.create(
                                    "verify " + name,
                                    files,
                                    size,
                                    ctx.terminal(),
                                    ctx.out(),
                                    ctx.progressInterval().toSeconds()),
                            repo.content(transferOptions.transfers)));
            if (repo.packed()) {
                PackedRepair.readNotes(repo.content(transferOptions.transfers), unnamedAtStart)
                        .forEach(ctx.err()::println);
            }
            reading.close(); // the drop of damaged chunks below takes the exclusive lock
            List<Damage> damaged = found.damaged();
            List<String> unreadable = found.unreadable();
            java.time.Duration elapsed = found.elapsed();
            long bytes = found.bytes();
            StorageUnavailableException unavailable = found.unavailable();
            damaged.forEach(d -> ctx.err()
                    .println("Damaged: " + Errors.printable(d.entry().path())
                            + (d.entry().packed()
                                    ? " ("
                                    : " (version " + d.entry().versionId() + ": ")
                            + Errors.printable(d.reason()) + ")"));
            unreadable.forEach(p -> ctx.err().println("Not verified: " + p));
            // In a repository of format 3 the damage is in packs, named by the message; there is no version to record.
            int repaired = damaged.isEmpty()
                    ? 0
                    : repo.packed()
                            ? repairFrom == null
                                    ? dropDamagedPacked(damaged)
                                    : Errors.translate(
                                            session.where(),
                                            null,
                                            () -> Verifier.repairPacked(
                                                    repo.sealed(),
                                                    repo.content(transferOptions.transfers),
                                                    damaged,
                                                    repairFrom,
                                                    ctx.clock(),
                                                    ctx.err()::println))
                            : recordAndRepair(session, record, damaged);
            int stillBad = damaged.size() - repaired;
            String totals = (subset == null
                            ? (m.files().size() - damaged.size() - unreadable.size()) + " of "
                                    + Summary.count(m.files().size(), "file") + " verified"
                            : subsetRead(m.files().size(), subset, found))
                    + ", " + Summary.size(bytes) + " in " + Summary.duration(elapsed) + " ("
                    + Summary.rate(bytes, elapsed) + ")" + counters(session)
                    + (subset == null ? "" : subsetOthers(m.files().size(), found)) + ".";
            if (stillBad == 0 && unreadable.isEmpty() && !packsNotHeld.isEmpty()) {
                // Every file read, but the store holds packs of the repository damaged (named above).
                ctx.out().println("Verify of '" + name + "' FAILED: " + totals);
                ctx.err()
                        .println("Backup '" + name + "' reads in full, but the repository has damaged packs (named"
                                + " above); run 'ballast repair packs'.");
                return ExitCodes.INTEGRITY;
            }
            if (stillBad == 0 && unreadable.isEmpty()) {
                ctx.out()
                        .println("Verify of '" + name + "' (manifest version "
                                + Manifests.label(chosen.version().versionId()) + ") OK: " + totals
                                + (repaired == 0
                                        ? ""
                                        : " " + repaired + " damaged file(s) repaired from " + repairFrom + "."));
                if (chosen.olderThanNewest()) {
                    ctx.err().println(RestoreCommand.olderBackupUsed("Verified", name, chosen));
                    return ExitCodes.OLDER_BACKUP_USED;
                }
                return ExitCodes.OK;
            }
            ctx.out().println("Verify of '" + name + "' FAILED: " + totals);
            String advice = stillBad == 0
                    ? "run verify again"
                    : Repository.masterKey(session) != null
                            ? repairFrom == null
                                    ? recorded
                                            ? missingChunksAdvice(
                                                    chunksMissing ? "missing" : "dropped",
                                                    OlderCopies.offer(
                                                            repo.metadata(),
                                                            session.objects(),
                                                            name,
                                                            chosen,
                                                            damaged.stream()
                                                                    .map(Damage::entry)
                                                                    .toList(),
                                                            repo.content(transferOptions.transfers)))
                                            : packedDamageAdvice(name)
                                    : "back the source up again once it holds the files, or restore an older"
                                            + " --manifest-version"
                            : repairFrom == null
                                    ? "run 'ballast verify " + name
                                            + " --repair SOURCE-DIR' or back the source up again to "
                                            + "store a good copy"
                                            + (recorded
                                                    ? " (the damaged versions are recorded and never reused)"
                                                    : " (the damaged versions could not be recorded: see the warning above)")
                                            + ", or restore an older --manifest-version"
                                    : "back the source up again once it holds the files, or restore an older --manifest-version";
            ctx.err()
                    .println("Backup '" + name + "' has " + stillBad + " damaged and " + unreadable.size()
                            + " unreadable files"
                            + (unavailable != null ? " because " + session.where() + " became unavailable" : "")
                            + "; " + advice + ".");
            return stillBad > 0
                    ? ExitCodes.INTEGRITY
                    : unavailable != null ? ExitCodes.UNAVAILABLE : ExitCodes.INCOMPLETE;
        }
    }

    /**
     * What a verify of a subset read, for its summary: "3 of 12 files read and verified (subset 1/4)",
     * or when some of those read did not verify "3 of 12 files read (subset 1/4): 2 verified, 1 damaged".
     * The files not read are counted apart ({@link #subsetOthers}): they were checked for presence only.
     */
    private static String subsetRead(int files, DataSubset subset, Verifier.Result found) {
        int read = found.read();
        int damagedRead = found.damaged().size() - found.damagedUnread();
        int unverified = found.unreadable().size();
        int verifiedRead = read - damagedRead - unverified;
        String head = read + " of " + Summary.count(files, "file") + " read";
        if (verifiedRead == read) {
            return head + " and verified (subset " + subset + ")";
        }
        return head + " (subset " + subset + "): " + verifiedRead + " verified"
                + (damagedRead == 0 ? "" : ", " + damagedRead + " damaged")
                + (unverified == 0 ? "" : ", " + unverified + " not verified");
    }

    /**
     * The files a verify of a subset did not read, for the end of its summary: "; the other 9 checked
     * present with their size", or with those found missing "; the other 9 checked for presence with
     * their size: 8 present, 1 damaged". Empty when it read every file.
     */
    private static String subsetOthers(int files, Verifier.Result found) {
        int others = files - found.read();
        if (others == 0) {
            return "";
        }
        return "; the other " + others
                + (found.damagedUnread() == 0
                        ? " checked present with their size"
                        : " checked for presence with their size: " + (others - found.damagedUnread()) + " present, "
                                + found.damagedUnread() + " damaged");
    }

    /**
     * Records the damaged versions (so no backup reuses them) and, with {@code --repair}, stores a good
     * copy of each from the source; returns how many were repaired.
     */
    /**
     * Whether {@link #recordAndRepair} saved the record of damaged versions, or on a repository of format
     * 3, {@link #dropDamagedPacked} left no damaged chunk in the index.
     */
    private boolean recorded;

    /** Whether the damaged chunks {@link #dropDamagedPacked} found were all missing already: in no pack. */
    private boolean chunksMissing;

    private int recordAndRepair(StoreSession session, DamagedVersions record, List<Damage> damaged) {
        java.time.Instant now = ctx.clock().instant();
        for (Damage d : damaged) {
            ManifestEntry e = d.entry();
            record.add(new DamagedVersions.Entry(e.path(), e.versionId(), e.sha256(), now, d.reason(), null));
        }
        int repaired = 0;
        if (repairFrom != null) {
            for (Damage d : damaged) {
                if (repair(session, record, d.entry())) {
                    repaired++;
                }
            }
        }
        try {
            if (repairFrom != null) {
                record.save(session.objects());
            } else {
                // A reading command: the record is written through a short writer session of its own.
                try (StoreSession writer = StoreSession.open(common, ctx, StoreSession.Access.UPDATE)) {
                    record.save(writer.objects());
                }
            }
            recorded = true;
            ctx.err()
                    .println("Recorded " + damaged.size() + " damaged version(s) of '" + name + "' in "
                            + DamagedVersions.key(name) + ": no backup reuses them.");
        } catch (RuntimeException ex) {
            ctx.err()
                    .println("Warning: the damaged versions could not be recorded (" + Errors.rootMessage(ex)
                            + "); the next "
                            + "backup may reuse them: run verify again once nothing else writes to the store.");
        }
        return repaired;
    }

    /**
     * On a repository of format 3, verify without {@code --repair} keeps the next backup from reusing
     * the damaged chunks it found (the earlier formats record damaged versions for the same reason):
     * through a short writer session, the packs holding them are repaired, their intact chunks kept and
     * the damaged ones dropped from the index, so the next backup of a source that still holds the files
     * stores them again. A store that cannot be written (read-only, a backup running) leaves a warning.
     *
     * @return 0: no file is repaired here
     */
    private int dropDamagedPacked(List<Damage> damaged) {
        try (StoreSession writer = StoreSession.open(common, ctx, StoreSession.Access.UPDATE);
                Repository w = Repository.storeOnly(writer)) {
            DamagedChunks.Outcome dropped = Errors.translate(
                    writer.where(),
                    null,
                    () -> DamagedChunks.drop(
                            w.sealed(),
                            w.content(transferOptions.transfers),
                            damaged,
                            ctx.clock(),
                            ctx.err()::println));
            recorded = dropped.dropped();
            chunksMissing = dropped.missing();
        } catch (RuntimeException ex) {
            ctx.err().println(DamagedChunks.notDropped(ex, "'ballast repair packs'"));
        }
        return 0;
    }

    /** Stores a good copy of one damaged file from the source, if the source still holds the same bytes. */
    private boolean repair(StoreSession session, DamagedVersions record, ManifestEntry e) {
        return Verifier.repair(session.objects(), verified, record, e, repairFrom, ctx.err()::println);
    }
}
