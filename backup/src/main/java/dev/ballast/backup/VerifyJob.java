package dev.ballast.backup;

import dev.ballast.backup.content.PackedContent;
import dev.ballast.backup.retention.PackedRepair;
import dev.ballast.backup.run.RestoreLock;
import dev.ballast.backup.snapshot.DamagedVersions;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.backup.snapshot.Manifests;
import dev.ballast.backup.snapshot.SealedStore;
import dev.ballast.backup.verify.DamagedChunks;
import dev.ballast.backup.verify.DataSubset;
import dev.ballast.backup.verify.Verifier;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** {@link Backups#verify(String, String, String)}: one verify, and what it does about the damage it finds. */
final class VerifyJob extends Job {
    VerifyJob(Settings settings) {
        super(settings);
    }

    /** What to do about damaged or missing chunks in a repository of format 3, after a verify found some. */
    static final String PACKED_DAMAGE_ADVICE = "The chunks are damaged or missing in the repository: "
            + Advice.REPAIR_PACKS.text() + " drops them from the index, keeping every intact chunk, and the next backup"
            + " of a source that still holds the files stores them again, which heals every backup that uses them.";

    /** See {@link Backups#verify(String, String, String)}. */
    VerifyResult verify(String name, String version, @Nullable String readDataSubset) {
        String n = Manifests.checkExistingName(name);
        DataSubset subset = subset(readDataSubset);
        Manifests.Versioned chosen = Manifests.select(view, n, version, "the object store", listener::notice);
        DamagedVersions record = DamagedVersions.load(view, n, listener::notice);
        Manifest m = chosen.manifest();
        Verifier.Result found;
        // No prune or repair deletes packs while they are read (released before damaged chunks are dropped).
        try (RestoreLock reading = view instanceof SealedStore sealed
                        ? RestoreLock.forReading(sealed, clock, "verify")
                        : RestoreLock.shared(null);
                PackedContent content = packedContent()) {
            if (content != null) {
                PackedRepair.damageNotes(content, m).forEach(listener::notice);
            }
            java.util.Set<String> unnamedAtStart = content == null ? java.util.Set.of() : content.unindexedPacksRead();
            found = Verifier.run(view, m, record, subset, transfers, cancellation, this::counter, content);
            if (content != null) {
                PackedRepair.readNotes(content, unnamedAtStart).forEach(listener::notice);
            }
        }
        boolean recorded = false;
        // The earlier formats record damaged versions; format 3 drops the damaged chunks from the index.
        if (key == null && !found.damaged().isEmpty()) {
            Instant now = clock.instant();
            for (Verifier.Damage d : found.damaged()) {
                ManifestEntry e = d.entry();
                record.add(new DamagedVersions.Entry(e.path(), e.versionId(), e.sha256(), now, d.reason(), null));
            }
            try {
                record.save(view);
                recorded = true;
                listener.notice("Recorded " + found.damaged().size() + " damaged version(s) of '" + n + "' in "
                        + DamagedVersions.key(n) + ": no backup reuses them.");
            } catch (RuntimeException ex) {
                listener.notice("Warning: the damaged versions could not be recorded (" + Messages.rootMessage(ex)
                        + "); the next backup may reuse them: run verify again once nothing else writes to the store.");
            }
        }
        if (key != null && !found.damaged().isEmpty() && view instanceof SealedStore sealed) {
            // As 'ballast verify': the damaged chunks leave the index, so the next backup stores them again.
            recorded = DamagedChunks.dropAfterVerify(
                    sealed, store, key, transfers, found.damaged(), clock, listener::notice);
            if (!recorded) {
                listener.notice(PACKED_DAMAGE_ADVICE);
            }
        }
        List<FileProblem> damaged = new ArrayList<>();
        found.damaged().forEach(d -> damaged.add(new FileProblem(d.entry().path(), d.reason())));
        return new VerifyResult(
                chosen.version().versionId(),
                chosen.olderThanNewest(),
                m.files().size() - found.damaged().size() - found.unreadable().size(),
                damaged,
                found.unreadable(),
                recorded,
                found.unavailable() != null,
                found.bytes(),
                found.elapsed());
    }
}
