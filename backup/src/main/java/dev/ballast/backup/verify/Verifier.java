package dev.ballast.backup.verify;

import dev.ballast.backup.Cancellation;
import dev.ballast.backup.Messages;
import dev.ballast.backup.ProgressCounter;
import dev.ballast.backup.content.PackedContent;
import dev.ballast.backup.content.Sha256;
import dev.ballast.backup.content.Transfers;
import dev.ballast.backup.snapshot.DamagedVersions;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.backup.tree.SafePaths;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.StorageException;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.VersionEntry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;

/**
 * Verifies one manifest version: re-reads every object it references (or a {@link DataSubset} of
 * them, checking the others present with their size from one listing), never from a cache, and
 * checks its length and SHA-256 against the manifest; up to {@code transfers} objects at a time.
 * Records nothing itself: the caller records the damage found ({@link DamagedVersions}).
 */
public final class Verifier {
    private Verifier() {}

    /** A damaged file: its entry and what was found. */
    public record Damage(ManifestEntry entry, String reason) {}

    /**
     * What a verify found.
     *
     * @param damaged files whose stored copy is damaged or missing, sorted by path
     * @param unreadable files that could not be verified (each path, with why when known), sorted
     * @param unavailable the store's failure that stopped the verify, or null
     * @param bytes bytes read and confirmed
     * @param read how many files were to be read (all, or the subset's)
     * @param elapsed how long it took
     * @param damagedUnread how many of {@code damaged} are files of a subset's others, not read but found
     *     missing (or, in the earlier formats, of another size)
     */
    public record Result(
            List<Damage> damaged,
            List<String> unreadable,
            @Nullable StorageUnavailableException unavailable,
            long bytes,
            int read,
            Duration elapsed,
            int damagedUnread) {
        /** Copies the lists. */
        public Result {
            damaged = List.copyOf(damaged);
            unreadable = List.copyOf(unreadable);
        }
    }

    /**
     * Verifies {@code m}, reading for each file the version {@code record} says to read.
     *
     * @param subset what to read, or null for every file
     * @param progress makes the job's counters from the number of files and bytes to read
     * @throws StorageException if the store fails listing the files not read
     */
    public static Result run(
            ObjectStore store,
            Manifest m,
            DamagedVersions record,
            @Nullable DataSubset subset,
            int transfers,
            Cancellation cancellation,
            BiFunction<Long, Long, ProgressCounter> progress) {
        return run(store, m, record, subset, transfers, cancellation, progress, null);
    }

    /**
     * Verifies {@code m} as {@link #run(ObjectStore, Manifest, DamagedVersions, DataSubset, int,
     * Cancellation, BiFunction)} does; the files of a manifest of format 3 are read from
     * {@code packed} (each chunk checked against its ID, the whole file against its SHA-256), and
     * those not read are checked to have every chunk in the repository's index.
     */
    public static Result run(
            ObjectStore store,
            Manifest m,
            DamagedVersions record,
            @Nullable DataSubset subset,
            int transfers,
            Cancellation cancellation,
            BiFunction<Long, Long, ProgressCounter> progress,
            @Nullable PackedContent packed) {
        long start = System.nanoTime();
        List<Damage> bad = Collections.synchronizedList(new ArrayList<>());
        List<ManifestEntry> toRead =
                subset == null ? m.files() : subset.select(m.files(), new java.security.SecureRandom());
        List<Damage> absent = subset == null
                ? List.of()
                : packed != null ? PackedVerify.missing(packed, m, toRead) : missingOrResized(store, m, toRead, record);
        long readBytes = toRead.stream().mapToLong(ManifestEntry::size).sum();
        List<String> unreadable = Collections.synchronizedList(new ArrayList<>());
        AtomicReference<StorageUnavailableException> unavailable = new AtomicReference<>();
        AtomicLong bytes = new AtomicLong();
        try (ProgressCounter counter = progress.apply((long) toRead.size(), readBytes);
                Transfers pool = new Transfers(transfers, transfers)) {
            for (ManifestEntry e : toRead) {
                if (unavailable.get() != null || cancellation.cancelled()) {
                    unreadable.add(e.path());
                    continue;
                }
                pool.submit(done -> {
                    try {
                        String damage = packed != null && e.packed()
                                ? PackedVerify.verifyOne(packed, e, counter::addBytes)
                                : verifyOne(store, m, e, record.versionToRead(e), counter::addBytes);
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
                        unreadable.add(Messages.printable(
                                e.path() + " (its stored copy could not be read: " + ex.getMessage() + ")"));
                    } catch (RuntimeException | Error ex) {
                        // Anything else (a heap too small, say) leaves the file unverified: said so, never
                        // counted as verified.
                        unreadable.add(Messages.printable(
                                e.path() + " (it could not be verified: " + Messages.rootMessage(ex) + ")"));
                    } finally {
                        counter.fileDone();
                        done.run();
                    }
                });
            }
            pool.awaitAll();
        }
        List<Damage> damaged = new ArrayList<>(bad);
        damaged.addAll(absent);
        damaged.sort(Comparator.comparing(d -> d.entry().path()));
        List<String> sortedUnreadable = new ArrayList<>(unreadable);
        Collections.sort(sortedUnreadable);
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        return new Result(
                damaged, sortedUnreadable, unavailable.get(), bytes.get(), toRead.size(), elapsed, absent.size());
    }

