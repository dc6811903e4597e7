package dev.ballast.backup.pack;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What {@link BlobRepository#check} found.
 *
 * @param packsChecked packs whose existence and size were checked against the index
 * @param packsRead packs read whole and every blob opened
 * @param blobsRead blobs opened, decompressed and matched against their IDs
 * @param damage every damaged or missing object found, in key order; empty when all is well
 * @param unindexedPacks packs in the store no index file names (garbage of a dead run, or the packs of
 *     a run still writing); not damage
 */
public record CheckReport(
        int packsChecked, int packsRead, long blobsRead, List<Damage> damage, List<String> unindexedPacks) {
    public CheckReport {
        damage = List.copyOf(damage);
        unindexedPacks = List.copyOf(unindexedPacks);
    }

    /** Whether nothing damaged or missing was found. */
    public boolean ok() {
        return damage.isEmpty();
    }

    /**
     * One damaged object, or one damaged blob in it.
     *
     * @param key the object's key ({@code data/...} or {@code index/...})
     * @param blob the blob, when the damage is one blob's; null for the object as a whole
     * @param reason one clause saying what is wrong ("its header does not open: ...", "it is missing")
     */
    public record Damage(String key, @Nullable BlobId blob, String reason) {
        public Damage {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(reason, "reason");
        }

        /**
         * The start of the reason of a pack whose bytes fail the store's own check as a whole; its blobs are
         * then read one by one and those that do not open named apart.
         */
        public static final String BYTES_DAMAGED = "its bytes are damaged: ";

        /** The start of the reason of a pack the store lists but does not hold in full (its content file cut). */
        public static final String NOT_HELD_IN_FULL = "the store does not hold it in full: ";

        /** The reason of {@link #wrongSize}, after the pack's size. */
        private static final String WRONG_SIZE = " bytes; its index entry implies ";

        /**
         * A pack whose size in the store is not the one its index entry implies: damage, but its blobs
         * may all still read (a read of the pack names those that do not).
         */
        static Damage wrongSize(String pack, long size, long expected) {
            return new Damage(pack, null, "it is " + size + WRONG_SIZE + expected);
        }

        /**
         * Whether this is a {@link #wrongSize} finding, a pack the store does not hold in full, or one whose
         * bytes fail the store's check as a whole: about the pack, not which of its blobs still read (a
         * read of the pack names those).
         */
        public boolean sizeOnly() {
            return blob == null
                    && ((reason.startsWith("it is ") && reason.contains(WRONG_SIZE))
                            || reason.startsWith(NOT_HELD_IN_FULL)
                            || reason.startsWith(BYTES_DAMAGED));
        }

        /** The blob, when the damage is one blob's. */
        public Optional<BlobId> blobIfAny() {
            return Optional.ofNullable(blob);
        }

        /** One sentence: the object, the blob if any, the reason. */
        @Override
        public String toString() {
            return key + (blob == null ? "" : " (blob " + blob + ")") + ": " + reason;
        }
    }
}
