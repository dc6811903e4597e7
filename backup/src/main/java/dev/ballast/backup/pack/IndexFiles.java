package dev.ballast.backup.pack;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.github.luben.zstd.Zstd;
import dev.ballast.backup.keys.MasterKey;
import dev.ballast.storage.IntegrityException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Index files: {@code index/<SHA-256 of the stored bytes, 64 hex>} holding
 * {@code seal(zstd(json), "index")}, the JSON
 * {@code {"packs":[{"id":"<64 hex>","blobs":[{"id":"<64 hex>","type":"data","offset":N,"length":N,
 * "plainLength":N,"compressed":true}]}]}}, a pack's {@code id} being the last segment of its key.
 */
final class IndexFiles {
    static final byte[] AAD = "index".getBytes(StandardCharsets.US_ASCII);
    /** The largest plain index file read: 1 GiB. */
    private static final long MAX_PLAIN = 1L << 30;

    private static final JsonFactory JSON = new JsonFactory();

    private IndexFiles() {}

    /** An index file ready to write. */
    record Encoded(String key, byte[] bytes) {}

    /** The index file naming {@code packs} (pack key to its blobs, in pack order). */
    static Encoded encode(MasterKey key, Map<String, List<BlobLocation>> packs) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeArrayFieldStart("packs");
            for (Map.Entry<String, List<BlobLocation>> pack : packs.entrySet()) {
                g.writeStartObject();
                g.writeStringField("id", pack.getKey().substring(pack.getKey().lastIndexOf('/') + 1));
                g.writeArrayFieldStart("blobs");
                for (BlobLocation b : pack.getValue()) {
                    g.writeStartObject();
                    g.writeStringField("id", b.id().hex());
                    g.writeStringField("type", b.type().label());
                    g.writeNumberField("offset", b.offset());
                    g.writeNumberField("length", b.length());
                    g.writeNumberField("plainLength", b.plainLength());
                    g.writeBooleanField("compressed", b.compressed());
                    g.writeEndObject();
                }
                g.writeEndArray();
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        byte[] plain = out.toByteArray();
        byte[] compressed = Zstd.compress(plain, 3);
        byte[] sealed = key.seal(compressed, AAD);
        String hex = HexFormat.of().formatHex(Packs.sha256().digest(sealed));
        return new Encoded(BlobRepository.INDEX_PREFIX + hex, sealed);
    }

    /**
     * The blob locations of a stored index file.
     *
     * @throws IntegrityException naming {@code indexKey}, if it does not open, decompress or parse
     */
    static Map<String, List<BlobLocation>> decode(MasterKey key, String indexKey, byte[] stored) {
        byte[] compressed;
        try {
            compressed = key.open(stored, AAD);
        } catch (MasterKey.TamperedException e) {
            throw damaged(indexKey, "does not open: " + e.getMessage());
        }
        long size = Zstd.getFrameContentSize(compressed, 0, compressed.length);
        if (size < 0 || size > MAX_PLAIN) {
            throw damaged(indexKey, "holds no zstd frame of a known size up to 1 GiB");
        }
        byte[] plain = new byte[(int) size];
        long n = Zstd.decompressByteArray(plain, 0, plain.length, compressed, 0, compressed.length);
        if (Zstd.isError(n) || n != size) {
            throw damaged(
                    indexKey,
                    "does not decompress"
                            + (Zstd.isError(n) ? ": " + Zstd.getErrorName(n) : " to its " + size + " bytes"));
        }
        try {
            return parse(plain);
        } catch (IOException | RuntimeException e) {
            throw damaged(indexKey, "is not an index: " + e.getMessage());
        }
    }

    private static Map<String, List<BlobLocation>> parse(byte[] json) throws IOException {
        Map<String, List<BlobLocation>> out = new LinkedHashMap<>();
        try (JsonParser p = JSON.createParser(json)) {
            expect(p.nextToken(), JsonToken.START_OBJECT);
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                if (!field.equals("packs")) {
                    p.nextToken();
                    p.skipChildren();
                    continue;
                }
                expect(p.nextToken(), JsonToken.START_ARRAY);
                while (p.nextToken() == JsonToken.START_OBJECT) {
                    String packId = null;
                    List<Object[]> blobs = new ArrayList<>();
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String f = p.currentName();
                        p.nextToken();
                        if (f.equals("id")) {
                            packId = p.getText();
                        } else if (f.equals("blobs")) {
                            expect(p.currentToken(), JsonToken.START_ARRAY);
                            while (p.nextToken() == JsonToken.START_OBJECT) {
                                blobs.add(blob(p));
                            }
                        } else {
                            p.skipChildren();
                        }
                    }
                    if (packId == null || packId.length() != 64 || !Packs.isHex(packId, 0)) {
                        throw new IOException("a pack has no 64-hex id");
                    }
                    String packKey = Packs.key(packId);
                    List<BlobLocation> list = out.computeIfAbsent(packKey, k -> new ArrayList<>());
                    for (Object[] b : blobs) {
                        list.add(new BlobLocation(
                                (BlobId) b[0],
                                (BlobType) b[1],
                                packKey,
                                (Long) b[2],
                                (Integer) b[3],
                                (Integer) b[4],
                                (Boolean) b[5]));
                    }
                }
            }
        }
        return out;
    }

    private static Object[] blob(JsonParser p) throws IOException {
        Object[] b = new Object[6];
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String f = p.currentName();
            p.nextToken();
            switch (f) {
                case "id" -> b[0] = BlobId.parse(p.getText());
                case "type" -> b[1] = BlobType.ofLabel(p.getText());
                case "offset" -> b[2] = p.getLongValue();
                case "length" -> b[3] = p.getIntValue();
                case "plainLength" -> b[4] = p.getIntValue();
                case "compressed" -> b[5] = p.getBooleanValue();
                default -> p.skipChildren();
            }
        }
        for (Object o : b) {
            if (o == null) {
                throw new IOException("a blob lacks one of id, type, offset, length, plainLength, compressed");
            }
        }
        return b;
    }

    private static void expect(JsonToken got, JsonToken want) throws IOException {
        if (got != want) {
            throw new IOException("expected " + want + " but found " + got);
        }
    }

    private static IntegrityException damaged(String indexKey, String clause) {
        return new IntegrityException(indexKey, "Index file " + indexKey + " " + clause + ".");
    }
}