    private static List<Damage> missingOrResized(
            ObjectStore store, Manifest m, List<ManifestEntry> read, DamagedVersions record) {
        String name = m.name();
        java.util.Map<String, VersionEntry> listed = new java.util.HashMap<>();
        for (VersionEntry v : store.listVersions(name + "/")) {
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
            if (v == null || (v.size() == 0 && e.size() > 0)) {
                // none of its bytes held: deleted (S3), or its file lost (the local store lists it at 0 bytes)
                problems.add(new Damage(e, "it is missing from the store"));
            } else if (v.size() != e.size()) {
                problems.add(new Damage(e, "stored with " + v.size() + " bytes, the manifest records " + e.size()));
            } else {
                toCheck.put(v, e);
            }
        }
        store.missingContent(toCheck.keySet()).forEach((v, why) -> problems.add(new Damage(toCheck.get(v), why)));
        return problems;
    }

    /** One read buffer per transfer thread, not one per file. */
    private static final ThreadLocal<byte[]> BUFFERS = ThreadLocal.withInitial(() -> new byte[256 * 1024]);

    /**
     * Reads one object version to its end and returns what is wrong with it, or null when its length
     * and SHA-256 are the manifest's. The store checks the bytes against the SHA-256 it recorded as
     * they stream, so only a version recorded without one (written by another program) is hashed here.
     *
     * @param verified the manifest {@code e} is from, whose format decides the object key
     * @param counted told each number of bytes read
     */
    public static @Nullable String verifyOne(
            ObjectStore store, Manifest verified, ManifestEntry e, String versionId, LongConsumer counted)
            throws IOException {
        String key = verified.objectKeyOf(e.path());
        try (ObjectRead read = store.get(key, ReadOptions.version(versionId).withAllowCache(false));
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
            IntegrityException.rethrowIfInStoreIndex(ex); // the store's index, not what was read
            return ex.getMessage();
        } catch (ObjectNotFoundException ex) {
            // A version the manifest references is gone: damaged (exit 4), as restore and
            // --read-data-subset report it, not "could not be read".
            return "it is missing from the store";
        }
    }

    /**
     * The repair of damaged files of a manifest of format 3: the damaged chunks are dropped from the
     * repository's index (the packs holding the damaged files' chunks are read whole and their intact
     * chunks kept; missing packs dropped; {@link dev.ballast.backup.pack.BlobRepository#repair}, under the
     * prune marker), then each damaged file still in {@code repairFrom} with the manifest's SHA-256 is
     * stored again: its chunks get the same IDs, so this and every other snapshot naming them read again.
     * Each file is reported to {@code notes} ("Repaired: ..." or "Not repaired: ... (why)").
     *
     * @return how many damaged files read back whole after the repair
     * @throws dev.ballast.storage.StorageException if the store fails
     */
    public static int repairPacked(
            dev.ballast.backup.snapshot.SealedStore view,
            PackedContent packed,
            List<Damage> damaged,
            Path repairFrom,
            java.time.Clock clock,
            Consumer<String> notes) {
        return PackedVerify.repair(view, packed, damaged, repairFrom, clock, notes);
    }

    /**
     * Stores a good copy of damaged file {@code e} of {@code verified} from {@code repairFrom}, the
     * backed-up directory, if the file there still has the SHA-256 the manifest records, and records
     * it in {@code record} (which the caller saves) so every backup naming the damaged version reads
     * the good copy; {@code notes} is told the outcome, one sentence ("Repaired: ..." or "Not
     * repaired: ...").
     *
     * @return whether a good copy was stored
     */
    public static boolean repair(
            ObjectStore store,
            Manifest verified,
            DamagedVersions record,
            ManifestEntry e,
            Path repairFrom,
            Consumer<String> notes) {
        Path file = SafePaths.resolveInside(repairFrom.toAbsolutePath(), e.path());
        try {
            if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
                notes.accept("Not repaired: " + Messages.printable(e.path()) + " (it is not in " + repairFrom + ")");
                return false;
            }
            long size = Files.size(file);
            String sha = size == e.size() ? Sha256.ofFile(file, n -> {}) : null;
            if (!e.sha256().equals(sha)) {
                notes.accept("Not repaired: " + Messages.printable(e.path()) + " (the file in " + repairFrom
                        + " has changed since the backup; back it up again)");
                return false;
            }
            ObjectVersion v = store.put(verified.objectKeyOf(e.path()), new ObjectContent.FileRegion(file, size));
            if (!v.sha256().equals(e.sha256())) {
                notes.accept(
                        "Not repaired: " + Messages.printable(e.path()) + " (it changed while it was being stored)");
                return false;
            }
            if (!store.confirmsWrites() && Verifier.verifyOne(store, verified, e, v.versionId(), p -> {}) != null) {
                notes.accept("Not repaired: " + Messages.printable(e.path()) + " (the new copy read back damaged)");
                return false;
            }
            record.replace(e.path(), e.sha256(), v.versionId());
            notes.accept("Repaired: " + Messages.printable(e.path()) + " (good copy stored as version " + v.versionId()
                    + ")");
            return true;
        } catch (IOException | RuntimeException ex) {
            notes.accept("Not repaired: " + Messages.printable(e.path()) + " (" + Messages.rootMessage(ex) + ")");
            return false;
        }
    }
}
