package dev.ballast.backup.verify;

import dev.ballast.backup.Messages;
import dev.ballast.backup.content.PackedBlobs;
import dev.ballast.backup.content.PackedContent;
import dev.ballast.backup.pack.BlobId;
import dev.ballast.backup.pack.BlobRepository;
import dev.ballast.backup.retention.PackedRepair;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.backup.snapshot.SealedStore;
import dev.ballast.backup.tree.SafePaths;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;

/** Verifying the files of a manifest of format 3 for {@link Verifier}: chunks instead of object versions. */
final class PackedVerify {
    private PackedVerify() {}

    private static final ThreadLocal<byte[]> BUFFERS = ThreadLocal.withInitial(() -> new byte[256 * 1024]);

    /**
     * Reads every chunk of {@code e} from the packs (each checked against its ID) and returns what is
     * wrong with the file, or null when its length and SHA-256 are the manifest's.
     */
    static @Nullable String verifyOne(PackedContent packed, ManifestEntry e, LongConsumer counted) throws IOException {
        MessageDigest digest = dev.ballast.backup.content.Sha256.newDigest();
        long length = 0;
        try (InputStream in = packed.open(e.chunks())) {
            byte[] buffer = BUFFERS.get();
            int n;
            while ((n = in.read(buffer)) != -1) {
                digest.update(buffer, 0, n);
                length += n;
                counted.accept(n);
            }
        } catch (IntegrityException ex) {
            IntegrityException.rethrowIfInStoreIndex(ex); // the store's index, not what was read
            return ex.getMessage();
        } catch (ObjectNotFoundException ex) {
            if (packed.opened() instanceof PackedBlobs pb) {
                for (String c : e.chunks()) {
                    java.util.Optional<String> pack = pb.blobs().missingPackOf(BlobId.parse(c));
                    if (pack.isPresent()) {
                        return "its chunk " + c + " was in pack " + pack.get()
                                + (pb.blobs().missingPacks().containsKey(pack.get())
                                        ? ", which is missing from the store"
                                        : ", which was cut short before it");
                    }
                }
            }
            return "a chunk of it is missing from the repository (" + ex.getMessage() + ")";
        }
        if (length != e.size()) {
            return "its chunks hold " + length + " bytes but the manifest records " + e.size();
        }
        String sha = HexFormat.of().formatHex(digest.digest());
        return sha.equals(e.sha256()) ? null : "its chunks hash to " + sha + " but the manifest records " + e.sha256();
    }

    /**
     * {@link Verifier#repairPacked}: drops the damaged chunks from the index (salvaging the packs that
     * hold the damaged files' chunks, {@link PackedRepair}), then stores each damaged file again from
     * {@code repairFrom} when it still has the manifest's SHA-256: its chunks get the same IDs, so every
     * snapshot naming them reads again.
     */
    static int repair(
            SealedStore view,
            PackedContent packed,
            List<Verifier.Damage> damaged,
            Path repairFrom,
            Clock clock,
            Consumer<String> notes) {
        if (!(packed.opened() instanceof PackedBlobs)) {
            return 0;
        }
        PackedRepair.Result r = dropDamaged(view, packed, damaged, clock);
        if (r != null && r.report() == null) {
            r.skipped().forEach(why -> notes.accept("Not repaired: " + Messages.printable(why)));
            return 0;
        }
        List<ManifestEntry> stored = new ArrayList<>();
        for (Verifier.Damage d : damaged) {
            ManifestEntry e = d.entry();
            Path file = SafePaths.resolveInside(repairFrom.toAbsolutePath(), e.path());
            try {
                if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
                    notes.accept(
                            "Not repaired: " + Messages.printable(e.path()) + " (it is not in " + repairFrom + ")");
                    continue;
                }
                PackedContent.Stored s = Files.size(file) == e.size() ? packed.store(file, n -> {}, () -> false) : null;
                if (s == null || !s.sha256().equals(e.sha256()) || !s.chunks().equals(e.chunks())) {
                    notes.accept("Not repaired: " + Messages.printable(e.path()) + " (the file in " + repairFrom
                            + " has changed since the backup; back it up again)");
                    continue;
                }
                stored.add(e);
            } catch (IOException | RuntimeException ex) {
                notes.accept("Not repaired: " + Messages.printable(e.path()) + " (" + Messages.rootMessage(ex) + ")");
            }
        }
        packed.flush();
        int repaired = 0;
        for (ManifestEntry e : stored) {
            String still;
            try {
                still = verifyOne(packed, e, n -> {});
            } catch (IOException ex) {
                still = Messages.rootMessage(ex);
            }
            if (still == null) {
                repaired++;
                notes.accept("Repaired: " + Messages.printable(e.path()) + " (its chunks stored again from "
                        + repairFrom + ")");
            } else {
                notes.accept("Not repaired: " + Messages.printable(e.path()) + " (read back: " + still + ")");
            }
        }
        return repaired;
    }

    /**
     * {@link DamagedChunks#drop}: repairs the packs that hold the damaged files' chunks
     * ({@link PackedRepair#run}: their intact chunks copied into new packs, the damaged ones dropped from
     * the index, the packs deleted), so that no backup deduplicates against a damaged chunk: the next
     * backup of a source that still holds the files stores them again, and every snapshot naming those
     * chunk IDs reads again. Null for content other than {@link PackedBlobs}, and when no damaged file
     * has a chunk in a pack that exists (a missing pack's chunks are absent already: the next backup
     * stores them again by itself).
     */
    static PackedRepair.@Nullable Result dropDamaged(
            SealedStore view, PackedContent packed, List<Verifier.Damage> damaged, Clock clock) {
        if (!(packed.opened() instanceof PackedBlobs pb)) {
            return null;
        }
        BlobRepository blobs = pb.blobs();
        Set<String> packs = new HashSet<>();
        for (Verifier.Damage d : damaged) {
            for (String c : d.entry().chunks()) {
                // every copy the index names: the next backup stores the chunk again only once none is left
                blobs.locations(BlobId.parse(c)).forEach(at -> packs.add(at.pack()));
            }
        }
        if (packs.isEmpty()) {
            return null; // only missing chunks: a backup already stores them again (the open's listing)
        }
        return PackedRepair.run(view, blobs, packs::contains, clock);
    }

    /** The files not in {@code read} whose chunks are not all in the repository's index. */
    static List<Verifier.Damage> missing(PackedContent packed, Manifest m, List<ManifestEntry> read) {
        Set<String> reading = new HashSet<>();
        read.forEach(e -> reading.add(e.path()));
        List<Verifier.Damage> problems = new ArrayList<>();
        for (ManifestEntry e : m.files()) {
            if (!reading.contains(e.path()) && (!e.packed() || !packed.readableAll(e.chunks()))) {
                problems.add(new Verifier.Damage(e, "a chunk of it is missing from the repository's index"));
            }
        }
        return problems;
    }
}
