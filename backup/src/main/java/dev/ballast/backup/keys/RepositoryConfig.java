package dev.ballast.backup.keys;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Objects;

/**
 * A repository's {@code config} object, the mark of a format-3 store: the JSON
 * {@code {"version":3,"id":"<64 hex>","chunker":"fastcdc","compression":"auto","packSize":16777216}},
 * stored sealed by the master key ({@link MasterKey#seal}, associated data {@value #AAD}), so it also
 * proves that a master key opened from a key file is the repository's. Written once by
 * {@link KeyFiles#init}; read by {@link KeyFiles#open}. Unknown fields are skipped when read.
 *
 * @param version the repository format, {@value #VERSION}
 * @param id a random 32-byte ID in 64 lowercase hex digits, naming the repository (a cache may be kept
 *     per ID)
 * @param chunker the content-defined chunker ({@code "fastcdc"})
 * @param compression the blob compression mode ({@code "auto"}: zstd where it makes the blob smaller)
 * @param packSize the target size of a pack file in bytes (16 MiB)
 */
public record RepositoryConfig(int version, String id, String chunker, String compression, long packSize) {
    /** The format this version of Ballast writes and reads. */
    public static final int VERSION = 3;

    /** The associated data {@code config} is sealed with. */
    public static final String AAD = "config";

    /** The default target pack size: 16 MiB, restic's default too. */
    public static final long DEFAULT_PACK_SIZE = 16L * 1024 * 1024;

    private static final JsonFactory JSON = new JsonFactory();

    /** Validates the fields. */
    public RepositoryConfig {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(chunker, "chunker");
        Objects.requireNonNull(compression, "compression");
        if (packSize <= 0) {
            throw new IllegalArgumentException("packSize " + packSize + " is not positive");
        }
    }

    /** A new repository's config: format 3, a random ID, FastCDC, {@code auto} compression, 16 MiB packs. */
    public static RepositoryConfig newRepository() {
        byte[] id = new byte[32];
        new SecureRandom().nextBytes(id);
        return new RepositoryConfig(VERSION, HexFormat.of().formatHex(id), "fastcdc", "auto", DEFAULT_PACK_SIZE);
    }

    /** The plain JSON bytes (sealed before they are stored). */
    public byte[] toJson() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeNumberField("version", version);
            g.writeStringField("id", id);
            g.writeStringField("chunker", chunker);
            g.writeStringField("compression", compression);
            g.writeNumberField("packSize", packSize);
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /**
     * The config of {@code json}: {@code version} and {@code id} are required, the others default to
     * FastCDC, {@code auto} and 16 MiB.
     *
     * @throws IllegalArgumentException with a clause saying what is wrong
     */
    public static RepositoryConfig parse(byte[] json) {
        Integer version = null;
        String id = null;
        String chunker = "fastcdc";
        String compression = "auto";
        long packSize = DEFAULT_PACK_SIZE;
        try (JsonParser p = JSON.createParser(json)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IllegalArgumentException("it is not a JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                switch (field) {
                    case "version" -> version = value == JsonToken.VALUE_NUMBER_INT ? p.getIntValue() : -1;
                    case "id" -> id = value == JsonToken.VALUE_STRING ? p.getText() : null;
                    case "chunker" -> chunker = p.getValueAsString(chunker);
                    case "compression" -> compression = p.getValueAsString(compression);
                    case "packSize" -> packSize = p.getValueAsLong(DEFAULT_PACK_SIZE);
                    default -> p.skipChildren();
                }
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("it is not valid JSON ("
                    + (e instanceof com.fasterxml.jackson.core.JsonProcessingException j
                            ? j.getOriginalMessage()
                            : e.getMessage())
                    + ")");
        }
        if (version == null || id == null) {
            throw new IllegalArgumentException("it lacks a numeric \"version\" or a string \"id\"");
        }
        return new RepositoryConfig(version, id, chunker, compression, packSize);
    }
}
