package dev.ballast.backup.verify;

import dev.ballast.backup.content.PackedContent;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
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
            return ex.getMessage();
        } catch (ObjectNotFoundException ex) {
            return "a chunk of it is missing from the repository (" + ex.getMessage() + ")";
        }
        if (length != e.size()) {
            return "its chunks hold " + length + " bytes but the manifest records " + e.size();
        }
        String sha = HexFormat.of().formatHex(digest.digest());
        return sha.equals(e.sha256()) ? null : "its chunks hash to " + sha + " but the manifest records " + e.sha256();
    }

    /** The files not in {@code read} whose chunks are not all in the repository's index. */
    static List<Verifier.Damage> missing(PackedContent packed, Manifest m, List<ManifestEntry> read) {
        Set<String> reading = new HashSet<>();
        read.forEach(e -> reading.add(e.path()));
        List<Verifier.Damage> problems = new ArrayList<>();
        for (ManifestEntry e : m.files()) {
            if (!reading.contains(e.path()) && (!e.packed() || !packed.holdsAll(e.chunks()))) {
                problems.add(new Verifier.Damage(e, "a chunk of it is missing from the repository's index"));
            }
        }
        return problems;
    }
}
