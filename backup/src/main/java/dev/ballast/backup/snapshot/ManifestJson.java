package dev.ballast.backup.snapshot;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.ballast.backup.tree.PosixAttrs;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The manifest's JSON, written and read with Jackson's streaming API: field by field, no data
 * binding. A manifest has an entry per file, and the reading of the previous one is on the path of
 * every backup: databind's general machinery took seconds on a 20,000-file manifest in a fresh JVM,
 * this takes a fraction of that. Unknown fields are skipped (a newer ballast may add some); a
 * missing number or flag reads as 0 or false, a {@code null} one is refused.
 */
public final class ManifestJson {
    private static final JsonFactory FACTORY = new JsonFactory();

    private ManifestJson() {}

    public static byte[] write(Manifest m) {
        ByteArrayOutputStream out =
                new ByteArrayOutputStream(256 + 256 * m.files().size());
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            g.writeStartObject();
            g.writeNumberField("formatVersion", m.formatVersion());
            g.writeStringField("name", m.name());
            g.writeStringField("createdAt", ManifestTimes.format(m.createdAt()));
            if (m.source() != null) {
                g.writeStringField("source", m.source());
            }
            if (m.host() != null) {
                g.writeStringField("host", m.host());
            }
            g.writeBooleanField("complete", m.complete());
            if (m.formatVersion() == Manifest.PACKED_FORMAT_VERSION) {
                // In the head (they are not entries): what list shows, read without the parts (ManifestSummary).
                // Not in the earlier formats' manifests, stored whole, which are written as they always were.
                g.writeNumberField("fileCount", m.files().size());
                g.writeNumberField("totalBytes", m.totalBytes());
            }
            g.writeArrayFieldStart("files");
            for (ManifestEntry e : m.files()) {
                g.writeStartObject();
                g.writeStringField("path", e.path());
                g.writeNumberField("size", e.size());
                g.writeStringField("sha256", e.sha256());
                if (e.chunks() == null) {
                    g.writeStringField("versionId", e.versionId());
                } else {
                    g.writeArrayFieldStart("chunks");
                    for (String c : e.chunks()) {
                        g.writeString(c);
                    }
                    g.writeEndArray();
                }
                g.writeStringField("mtime", ManifestTimes.format(e.mtime()));
                if (e.ctime() != null) {
                    g.writeStringField("ctime", ManifestTimes.format(e.ctime()));
                }
                if (e.inode() != null) {
                    g.writeNumberField("inode", e.inode());
                }
                writeAttrs(g, e.attrs());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeArrayFieldStart("notStored");
            for (String path : m.notStored()) {
                g.writeString(path);
            }
            g.writeEndArray();
            if (!m.stale().isEmpty()) {
                g.writeArrayFieldStart("stale");
                for (Manifest.Stale st : m.stale()) {
                    g.writeStartObject();
                    g.writeStringField("path", st.path());
                    g.writeStringField("reason", st.reason());
                    g.writeEndObject();
                }
                g.writeEndArray();
            }
            if (m.incompleteBecause() != null) {
                g.writeStringField("incompleteBecause", m.incompleteBecause());
            }
            writeTree(g, m.tree());
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("Manifest of '" + m.name() + "' could not be serialised", e);
        }
        return out.toByteArray();
    }

    /** The tree's lists, each only when it has entries (a manifest without them reads as before). */
    private static void writeTree(JsonGenerator g, ManifestTree tree) throws IOException {
        if (!tree.directories().isEmpty()) {
            g.writeArrayFieldStart("directories");
            for (ManifestTree.Directory d : tree.directories()) {
                g.writeStartObject();
                g.writeStringField("path", d.path());
                g.writeStringField("mtime", ManifestTimes.format(d.mtime()));
                writeAttrs(g, d.attrs());
                g.writeEndObject();
            }
            g.writeEndArray();
        }
        if (!tree.symlinks().isEmpty()) {
            g.writeArrayFieldStart("symlinks");
            for (ManifestTree.Symlink l : tree.symlinks()) {
                g.writeStartObject();
                g.writeStringField("path", l.path());
                g.writeStringField("target", l.target());
                g.writeStringField("mtime", ManifestTimes.format(l.mtime()));
                writeAttrs(g, l.attrs());
                g.writeEndObject();
            }
            g.writeEndArray();
        }
        if (!tree.hardLinks().isEmpty()) {
            g.writeArrayFieldStart("hardLinks");
            for (ManifestTree.HardLink l : tree.hardLinks()) {
                g.writeStartObject();
                g.writeStringField("path", l.path());
                g.writeStringField("target", l.target());
                g.writeEndObject();
            }
            g.writeEndArray();
        }
    }

