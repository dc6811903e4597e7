package dev.ballast.cli;

import dev.ballast.backup.content.Sha256;
import dev.ballast.backup.content.Transfers;
import dev.ballast.backup.snapshot.DamagedVersions;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.backup.snapshot.Manifests;
import dev.ballast.backup.tree.SafePaths;
import dev.ballast.backup.verify.DataSubset;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.StorageException;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.VersionEntry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
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
                + "again, and --repair SOURCE-DIR stores a good copy at once from the unchanged source. --read-data-subset "
                + "reads only part of them and checks that every other one is present with its size, from one listing of the "
                + "store.")
final class VerifyCommand extends BallastCommand {
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

    /** A damaged file: its entry and what was found. */
    private record Damage(ManifestEntry entry, String reason) {}

    @Override
    public Integer call() {
        name = Manifests.checkExistingName(name);
        DataSubset subset;
        try {
            subset = readDataSubset == null ? null : DataSubset.parse(readDataSubset);
        } catch (IllegalArgumentException e) {
            throw new CliFailure(ExitCodes.USAGE, "--read-data-subset " + e.getMessage() + ".");
        }
        new Transfers(transferOptions.transfers, 1).close(); // refuses a bad --transfers before the store is opened
        if (repairFrom != null && !Files.isDirectory(repairFrom)) {
            throw new CliFailure(
                    ExitCodes.USAGE,
                    "'" + repairFrom + "' is not a directory; pass --repair the directory " + "that was backed up.");
        }
        StoreSession.Access access = repairFrom != null ? StoreSession.Access.WRITE : StoreSession.Access.READ;
        try (StoreSession session = StoreSession.open(common, ctx, access)) {
            Manifests.Versioned chosen = Errors.translate(
                    session.where(),
                    null,
                    () -> Manifests.select(
                            session.objects(), name, manifestVersion, session.where(), ctx.err()::println));
            DamagedVersions record = Errors.translate(
                    session.where(), null, () -> DamagedVersions.load(session.objects(), name, ctx.err()::println));
            Manifest m = chosen.manifest();
            verified = m;
            long start = System.nanoTime();
            List<Damage> bad = Collections.synchronizedList(new ArrayList<>());
            List<ManifestEntry> toRead =
                    subset == null ? m.files() : subset.select(m.files(), new java.security.SecureRandom());
            List<Damage> absent = subset == null
                    ? List.of()
                    : Errors.translate(session.where(), null, () -> missingOrResized(session, m, toRead, record));
            long readBytes = toRead.stream().mapToLong(ManifestEntry::size).sum();
            List<String> unreadable = Collections.synchronizedList(new ArrayList<>());
            AtomicReference<StorageUnavailableException> unavailable = new AtomicReference<>();
            AtomicLong bytes = new AtomicLong();
            try (Progress progress = Progress.create(
                            "verify " + name,
                            toRead.size(),
                            readBytes,
                            ctx.terminal(),
                            ctx.out(),
                            ctx.progressInterval().toSeconds());
                    Transfers pool = new Transfers(transferOptions.transfers, transferOptions.transfers)) {
                for (ManifestEntry e : toRead) {
                    if (unavailable.get() != null || ctx.cancellation().cancelled()) {
                        unreadable.add(e.path());
                        continue;
                    }
                    pool.submit(done -> {
                        try {
                            String damage = verify(session, e, record.versionToRead(e), progress);
                            if (damage == null) {
                                bytes.addAndGet(e.size());
                            } else {
                                bad.add(new Damage(e, damage));
                            }
                        } catch (ObjectNotFoundException ex) {
                            // Gone from the store (a prune, a hand): damage to record, so the next backup stores it
                            // again.
                            bad.add(new Damage(e, "it is missing from the store"));
                        } catch (StorageUnavailableException ex) {
                            unavailable.compareAndSet(null, ex);
                            unreadable.add(e.path());
                        } catch (StorageException | IOException ex) {
                            unreadable.add(Errors.printable(
                                    e.path() + " (its stored copy could not be read: " + ex.getMessage() + ")"));
                        } finally {
                            progress.fileDone();
                            done.run();
                        }
                    });
                }
                pool.awaitAll();
            }
            List<Damage> damaged = new ArrayList<>(bad);
            damaged.addAll(absent);
            damaged.sort(Comparator.comparing(d -> d.entry().path()));
            Collections.sort(unreadable);
            java.time.Duration elapsed = java.time.Duration.ofNanos(System.nanoTime() - start);
            damaged.forEach(d -> ctx.err()
                    .println("Damaged: " + Errors.printable(d.entry().path()) + " (version "
                            + d.entry().versionId() + ": " + Errors.printable(d.reason()) + ")"));
            unreadable.forEach(p -> ctx.err().println("Not verified: " + p));
            int repaired = damaged.isEmpty() ? 0 : recordAndRepair(session, record, damaged);
            int stillBad = damaged.size() - repaired;
            String totals = (m.files().size() - damaged.size() - unreadable.size()) + " of "
                    + Summary.count(m.files().size(), "file")
                    + " verified"
                    + (subset == null
                            ? ""
                            : " (subset " + subset + ": " + toRead.size() + " read, the other "
                                    + (m.files().size() - toRead.size()) + " checked present with their size)")
                    + ", " + Summary.mib(bytes.get()) + " in " + Summary.duration(elapsed) + " ("
                    + Summary.rate(bytes.get(), elapsed) + ")" + counters(session) + ".";
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
                    : repairFrom == null
                            ? "run 'ballast verify " + name + " --repair SOURCE-DIR' or back the source up again to "
                                    + "store a good copy"
                                    + (recorded
                                            ? " (the damaged versions are recorded and never reused)"
                                            : " (the damaged versions could not be recorded: see the warning above)")
                                    + ", or restore an older --manifest-version"
                            : "back the source up again once it holds the files, or restore an older --manifest-version";
            ctx.err()
                    .println("Backup '" + name + "' has " + stillBad + " damaged and " + unreadable.size()
                            + " unreadable files"
                            + (unavailable.get() != null ? " because " + session.where() + " became unavailable" : "")
                            + "; " + advice + ".");
            return stillBad > 0
                    ? ExitCodes.INTEGRITY
                    : unavailable.get() != null ? ExitCodes.UNAVAILABLE : ExitCodes.INCOMPLETE;
        }
    }

