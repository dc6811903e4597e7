package dev.ballast.backup;

import dev.ballast.backup.content.PackedBlobs;
import dev.ballast.backup.content.PackedContent;
import dev.ballast.backup.content.PendingContent;
import dev.ballast.backup.keys.MasterKey;
import dev.ballast.backup.retention.PackedPrune;
import dev.ballast.backup.snapshot.SealedStore;
import dev.ballast.backup.tree.Glob;
import dev.ballast.backup.verify.DataSubset;
import dev.ballast.storage.object.ObjectStore;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One job of {@link Backups} (a backup, restore, verify, forget, prune or repair), with the settings of
 * the {@code Backups} that started it: each concern is its own subclass, {@code Backups} the API
 * that starts them. A job object serves one call, on the calling thread.
 */
abstract class Job {
    /**
     * What a {@link Backups} gives its jobs.
     *
     * @param store the object store
     * @param view what manifests, markers and records go through: the store itself, or its sealed view
     *     (format 3)
     * @param key the master key of a repository of format 3, or null for the earlier formats
     * @param clock snapshot times, retention and the grace periods
     * @param transfers files moved at once
     * @param listener progress and notices
     * @param cancellation stops the job
     * @param manifestGrace how long an interrupted run has to write its manifest
     */
    record Settings(
            ObjectStore store,
            ObjectStore view,
            @Nullable MasterKey key,
            Clock clock,
            int transfers,
            BackupListener listener,
            Cancellation cancellation,
            Duration manifestGrace) {}

    protected final ObjectStore store;
    protected final ObjectStore view;
    protected final @Nullable MasterKey key;
    protected final Clock clock;
    protected final int transfers;
    protected final BackupListener listener;
    protected final Cancellation cancellation;
    protected final Duration manifestGrace;

    Job(Settings s) {
        this.store = s.store();
        this.view = s.view();
        this.key = s.key();
        this.clock = s.clock();
        this.transfers = s.transfers();
        this.listener = s.listener();
        this.cancellation = s.cancellation();
        this.manifestGrace = s.manifestGrace();
    }

    /** The content of a repository of format 3, opened for one job (its index read), or null without a key. */
    protected @Nullable PackedContent packedContent() {
        return key == null ? null : PackedBlobs.open(store, key, transfers);
    }

    /**
     * The packed content a backup of format 3 stores into, its index read only once the run's marker is
     * written and no prune runs ({@link PackedPrune#requireNoPrune}): a prune that ended before this
     * point has its deletions in the index read, and one that starts after it sees the marker. The index
     * is read on a thread of its own ({@link PendingContent}) while the run walks its tree.
     */
    protected @Nullable PackedContent packedContentAfterMarker() {
        if (key == null || !(view instanceof SealedStore sealed)) {
            return null;
        }
        PackedPrune.requireNoPrune(sealed, clock.instant());
        return PendingContent.opening(this::packedContent);
    }

    protected ProgressCounter counter(Long files, Long bytes) {
        return counter(files.longValue(), bytes.longValue());
    }

    protected ProgressCounter counter(long files, long bytes) {
        BackupListener l = listener;
        return new ProgressCounter(files, bytes) {
            @Override
            protected void onChange() {
                l.progress(snapshot());
            }
        };
    }

    protected static List<Glob> globs(String option, List<String> patterns) {
        List<Glob> globs = new ArrayList<>();
        for (String p : patterns) {
            try {
                globs.add(Glob.parse(p));
            } catch (IllegalArgumentException e) {
                throw new BackupException(
                        BackupException.Kind.INVALID_INPUT,
                        "The " + option + " pattern '" + p + "' is not usable: " + e.getMessage()
                                + "; pass a pattern such as '*.jpg', 'docs' or '/docs/2026'.");
            }
        }
        return globs;
    }

    /** The read-data subset a caller gave, or null for none. */
    static @Nullable DataSubset subset(@Nullable String readDataSubset) {
        try {
            return readDataSubset == null ? null : DataSubset.parse(readDataSubset);
        } catch (IllegalArgumentException e) {
            throw new BackupException(
                    BackupException.Kind.INVALID_INPUT, "The read-data subset " + e.getMessage() + ".");
        }
    }
}
