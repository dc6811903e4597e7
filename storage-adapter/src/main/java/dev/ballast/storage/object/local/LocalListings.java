package dev.ballast.storage.object.local;

import dev.ballast.storage.internal.ObjectKeys;
import dev.ballast.storage.object.ObjectMetadata;
import dev.ballast.storage.object.VersionEntry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The listing room of {@link LocalObjectStore}: a key's history, the current keys under a prefix,
 * every version under a prefix, and which listed versions' bytes are not held. Thread-safe.
 */
final class LocalListings {
    private final LocalStoreConfig config;
    private final Blobs blobs;
    private final Packs packs;
    private final IndexConnections connections;

    LocalListings(LocalStoreConfig config, Blobs blobs, Packs packs, IndexConnections connections) {
        this.config = config;
        this.blobs = blobs;
        this.packs = packs;
        this.connections = connections;
    }

    /** The current keys a page at a time, one index query per page ({@link LocalListing}). */
    java.util.stream.Stream<dev.ballast.storage.object.ListEntry> listing(
            dev.ballast.storage.object.ListRequest request) {
        Objects.requireNonNull(request, "request");
        HeldBytes files = new HeldBytes(blobs, packs);
        return LocalListing.listing(
                request,
                (from, to, limit) -> connections.read(
                        ix -> ix.currentPage(from, to, limit), null, "Listing keys under '" + request.prefix() + "'"),
                rows -> held(rows.stream().map(HeldBytes.Place::of).toList(), files));
    }

    /**
     * The bytes the files hold of each of {@code places} ({@link HeldBytes}). A version found short
     * is looked up again, once for them all, and its file looked at again: a compaction may have moved
     * its content and deleted the pack file since its row was read (counted where the content is
     * now), a writer may have appended it to a pack whose length was kept from earlier in the
     * listing, or a prune removed it ({@link HeldBytes#NONE}). A version still in the index whose file
     * is missing or not a regular file is lost: 0 bytes are held.
     */
    private long[] held(List<HeldBytes.Place> places, HeldBytes files) {
        long[] held = new long[places.size()];
        List<Integer> shortOnes = new ArrayList<>();
        for (int i = 0; i < places.size(); i++) {
            held[i] = held(places.get(i), files);
            if (held[i] != places.get(i).size()) {
                shortOnes.add(i);
            }
        }
        if (shortOnes.isEmpty()) {
            return held;
        }
        List<VersionIndex.@Nullable Row> now = read(
                ix -> {
                    List<VersionIndex.@Nullable Row> found = new ArrayList<>(shortOnes.size());
                    for (int i : shortOnes) {
                        found.add(ix.version(places.get(i).key(), places.get(i).versionId()));
                    }
                    return found;
                },
                null,
                "Looking up " + shortOnes.size() + " versions");
        for (int j = 0; j < shortOnes.size(); j++) {
            int i = shortOnes.get(j);
            VersionIndex.Row row = now.get(j);
            HeldBytes.Place was = places.get(i);
            if (row == null) {
                held[i] = HeldBytes.NONE;
            } else {
                // Looked at again: a pack that a writer appended to since its length was kept is
                // longer now, and the content may have moved.
                files.forget(was.pack());
                files.forget(row.pack());
                // Still in the index with its file gone (deleted by hand, or not a regular file): the
                // version is lost, not deleted (a deletion removes its row before its file). It is
                // listed at the 0 bytes held, as a file cut to nothing is, so that a reader finds it
                // damaged (get and head fail with IntegrityException) instead of never written: hiding
                // it made a lost newest snapshot look like no snapshot, with the older one as latest.
                held[i] = Math.max(0, held(HeldBytes.Place.of(row), files));
            }
        }
        return held;
    }

    private long held(HeldBytes.Place place, HeldBytes files) {
        try {
            return files.held(place);
        } catch (IOException e) {
            throw LocalErrors.unavailable(place.key(), "Looking at the files of '" + place.key() + "'", e);
        }
    }

    List<VersionEntry> versions(String key) {
        validate(key);
        List<VersionIndex.Row> rows = read(ix -> ix.history(key), key, "Listing the versions of '" + key + "'");
        return entries(rows);
    }

    /** The index rows as version entries, in their order, each with its metadata. */
    private List<VersionEntry> entries(List<VersionIndex.Row> rows) {
        java.util.Map<String, ObjectMetadata> metadata = read(
                ix -> {
                    java.util.Map<String, ObjectMetadata> found = new java.util.HashMap<>();
                    if (ix.attributesPresent() && IndexAttributes.anyMetadata(ix.connection())) {
                        for (VersionIndex.Row r : rows) {
                            if (!r.deleteMarker()) {
                                found.put(r.versionId(), IndexAttributes.metadata(ix.connection(), r.versionId()));
                            }
                        }
                    }
                    return found;
                },
                null,
                "Reading the metadata of " + rows.size() + " versions");
        List<HeldBytes.Place> places = new ArrayList<>(rows.size());
        for (VersionIndex.Row r : rows) {
            if (!r.deleteMarker()) {
                places.add(HeldBytes.Place.of(r));
            }
        }
        long[] held = held(places, new HeldBytes(blobs, packs));
        List<VersionEntry> entries = new ArrayList<>(rows.size());
        int p = 0;
        for (VersionIndex.Row r : rows) {
            // As the listing: a version deleted while it was listed is not listed, a lost or cut one
            // at the bytes held; never at its recorded size.
            long size = r.deleteMarker() ? r.size() : held[p++];
            if (size == HeldBytes.NONE) {
                continue;
            }
            entries.add(new VersionEntry(
                    r.key(),
                    r.versionId(),
                    r.deleteMarker() ? null : LocalObjectStore.eTag(r.versionId()),
                    size,
                    Instant.ofEpochMilli(r.modifiedMillis()),
                    r.latest(),
                    r.deleteMarker(),
                    metadata.getOrDefault(r.versionId(), ObjectMetadata.NONE)));
        }
        return List.copyOf(entries);
    }