    /**
     * Records the damaged versions (so no backup reuses them) and, with {@code --repair}, stores a good
     * copy of each from the source; returns how many were repaired.
     */
    /** Whether {@link #recordAndRepair} saved the record of damaged versions. */
    private boolean recorded;

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
                try (StoreSession writer = StoreSession.open(common, ctx, StoreSession.Access.WRITE)) {
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

    /** Stores a good copy of one damaged file from the source, if the source still holds the same bytes. */
    private boolean repair(StoreSession session, DamagedVersions record, ManifestEntry e) {
        Path file = SafePaths.resolveInside(repairFrom.toAbsolutePath(), e.path());
        try {
            if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
                ctx.err().println("Not repaired: " + Errors.printable(e.path()) + " (it is not in " + repairFrom + ")");
                return false;
            }
            long size = Files.size(file);
            String sha = size == e.size() ? Sha256.ofFile(file, n -> {}) : null;
            if (!e.sha256().equals(sha)) {
                ctx.err()
                        .println("Not repaired: " + Errors.printable(e.path()) + " (the file in " + repairFrom
                                + " has changed since the backup; back it up again)");
                return false;
            }
            ObjectVersion v =
                    session.objects().put(verified.objectKeyOf(e.path()), new ObjectContent.FileRegion(file, size));
            if (!v.sha256().equals(e.sha256())) {
                ctx.err()
                        .println("Not repaired: " + Errors.printable(e.path())
                                + " (it changed while it was being stored)");
                return false;
            }
            if (!session.objects().confirmsWrites() && verify(session, e, v.versionId(), p -> {}) != null) {
                ctx.err().println("Not repaired: " + Errors.printable(e.path()) + " (the new copy read back damaged)");
                return false;
            }
            record.replace(e.path(), e.sha256(), v.versionId());
            ctx.err()
                    .println("Repaired: " + Errors.printable(e.path()) + " (good copy stored as version "
                            + v.versionId() + ")");
            return true;
        } catch (IOException | RuntimeException ex) {
            ctx.err().println("Not repaired: " + Errors.printable(e.path()) + " (" + Errors.rootMessage(ex) + ")");
            return false;
        }
    }