    private static void writeAttrs(JsonGenerator g, @Nullable PosixAttrs a) throws IOException {
        if (a != null) {
            g.writeNumberField("mode", a.mode());
            g.writeNumberField("uid", a.uid());
            g.writeNumberField("gid", a.gid());
        }
    }

    /**
     * @throws IOException if the JSON is malformed or does not have the manifest's shape
     * @throws RuntimeException (NullPointerException, IllegalArgumentException, DateTimeException)
     *     if a field's value is not acceptable
     */
    public static Manifest read(byte[] json) throws IOException {
        try (JsonParser p = FACTORY.createParser(json)) {
            expect(p, p.nextToken(), JsonToken.START_OBJECT, "the manifest");
            int formatVersion = 0;
            String name = null;
            Instant createdAt = null;
            boolean complete = false;
            List<ManifestEntry> files = null;
            List<String> notStored = null;
            List<Manifest.Stale> stale = null;
            String incompleteBecause = null;
            String source = null;
            String host = null;
            List<ManifestTree.Directory> directories = null;
            List<ManifestTree.Symlink> symlinks = null;
            List<ManifestTree.HardLink> hardLinks = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                switch (field) {
                    case "formatVersion" -> formatVersion = intValue(p, value, field);
                    case "name" -> name = string(p, value);
                    case "createdAt" -> createdAt = instant(p, value);
                    case "complete" -> complete = bool(p, value, field);
                    case "files" -> files = value == JsonToken.VALUE_NULL ? null : entries(p, value);
                    case "notStored" -> notStored = value == JsonToken.VALUE_NULL ? null : strings(p, value);
                    case "stale" -> stale = value == JsonToken.VALUE_NULL ? null : staleEntries(p, value);
                    case "incompleteBecause" -> incompleteBecause = string(p, value);
                    case "source" -> source = string(p, value);
                    case "host" -> host = string(p, value);
                    case "directories" ->
                        directories = value == JsonToken.VALUE_NULL
                                ? null
                                : objects(
                                        p,
                                        value,
                                        field,
                                        o -> new ManifestTree.Directory(
                                                o.string("path"), o.instant("mtime"), o.attrs()));
                    case "symlinks" ->
                        symlinks = value == JsonToken.VALUE_NULL
                                ? null
                                : objects(
                                        p,
                                        value,
                                        field,
                                        o -> new ManifestTree.Symlink(
                                                o.string("path"), o.string("target"), o.instant("mtime"), o.attrs()));
                    case "hardLinks" ->
                        hardLinks = value == JsonToken.VALUE_NULL
                                ? null
                                : objects(
                                        p,
                                        value,
                                        field,
                                        o -> new ManifestTree.HardLink(o.string("path"), o.string("target")));
                    default -> p.skipChildren();
                }
            }
            expect(p, p.currentToken(), JsonToken.END_OBJECT, "the manifest");
            if (p.nextToken() != null) {
                throw new JsonParseException(p, "trailing content after the manifest");
            }
            return new Manifest(
                    formatVersion,
                    name,
                    createdAt,
                    complete,
                    files,
                    notStored,
                    stale,
                    incompleteBecause,
                    new ManifestTree(directories, symlinks, hardLinks),
                    source,
                    host);
        }
    }

    /**
     * The summary a manifest's head records, its arrays of entries (or the parts naming them) skipped;
     * null when the head does not record {@code fileCount} and {@code totalBytes} (a manifest written
     * before they were), which is then read whole.
     *
     * @throws IOException if the JSON is malformed or does not have the manifest's shape
     * @throws RuntimeException if a field's value is not acceptable
     */
    static @Nullable ManifestSummary readSummary(byte[] json) throws IOException {
        try (JsonParser p = FACTORY.createParser(json)) {
            expect(p, p.nextToken(), JsonToken.START_OBJECT, "the manifest");
            String name = null;
            Instant createdAt = null;
            boolean complete = false;
            int fileCount = -1;
            long totalBytes = -1;
            List<String> notStored = List.of();
            List<Manifest.Stale> stale = List.of();
            String source = null;
            String host = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                switch (field) {
                    case "name" -> name = string(p, value);
                    case "createdAt" -> createdAt = instant(p, value);
                    case "complete" -> complete = bool(p, value, field);
                    case "fileCount" -> fileCount = intValue(p, value, field);
                    case "totalBytes" -> totalBytes = longValue(p, value, field);
                    case "notStored" -> notStored = value == JsonToken.VALUE_NULL ? List.of() : strings(p, value);
                    case "stale" -> stale = value == JsonToken.VALUE_NULL ? List.of() : staleEntries(p, value);
                    case "source" -> source = string(p, value);
                    case "host" -> host = string(p, value);
                    default -> p.skipChildren();
                }
            }
            expect(p, p.currentToken(), JsonToken.END_OBJECT, "the manifest");
            if (fileCount < 0 || totalBytes < 0 || createdAt == null || name == null) {
                return null;
            }
            return new ManifestSummary(
                    name,
                    createdAt,
                    complete,
                    fileCount,
                    totalBytes,
                    source,
                    host,
                    ManifestSummary.missing(notStored, stale),
                    notStored.size(),
                    stale.size());
        }
    }

    private static List<Manifest.Stale> staleEntries(JsonParser p, JsonToken start) throws IOException {
        expect(p, start, JsonToken.START_ARRAY, "stale");
        List<Manifest.Stale> stale = new ArrayList<>();
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            expect(p, t, JsonToken.START_OBJECT, "a stale entry");
            String path = null;
            String reason = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                switch (field) {
                    case "path" -> path = string(p, value);
                    case "reason" -> reason = string(p, value);
                    default -> p.skipChildren();
                }
            }
            stale.add(new Manifest.Stale(path, reason == null ? "not stored" : reason));
        }
        return stale;
    }

    private static List<ManifestEntry> entries(JsonParser p, JsonToken start) throws IOException {
        expect(p, start, JsonToken.START_ARRAY, "files");
        List<ManifestEntry> entries = new ArrayList<>();
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            expect(p, t, JsonToken.START_OBJECT, "a file entry");
            String path = null;
            long size = 0;
            String sha256 = null;
            String versionId = null;
            Instant mtime = null;
            Instant ctime = null;
            Long inode = null;
            Integer mode = null;
            Integer uid = null;
            Integer gid = null;
            List<String> chunks = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                switch (field) {
                    case "path" -> path = string(p, value);
                    case "size" -> size = longValue(p, value, field);
                    case "sha256" -> sha256 = string(p, value);
                    case "versionId" -> versionId = string(p, value);
                    case "mtime" -> mtime = instant(p, value);
                    case "ctime" -> ctime = instant(p, value);
                    case "inode" -> inode = value == JsonToken.VALUE_NULL ? null : longValue(p, value, field);
                    case "mode" -> mode = intValue(p, value, field);
                    case "uid" -> uid = intValue(p, value, field);
                    case "gid" -> gid = intValue(p, value, field);
                    case "chunks" -> chunks = value == JsonToken.VALUE_NULL ? null : strings(p, value);
                    default -> p.skipChildren();
                }
            }
            if (chunks != null && versionId == null) {
                versionId = "";
            }
            entries.add(new ManifestEntry(
                    path, size, sha256, versionId, mtime, ctime, inode, attrs(mode, uid, gid), chunks));
        }
        return entries;
    }

    /** Mode, uid and gid together, or null when the entry has none of them. */
    private static @Nullable PosixAttrs attrs(@Nullable Integer mode, @Nullable Integer uid, @Nullable Integer gid) {
        if (mode == null && uid == null && gid == null) {
            return null;
        }
        if (mode == null || uid == null || gid == null) {
            throw new IllegalArgumentException("an entry with one of mode, uid and gid must have all three");
        }
        return new PosixAttrs(mode, uid, gid);
    }

    /** The string, instant and number fields of one small object (a directory or link entry). */
    private record Fields(java.util.Map<String, Object> values) {
        @Nullable
        public String string(String name) {
            return (String) values.get(name);
        }

        @Nullable
        public Instant instant(String name) {
            String text = string(name);
            return text == null ? null : ManifestTimes.parse(text);
        }

        @Nullable
        public PosixAttrs attrs() {
            return ManifestJson.attrs(number("mode"), number("uid"), number("gid"));
        }

        private @Nullable Integer number(String name) {
            Object v = values.get(name);
            return v == null ? null : (Integer) v;
        }
    }

    /** An array of small objects with string and whole-number fields, each made into a {@code T}. */
    private static <T> List<T> objects(
            JsonParser p, JsonToken start, String what, java.util.function.Function<Fields, T> make)
            throws IOException {
        expect(p, start, JsonToken.START_ARRAY, what);
        List<T> list = new ArrayList<>();
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            expect(p, t, JsonToken.START_OBJECT, "an entry of " + what);
            java.util.Map<String, Object> values = new java.util.HashMap<>();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                switch (value) {
                    case VALUE_STRING -> values.put(field, p.getText());
                    case VALUE_NUMBER_INT -> values.put(field, intValue(p, value, field));
                    case VALUE_NULL -> {}
                    default -> p.skipChildren();
                }
            }
            list.add(make.apply(new Fields(values)));
        }
        return list;
    }

    private static List<String> strings(JsonParser p, JsonToken start) throws IOException {
        expect(p, start, JsonToken.START_ARRAY, "a list of strings");
        List<String> strings = new ArrayList<>();
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            strings.add(string(p, t));
        }
        return strings;
    }

    /**
     * The {@code source} field of the manifest (or manifest head, {@link ManifestParts}) {@code json},
     * read without building its entries: every other field's value is skipped.
     *
     * @return null when the manifest has no {@code source} (written before it was recorded)
     * @throws IOException if {@code json} is not a JSON object or its {@code source} is not a string
     */
    public static @Nullable String source(byte[] json) throws IOException {
        try (JsonParser p = FACTORY.createParser(json)) {
            expect(p, p.nextToken(), JsonToken.START_OBJECT, "the manifest");
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if (field.equals("source")) {
                    return string(p, value);
                }
                p.skipChildren();
            }
            return null;
        }
    }

    private static @Nullable String string(JsonParser p, JsonToken t) throws IOException {
        if (t == JsonToken.VALUE_NULL) {
            return null;
        }
        if (t != JsonToken.VALUE_STRING) {
            throw new JsonParseException(p, "expected a string but found " + t);
        }
        return p.getText();
    }

    private static @Nullable Instant instant(JsonParser p, JsonToken t) throws IOException {
        String text = string(p, t);
        return text == null ? null : ManifestTimes.parse(text);
    }

    private static long longValue(JsonParser p, JsonToken t, String field) throws IOException {
        if (t != JsonToken.VALUE_NUMBER_INT) {
            throw new JsonParseException(p, "'" + field + "' must be a whole number but was " + t);
        }
        return p.getLongValue();
    }

    private static int intValue(JsonParser p, JsonToken t, String field) throws IOException {
        if (t != JsonToken.VALUE_NUMBER_INT) {
            throw new JsonParseException(p, "'" + field + "' must be a whole number but was " + t);
        }
        return p.getIntValue();
    }

    private static boolean bool(JsonParser p, JsonToken t, String field) throws IOException {
        if (t != JsonToken.VALUE_TRUE && t != JsonToken.VALUE_FALSE) {
            throw new JsonParseException(p, "'" + field + "' must be true or false but was " + t);
        }
        return t == JsonToken.VALUE_TRUE;
    }

    private static void expect(JsonParser p, JsonToken actual, JsonToken expected, String what) throws IOException {
        if (actual != expected) {
            throw new JsonParseException(p, what + " must start with " + expected + " but found " + actual);
        }
    }
}