    /** The current keys under {@code prefix} that {@link #listing} lists: those some bytes of which are held. */
    List<String> list(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        try (java.util.stream.Stream<dev.ballast.storage.object.ListEntry> s =
                listing(dev.ballast.storage.object.ListRequest.prefix(prefix))) {
            return s.map(dev.ballast.storage.object.ListEntry::key).toList();
        }
    }

    /** Every version and delete marker of the keys under {@code prefix}, by key in UTF-8 binary order, newest first. */
    List<VersionEntry> listVersions(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        List<VersionIndex.Row> rows =
                read(ix -> ix.historyUnder(prefix), null, "Listing the versions under '" + prefix + "'");
        return entries(rows);
    }

    /**
     * Checks each listed version's bytes without reading them: its index row still exists, and its
     * content file has the recorded length, or its pack file reaches past the end of its content. All
     * rows are looked up on one index connection, and each file is looked at once however many
     * versions it holds (a pack file holds many): for a backup's unchanged files, one query per
     * version and one stat per file.
     */
    java.util.Map<VersionEntry, String> missingContent(java.util.Collection<VersionEntry> listed) {
        Objects.requireNonNull(listed, "listed");
        List<VersionEntry> toCheck = new ArrayList<>(listed.size());
        for (VersionEntry v : listed) {
            if (!v.deleteMarker()) { // a cut version is listed short: the index row says what it should hold
                toCheck.add(v);
            }
        }
        java.util.Map<VersionEntry, String> missing = new java.util.LinkedHashMap<>();
        if (toCheck.isEmpty()) {
            return missing;
        }
        List<VersionIndex.Row> rows = read(
                ix -> {
                    List<VersionIndex.Row> found = new ArrayList<>(toCheck.size());
                    for (VersionEntry v : toCheck) {
                        found.add(ix.version(v.key(), v.versionId()));
                    }
                    return found;
                },
                null,
                "Looking up " + toCheck.size() + " versions");
        java.util.Map<Path, java.util.Optional<BasicFileAttributes>> looked = new java.util.HashMap<>();
        for (int i = 0; i < toCheck.size(); i++) {
            VersionIndex.Row row = rows.get(i);
            String why =
                    row == null ? "it is no longer in the index" : row.size() == 0 ? null : contentProblem(row, looked);
            if (why != null) {
                missing.put(toCheck.get(i), why);
            }
        }
        return missing;
    }

    /**
     * What is wrong with where the bytes of {@code row} are kept, seen without reading them; null if
     * nothing. {@code looked} keeps the files already looked at (empty: missing).
     */
    private @Nullable String contentProblem(
            VersionIndex.Row row, java.util.Map<Path, java.util.Optional<BasicFileAttributes>> looked) {
        if (row.inlineData() != null) {
            return row.inlineData().length == row.size()
                    ? null
                    : "its content in the index has " + row.inlineData().length + " bytes, not " + row.size();
        }
        Path file = row.packed() ? packs.path(row.pack()) : blobs.path(row.content());
        String what = row.packed() ? "pack file " : "content file ";
        java.util.Optional<BasicFileAttributes> seen = looked.get(file);
        if (seen == null) {
            try {
                seen = java.util.Optional.of(
                        Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS));
            } catch (NoSuchFileException e) {
                seen = java.util.Optional.empty();
            } catch (IOException e) {
                throw LocalErrors.unavailable(row.key(), "Looking at " + file, e);
            }
            looked.put(file, seen);
        }
        if (seen.isEmpty()) {
            return "its " + what + file + " is missing";
        }
        BasicFileAttributes attrs = seen.get();
        if (!attrs.isRegularFile()) {
            return "its " + what + file + " is not a regular file";
        }
        if (row.packed()) {
            long end = row.packOffset() + row.size();
            return attrs.size() >= end
                    ? null
                    : "its pack file " + file + " ends at byte " + attrs.size() + ", before the content's end at "
                            + end;
        }
        return attrs.size() == row.size()
                ? null
                : "its content file " + file + " has " + attrs.size() + " bytes but " + row.size() + " are recorded";
    }

    private void validate(String key) {
        ObjectKeys.validate(key, config.allowDotSegmentsAndLeadingSlash());
    }

    private <T> T read(IndexConnections.IndexQuery<T> query, @Nullable String key, String what) {
        return connections.read(query, key, what);
    }
}
