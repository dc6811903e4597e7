package dev.ballast.storage.object.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashMap;
import java.util.Map;

/**
 * How many bytes of a listed version the store's files hold, seen without reading them: what a
 * listing reports instead of the size the index records, so that a content file deleted or cut by
 * hand lists as S3 lists the same damage — a file gone as absent, a file cut at the bytes it still
 * holds — never as present in full.
 *
 * <p>A content file costs one stat per version listed; a pack file one stat per listing however
 * many of its contents are listed (the lengths are kept here). An empty version and one whose
 * content is inline in the index (the first layout) are held in full. One instance per listing or
 * page run; not thread-safe.
 */
final class HeldBytes {
    /** The version's file is gone, or is not a regular file: nothing of it is held. */
    static final long NONE = -1;

    private final Blobs blobs;
    private final Packs packs;
    private final Map<Long, Long> packLengths = new HashMap<>();

    HeldBytes(Blobs blobs, Packs packs) {
        this.blobs = blobs;
        this.packs = packs;
    }

    /** Where a listed version's bytes are, as its index row records it. */
    record Place(String key, String versionId, long size, byte[] content, boolean inline, long pack, long packOffset) {
        static Place of(VersionIndex.Listed r) {
            return new Place(r.key(), r.versionId(), r.size(), r.content(), r.inline(), r.pack(), r.packOffset());
        }

        static Place of(VersionIndex.Row r) {
            return new Place(
                    r.key(), r.versionId(), r.size(), r.content(), r.inlineData() != null, r.pack(), r.packOffset());
        }
    }

    /** Looks at pack file {@code pack} again the next time (a writer may have appended to it). */
    void forget(long pack) {
        packLengths.remove(pack);
    }

    /** {@link #held(long, byte[], boolean, long, long)} of {@code place}. */
    long held(Place place) throws IOException {
        return held(place.size(), place.content(), place.inline(), place.pack(), place.packOffset());
    }

    /**
     * The bytes held of a version of {@code size} bytes recorded: {@code size} when its file is
     * whole; the file's length when its content file has another (cut short, or written over); the
     * bytes of its pack file past {@code packOffset}, at most {@code size} (0 when the pack ends
     * before the content's first byte), when packed; {@link #NONE} when its file is missing or not a
     * regular file.
     *
     * @param pack the pack holding the content, 0 when it has its own content file
     * @throws IOException if a file could not be looked at (other than missing)
     */
    long held(long size, byte[] content, boolean inline, long pack, long packOffset) throws IOException {
        if (size == 0 || inline) {
            return size;
        }
        if (pack != 0) {
            Long length = packLengths.get(pack);
            if (length == null) {
                length = length(packs.path(pack));
                packLengths.put(pack, length);
            }
            long past = length - packOffset;
            return length == NONE ? NONE : Math.max(0, Math.min(past, size));
        }
        return length(blobs.path(content));
    }

    /** The length of {@code file}, or {@link #NONE} when it is missing or not a regular file. */
    private static long length(Path file) throws IOException {
        BasicFileAttributes attrs;
        try {
            attrs = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return NONE;
        }
        return attrs.isRegularFile() ? attrs.size() : NONE;
    }
}
