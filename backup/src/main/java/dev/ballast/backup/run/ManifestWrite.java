package dev.ballast.backup.run;

import dev.ballast.backup.Messages;
import dev.ballast.backup.content.PackedContent;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectStore;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Writing a backup run's manifest, the run's last write ({@link #write}): none when a prune took the
 * run for dead while it was paused; a complete run's waits as long as the store takes, an incomplete
 * one's at most the grace period; a complete run's manifest is withdrawn when a prune removed the run's
 * marker while it was written. What went wrong is a reason in the outcome, not thrown.
 *
 * <p>Not thread-safe: made and called by {@link BackupRunner#run} on the run's thread only, once the
 * transfers were awaited; only the put of an incomplete run's manifest runs on a daemon thread of its
 * own, which the run waits for at most the grace period. One instance per run.
 */
final class ManifestWrite {
    private final ObjectStore store;
    private final String name;
    /** Where file contents go in a repository of format 3, or null in a store of the earlier formats. */
    private final @Nullable PackedContent packed;

    private final Consumer<String> err;
    /** How long an incomplete run waits for its manifest to be written. */
    private final Duration manifestGrace;

    ManifestWrite(
            ObjectStore store,
            String name,
            @Nullable PackedContent packed,
            Consumer<String> err,
            Duration manifestGrace) {
        this.store = store;
        this.name = name;
        this.packed = packed;
        this.err = err;
        this.manifestGrace = manifestGrace;
    }

    /**
     * What {@link #write} did.
     *
     * @param versionId the manifest's version, or null when none was written or it was withdrawn
     * @param problem why there is none, or null
     * @param unavailable the run's {@code down}, or else the unavailability the write met; null when neither
     */
    record Outcome(
            @Nullable String versionId,
            @Nullable String problem,
            @Nullable StorageUnavailableException unavailable) {}

    /**
     * Writes {@code manifest}, unless {@code losses} (from {@link StoreAgain#storeAgainIfTakenForDead})
     * is negative; withdraws a complete one when {@link StoreAgain#takenForDeadSince} says so.
     *
     * @param down the store's unavailability the run met already, or null
     */
    Outcome write(
            Manifest manifest,
            boolean complete,
            int losses,
            StoreAgain storeAgain,
            @Nullable StorageUnavailableException down) {
        String manifestVersion = null;
        String manifestProblem = null;
        try {
            if (losses < 0) {
                manifestProblem = "a prune took this run for dead while it was paused, so what it stored may be gone;"
                        + " no manifest references it";
            } else {
                manifestVersion = writeManifest(manifest, complete);
                if (packed != null) {
                    PackedBackup.noteStoredAgain(packed, err);
                }
                if (complete && storeAgain.takenForDeadSince(losses)) {
                    // A prune removed the marker between the check and the manifest: withdraw the manifest.
                    store.deleteVersion(Manifest.key(name), manifestVersion);
                    manifestVersion = null;
                    manifestProblem = "a prune took this run for dead while its manifest was being written, so the"
                            + " manifest was withdrawn";
                }
            }
        } catch (StorageUnavailableException e) {
            manifestProblem = "the store was unavailable";
            down = down == null ? e : down;
        } catch (TimeoutException e) {
            manifestProblem = "the store did not answer within " + Messages.duration(manifestGrace);
        } catch (RuntimeException e) {
            manifestProblem = e.getMessage();
        }
        return new Outcome(manifestVersion, manifestProblem, down);
    }

    /**
     * Writes the manifest. A complete run waits as long as the store takes; an incomplete one (the
     * store may be down) waits at most the grace period, so a dead endpoint cannot hold the command.
     */
    private String writeManifest(Manifest manifest, boolean complete) throws TimeoutException {
        byte[] json = manifest.toJson();
        // Format 3: the packs were stored and indexed before (PackedBackup.confirmPacked), and the entries whose chunks
        // the index lacks taken out: a manifest never references a chunk the index lacks.
        Supplier<String> put =
                () -> store.put(Manifest.key(name), ObjectContent.ofBytes(json)).versionId();
        if (complete) {
            return put.get();
        }
        CompletableFuture<String> write = CompletableFuture.supplyAsync(put, daemonExecutor());
        try {
            return write.get(manifestGrace.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TimeoutException("interrupted");
        }
    }

    private static java.util.concurrent.Executor daemonExecutor() {
        return r -> {
            Thread t = new Thread(r, "ballast-manifest-write");
            t.setDaemon(true);
            t.start();
        };
    }
}