    /**
     * The files not read whose version is missing from the store, has another size than the manifest
     * records, or whose stored bytes the store does not hold in full (a content or pack file gone or
     * cut short: {@link dev.ballast.storage.object.ObjectStore#missingContent}), from one listing of
     * {@code NAME/} and that check, without reading a byte of them.
     */
    private List<Damage> missingOrResized(
            StoreSession session, Manifest m, List<ManifestEntry> read, DamagedVersions record) {
        java.util.Map<String, VersionEntry> listed = new java.util.HashMap<>();
        for (VersionEntry v : session.objects().listVersions(name + "/")) {
            if (!v.deleteMarker()) {
                listed.put(v.key() + "\n" + v.versionId(), v);
            }
        }
        java.util.Set<String> reading = new java.util.HashSet<>();
        read.forEach(e -> reading.add(e.path()));
        List<Damage> problems = new ArrayList<>();
        java.util.Map<VersionEntry, ManifestEntry> toCheck = new java.util.LinkedHashMap<>();
        for (ManifestEntry e : m.files()) {
            if (reading.contains(e.path())) {
                continue;
            }
            String version = record.versionToRead(e);
            VersionEntry v = listed.get(m.objectKeyOf(e.path()) + "\n" + version);
            if (v == null) {
                problems.add(new Damage(e, "it is missing from the store"));
            } else if (v.size() != e.size()) {
                problems.add(new Damage(e, "stored with " + v.size() + " bytes, the manifest records " + e.size()));
            } else {
                toCheck.put(v, e);
            }
        }
        session.objects()
                .missingContent(toCheck.keySet())
                .forEach((v, why) -> problems.add(new Damage(toCheck.get(v), why)));
        return problems;
    }

    /** One read buffer per transfer thread, not one per file. */
    private static final ThreadLocal<byte[]> BUFFERS = ThreadLocal.withInitial(() -> new byte[256 * 1024]);

    private @Nullable String verify(StoreSession session, ManifestEntry e, String versionId, Progress progress)
            throws IOException {
        return verify(session, e, versionId, progress::addBytes);
    }

    /**
     * Reads one object version to its end and returns what is wrong with it, or null when its length
     * and SHA-256 are the manifest's. The store checks the bytes against the SHA-256 it recorded as
     * they stream, so only a version recorded without one (written by another program) is hashed here.
     */
    private @Nullable String verify(
            StoreSession session, ManifestEntry e, String versionId, java.util.function.LongConsumer counted)
            throws IOException {
        String key = verified.objectKeyOf(e.path());
        try (ObjectRead read = session.objects()
                        .get(key, ReadOptions.version(versionId).withAllowCache(false));
                InputStream in = read.stream()) {
            if (read.version().size() != e.size()) {
                return "stored with " + read.version().size() + " bytes but the manifest records " + e.size();
            }
            String recorded = read.version().sha256();
            if (!recorded.isEmpty() && !recorded.equals(e.sha256())) {
                return "stored with SHA-256 " + recorded + " but the manifest records " + e.sha256();
            }
            if (recorded.isEmpty()) {
                String sha = Sha256.copy(in, OutputStream.nullOutputStream(), counted);
                return sha.equals(e.sha256())
                        ? null
                        : "its bytes hash to " + sha + " but the manifest records " + e.sha256();
            }
            byte[] buffer = BUFFERS.get();
            int n;
            while ((n = in.read(buffer)) != -1) {
                counted.accept(n);
            }
            return null;
        } catch (IntegrityException ex) {
            return ex.getMessage();
        } catch (ObjectNotFoundException ex) {
            // A version the manifest references is gone: damaged (exit 4), as restore and
            // --read-data-subset report it, not "could not be read".
            return "it is missing from the store";
        }
    }
}
