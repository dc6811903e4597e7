package dev.ballast.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The manifest's JSON, written and read with Jackson's streaming API: field by field, no data
 * binding. A manifest has an entry per file, and the reading of the previous one is on the path of
 * every backup: databind's general machinery took seconds on a 20,000-file manifest in a fresh JVM,
 * this takes a fraction of that. Unknown fields are skipped (a newer ballast may add some); a
 * missing number or flag reads as 0 or false, a {@code null} one is refused.
 */
final class ManifestJson {
  private static final JsonFactory FACTORY = new JsonFactory();

  private ManifestJson() {}

  static byte[] write(Manifest m) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256 + 256 * m.files().size());
    try (JsonGenerator g = FACTORY.createGenerator(out)) {
      g.writeStartObject();
      g.writeNumberField("formatVersion", m.formatVersion());
      g.writeStringField("name", m.name());
      g.writeStringField("createdAt", ManifestTimes.format(m.createdAt()));
      g.writeBooleanField("complete", m.complete());
      g.writeArrayFieldStart("files");
      for (ManifestEntry e : m.files()) {
        g.writeStartObject();
        g.writeStringField("path", e.path());
        g.writeNumberField("size", e.size());
        g.writeStringField("sha256", e.sha256());
        g.writeStringField("versionId", e.versionId());
        g.writeStringField("mtime", ManifestTimes.format(e.mtime()));
        if (e.ctime() != null) {
          g.writeStringField("ctime", ManifestTimes.format(e.ctime()));
        }
        if (e.inode() != null) {
          g.writeNumberField("inode", e.inode());
        }
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
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException("Manifest of '" + m.name() + "' could not be serialised", e);
    }
    return out.toByteArray();
  }

  /**
   * @throws IOException if the JSON is malformed or does not have the manifest's shape
   * @throws RuntimeException (NullPointerException, IllegalArgumentException, DateTimeException)
   *     if a field's value is not acceptable
   */
  static Manifest read(byte[] json) throws IOException {
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
          default -> p.skipChildren();
        }
      }
      expect(p, p.currentToken(), JsonToken.END_OBJECT, "the manifest");
      if (p.nextToken() != null) {
        throw new JsonParseException(p, "trailing content after the manifest");
      }
      return new Manifest(formatVersion, name, createdAt, complete, files, notStored, stale, incompleteBecause);
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
          default -> p.skipChildren();
        }
      }
      entries.add(new ManifestEntry(path, size, sha256, versionId, mtime, ctime, inode));
    }
    return entries;
  }

  private static List<String> strings(JsonParser p, JsonToken start) throws IOException {
    expect(p, start, JsonToken.START_ARRAY, "notStored");
    List<String> strings = new ArrayList<>();
    JsonToken t;
    while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
      strings.add(string(p, t));
    }
    return strings;
  }

  private static String string(JsonParser p, JsonToken t) throws IOException {
    if (t == JsonToken.VALUE_NULL) {
      return null;
    }
    if (t != JsonToken.VALUE_STRING) {
      throw new JsonParseException(p, "expected a string but found " + t);
    }
    return p.getText();
  }

  private static Instant instant(JsonParser p, JsonToken t) throws IOException {
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
