package dev.ballast.backup.snapshot;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.ballast.backup.Messages;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.StorageException;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ReadOptions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The stored file versions of one backup that {@code verify} found damaged, kept in the object
 * {@code .ballast-damaged/NAME.json} beside the backups (backup names cannot start with
 * {@code .ballast}, so the key never holds a backed-up file).
 *
 * <p>A version recorded here is never reused: the next backup uploads the file again instead of
 * trusting an unchanged stat, and once a good copy of the same bytes (same SHA-256) is stored, by
 * that backup or by {@code verify --repair}, it is recorded as the damaged version's replacement.
 * {@code restore} and {@code verify} then read the replacement for every manifest that names the
 * damaged version, so one good copy repairs every restore point that holds the file. The record is
 * small (one entry per damaged version) and read once per command. Not thread-safe.
 */
public final class DamagedVersions {
    private static final JsonFactory JSON = new JsonFactory();
    private static final String PREFIX = ".ballast-damaged/";

    /**
     * One damaged version.
     *
     * @param path the file's path in the backup
     * @param versionId the damaged version
     * @param sha256 the SHA-256 the manifest records for it
     * @param foundAt when verify found it
     * @param reason what verify found
     * @param replacement the version holding a good copy of the same bytes, or null until one is stored
     */
    public record Entry(
            String path,
            String versionId,
            String sha256,
            Instant foundAt,
            String reason,
            @Nullable String replacement) {
        public Entry {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(versionId, "versionId");
            Objects.requireNonNull(sha256, "sha256");
            Objects.requireNonNull(foundAt, "foundAt");
            Objects.requireNonNull(reason, "reason");
        }

        public Entry withReplacement(String versionId) {
            return new Entry(path, this.versionId, sha256, foundAt, reason, versionId);
        }
    }

    private final String name;
    private final Map<String, Entry> byVersion;
    private final boolean unreadable;

    private DamagedVersions(String name, Map<String, Entry> byVersion) {
        this(name, byVersion, false);
    }

    private DamagedVersions(String name, Map<String, Entry> byVersion, boolean unreadable) {
        this.name = name;
        this.byVersion = byVersion;
        this.unreadable = unreadable;
    }

    /** The object key of the record of backup {@code name}. */
    public static String key(String name) {
        return PREFIX + name + ".json";
    }

    /**
     * Reads the record of {@code name}; none yet is an empty record. A record that cannot be read is
     * reported on {@code err} and treated as empty: it only ever makes a command do more work.
     */
    public static DamagedVersions load(ObjectStore store, String name, Consumer<String> err) {
        return load(store, name, err, "it is ignored");
    }

    /**
     * Reads the record of {@code name} as {@link #load(ObjectStore, String, PrintStream)} does; a
     * record that cannot be read is reported on {@code err} with {@code consequence} (one clause: what
     * the command does instead) and comes back empty and {@link #unreadable()}.
     */
    public static DamagedVersions load(ObjectStore store, String name, Consumer<String> err, String consequence) {
        Map<String, Entry> entries = new LinkedHashMap<>();
        try (ObjectRead read = store.get(key(name), ReadOptions.latest().withAllowCache(false))) {
            parse(read.readAllBytes(), entries);
        } catch (ObjectNotFoundException e) {
            // nothing was ever found damaged
        } catch (IOException | RuntimeException e) {
            if (e instanceof StorageException se && !(se instanceof IntegrityException)) {
                throw se;
            }
            err.accept("Warning: the record of damaged versions of '" + name + "' (" + key(name) + ") cannot be read ("
                    + Messages.rootMessage(e) + "); " + consequence + ".");
            return new DamagedVersions(name, new LinkedHashMap<>(), true);
        }
        return new DamagedVersions(name, entries);
    }

    /** The record of a backup, empty. */
    public static DamagedVersions empty(String name) {
        return new DamagedVersions(name, new LinkedHashMap<>());
    }

    /**
     * Whether the record exists but could not be read: which versions verify found damaged is then
     * unknown, so none of the backup's stored versions is known good.
     */
    public boolean unreadable() {
        return unreadable;
    }

    public boolean isEmpty() {
        return byVersion.isEmpty();
    }

    /** The entry of {@code versionId}, or null when it was never found damaged. */
    @Nullable
    public Entry get(String versionId) {
        return byVersion.get(versionId);
    }

    /** Whether {@code versionId} was found damaged. */
    public boolean damaged(String versionId) {
        return byVersion.containsKey(versionId);
    }

    /** The version to read for {@code entry}: its own, or the replacement of a damaged one. */
    public String versionToRead(ManifestEntry entry) {
        Entry d = byVersion.get(entry.versionId());
        return d != null && d.replacement() != null ? d.replacement() : entry.versionId();
    }

    /** Records a damaged version (keeping a replacement already known); returns whether it is new. */
    public boolean add(Entry entry) {
        Entry old = byVersion.get(entry.versionId());
        if (old != null) {
            return false;
        }
        byVersion.put(entry.versionId(), entry);
        return true;
    }

    /**
     * Records {@code versionId} (holding {@code sha256}) as the replacement of every damaged version
     * of {@code path} with the same SHA-256 and none yet; returns how many it replaces.
     */
    public int replace(String path, String sha256, String versionId) {
        int n = 0;
        for (Map.Entry<String, Entry> e : byVersion.entrySet()) {
            Entry d = e.getValue();
            if (d.path().equals(path)
                    && d.sha256().equals(sha256)
                    && d.replacement() == null
                    && !d.versionId().equals(versionId)) {
                e.setValue(d.withReplacement(versionId));
                n++;
            }
        }
        return n;
    }

    public Collection<Entry> entries() {
        return byVersion.values();
    }

    /** Writes the record as a new version of its object. */
    public void save(ObjectStore store) {
        store.put(key(name), ObjectContent.ofBytes(toJson()));
    }

    public byte[] toJson() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeNumberField("formatVersion", 1);
            g.writeStringField("name", name);
            g.writeArrayFieldStart("damaged");
            for (Entry e : byVersion.values()) {
                g.writeStartObject();
                g.writeStringField("path", e.path());
                g.writeStringField("versionId", e.versionId());
                g.writeStringField("sha256", e.sha256());
                g.writeStringField("foundAt", ManifestTimes.format(e.foundAt()));
                g.writeStringField("reason", e.reason());
                if (e.replacement() != null) {
                    g.writeStringField("replacement", e.replacement());
                }
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private static void parse(byte[] json, Map<String, Entry> into) throws IOException {
        try (JsonParser p = JSON.createParser(json)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException("not a JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if (!field.equals("damaged") || value != JsonToken.START_ARRAY) {
                    p.skipChildren();
                    continue;
                }
                while (p.nextToken() == JsonToken.START_OBJECT) {
                    Map<String, String> f = new LinkedHashMap<>();
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String k = p.currentName();
                        JsonToken v = p.nextToken();
                        if (v == JsonToken.VALUE_STRING) {
                            f.put(k, p.getText());
                        } else {
                            p.skipChildren();
                        }
                    }
                    Entry e = new Entry(
                            f.get("path"),
                            f.get("versionId"),
                            f.get("sha256"),
                            ManifestTimes.parse(Objects.requireNonNull(f.get("foundAt"), "foundAt")),
                            f.getOrDefault("reason", "damaged"),
                            f.get("replacement"));
                    into.put(e.versionId(), e);
                }
            }
        }
    }

    /** The entries, newest first, for messages and tests. */
    public java.util.List<Entry> list() {
        return new ArrayList<>(byVersion.values());
    }
}
