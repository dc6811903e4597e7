package dev.ballast.backup.snapshot;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * How a manifest of a repository of format 3 is stored in parts (docs/backup-format.md, "Manifest
 * parts"): the entries of its large arrays ({@code files}, {@code directories}, {@code symlinks},
 * {@code hardLinks}) are cut into runs of whole entries at content-defined places, each run stored once
 * as an object named by its ID, and the snapshot holds the rest of the JSON with each such array
 * replaced by the list of its parts' IDs ({@code "filesParts":["<64 hex>",...]}). An unchanged backup
 * then finds every part already stored and adds only the small head; a change to one file's entry
 * makes one part new.
 *
 * <p>Works on the JSON's bytes, not on a parsed manifest: {@link #join} gives back exactly the bytes
 * {@link #split} was given, so every reader of manifests parses what it parsed before.
 *
 * <p>Where a part ends: after an entry once the part holds at least {@link #MIN_PART_BYTES} bytes and
 * the 64-bit FNV-1a hash of the entry's bytes has its low {@link #CUT_BITS} bits zero, or once it holds
 * {@link #MAX_PART_BYTES} bytes, or at the array's end. Stateless and thread-safe.
 */
public final class ManifestParts {
    private ManifestParts() {}

    /** The top-level arrays of the manifest JSON stored in parts. */
    static final List<String> PARTED = List.of("files", "directories", "symlinks", "hardLinks");

    /** The suffix of the head's field that lists an array's parts: {@code files} becomes {@code filesParts}. */
    static final String PARTS_SUFFIX = "Parts";

    /** A part is not cut before it holds this many bytes of entries (64 KiB). */
    static final int MIN_PART_BYTES = 64 * 1024;

    /** A part is cut once it holds this many bytes of entries (1 MiB), whatever the hashes say. */
    static final int MAX_PART_BYTES = 1024 * 1024;

    /** Low bits of an entry's hash that must be zero for a cut after it (one entry in 256 on average). */
    static final int CUT_BITS = 8;

    /**
     * One part: the bytes of whole entries of one array, as they stand in the manifest JSON (separated by
     * commas), and their ID.
     */
    public record Part(String id, byte[] plain) {}

    /**
     * A manifest cut into its head and its parts.
     *
     * @param head the JSON with each parted array replaced by {@code "<name>Parts":[<ids>]}
     * @param parts every part, in the order the head names them (an ID may repeat)
     */
    public record Split(byte[] head, List<Part> parts) {}

    /**
     * Cuts {@code json} (a manifest as {@link ManifestJson#write} writes it) into a head and parts.
     *
     * @param id the ID of a part's bytes (64 lowercase hex digits)
     * @return null when {@code json} is not one JSON object or has none of the {@link #PARTED} arrays
     *     with entries (it is then stored whole, as before parts existed)
     */
    public static @Nullable Split split(byte[] json, Function<byte[], String> id) {
        Scanner s = new Scanner(json);
        ByteArrayOutputStream head = new ByteArrayOutputStream(4096);
        List<Part> parts = new ArrayList<>();
        try {
            int i = s.ws(0);
            s.expect(i, '{');
            head.write('{');
            i = s.ws(i + 1);
            boolean first = true;
            while (json[i] != '}') {
                if (!first) {
                    s.expect(i, ',');
                    i = s.ws(i + 1);
                }
                int keyStart = i;
                int keyEnd = s.string(i);
                String key = s.text(keyStart + 1, keyEnd - 1);
                i = s.ws(keyEnd);
                s.expect(i, ':');
                int valueStart = s.ws(i + 1);
                int valueEnd = s.value(valueStart);
                if (!first) {
                    head.write(',');
                }
                first = false;
                if (PARTED.contains(key) && json[valueStart] == '[') {
                    List<Part> these = cut(s, valueStart, id);
                    head.writeBytes(("\"" + key + PARTS_SUFFIX + "\":[").getBytes(StandardCharsets.US_ASCII));
                    for (int p = 0; p < these.size(); p++) {
                        head.writeBytes(((p > 0 ? ",\"" : "\"") + these.get(p).id() + "\"")
                                .getBytes(StandardCharsets.US_ASCII));
                    }
                    head.write(']');
                    parts.addAll(these);
                } else {
                    head.write(json, keyStart, valueEnd - keyStart);
                }
                i = s.ws(valueEnd);
            }
            if (s.ws(i + 1) != json.length) {
                return null;
            }
            head.write('}');
        } catch (IllegalArgumentException | ArrayIndexOutOfBoundsException e) {
            return null;
        }
        return parts.isEmpty() ? null : new Split(head.toByteArray(), parts);
    }

    /** The parts of the array whose {@code [} is at {@code start}. */
    private static List<Part> cut(Scanner s, int start, Function<byte[], String> id) {
        byte[] json = s.json;
        List<Part> parts = new ArrayList<>();
        int i = s.ws(start + 1);
        int partStart = -1;
        int partEnd = -1;
        while (json[i] != ']') {
            int entryStart = i;
            int entryEnd = s.value(i);
            if (partStart < 0) {
                partStart = entryStart;
            }
            partEnd = entryEnd;
            int length = partEnd - partStart;
            if (length >= MAX_PART_BYTES || (length >= MIN_PART_BYTES && cutAfter(json, entryStart, entryEnd))) {
                parts.add(part(json, partStart, partEnd, id));
                partStart = -1;
            }
            i = s.ws(entryEnd);
            if (json[i] == ',') {
                i = s.ws(i + 1);
            } else {
                s.expect(i, ']');
            }
        }
        if (partStart >= 0) {
            parts.add(part(json, partStart, partEnd, id));
        }
        return parts;
    }

    private static Part part(byte[] json, int from, int to, Function<byte[], String> id) {
        byte[] plain = java.util.Arrays.copyOfRange(json, from, to);
        return new Part(id.apply(plain), plain);
    }

    /** Whether the 64-bit FNV-1a hash of {@code json[from, to)} has its low {@link #CUT_BITS} bits zero. */
    static boolean cutAfter(byte[] json, int from, int to) {
        long h = 0xcbf29ce484222325L;
        for (int i = from; i < to; i++) {
            h ^= json[i] & 0xff;
            h *= 0x100000001b3L;
        }
        return (h & ((1L << CUT_BITS) - 1)) == 0;
    }

    /**
     * The IDs of the parts {@code head} names, in order; empty for a manifest stored whole.
     *
     * @throws IllegalArgumentException if {@code head} is not a JSON object, or a parts list is not an
     *     array of IDs
     */
    public static List<String> partIds(byte[] head) {
        List<String> ids = new ArrayList<>();
        walkHead(head, (key, ids1) -> ids.addAll(ids1), null);
        return ids;
    }

    /**
     * The manifest JSON of a stored head: each {@code "<name>Parts":[<ids>]} replaced by
     * {@code "<name>":[<the parts' bytes, comma-separated>]}; a head naming no parts as it is.
     *
     * @param part the plain bytes of the part with the given ID, checked against it by the caller
     * @throws IllegalArgumentException if {@code head} is not a JSON object, or a parts list is not an
     *     array of IDs
     */
    public static byte[] join(byte[] head, Function<String, byte[]> part) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(head.length * 4);
        boolean[] parted = {false};
        walkHead(head, (key, ids) -> parted[0] = true, null);
        if (!parted[0]) {
            return head;
        }
        walkHead(head, null, new Rewriter(out, part));
        return out.toByteArray();
    }

    private interface PartsSeen {
        void accept(String array, List<String> ids);
    }

    /** Writes the joined JSON while {@link #walkHead} goes through the head. */
    private record Rewriter(ByteArrayOutputStream out, Function<String, byte[]> part) {}

    private static void walkHead(byte[] head, @Nullable PartsSeen seen, @Nullable Rewriter w) {
        Scanner s = new Scanner(head);
        try {
            int i = s.ws(0);
            s.expect(i, '{');
            if (w != null) {
                w.out().write('{');
            }
            i = s.ws(i + 1);
            boolean first = true;
            while (head[i] != '}') {
                if (!first) {
                    s.expect(i, ',');
                    i = s.ws(i + 1);
                }
                int keyStart = i;
                int keyEnd = s.string(i);
                String key = s.text(keyStart + 1, keyEnd - 1);
                i = s.ws(keyEnd);
                s.expect(i, ':');
                int valueStart = s.ws(i + 1);
                int valueEnd = s.value(valueStart);
                if (w != null && !first) {
                    w.out().write(',');
                }
                first = false;
                String array =
                        key.endsWith(PARTS_SUFFIX) ? key.substring(0, key.length() - PARTS_SUFFIX.length()) : null;
                if (array != null && PARTED.contains(array)) {
                    List<String> ids = ids(s, valueStart, key);
                    if (seen != null) {
                        seen.accept(array, ids);
                    }
                    if (w != null) {
                        w.out().writeBytes(("\"" + array + "\":[").getBytes(StandardCharsets.US_ASCII));
                        for (int p = 0; p < ids.size(); p++) {
                            if (p > 0) {
                                w.out().write(',');
                            }
                            w.out().writeBytes(w.part().apply(ids.get(p)));
                        }
                        w.out().write(']');
                    }
                } else if (w != null) {
                    w.out().write(head, keyStart, valueEnd - keyStart);
                }
                i = s.ws(valueEnd);
            }
            if (s.ws(i + 1) != head.length) {
                throw new IllegalArgumentException("trailing bytes after the manifest's JSON object");
            }
            if (w != null) {
                w.out().write('}');
            }
        } catch (ArrayIndexOutOfBoundsException e) {
            throw new IllegalArgumentException("the manifest's JSON ends early", e);
        }
    }

    /** The IDs of a parts list: an array of strings of 64 lowercase hex digits. */
    private static List<String> ids(Scanner s, int start, String key) {
        byte[] json = s.json;
        s.expect(start, '[');
        List<String> ids = new ArrayList<>();
        int i = s.ws(start + 1);
        while (json[i] != ']') {
            int end = s.string(i);
            String id = s.text(i + 1, end - 1);
            if (!isId(id)) {
                throw new IllegalArgumentException("'" + key + "' lists '" + id + "', not 64 lowercase hex digits");
            }
            ids.add(id);
            i = s.ws(end);
            if (json[i] == ',') {
                i = s.ws(i + 1);
            } else {
                s.expect(i, ']');
            }
        }
        return ids;
    }

    static boolean isId(String id) {
        if (id.length() != 64) {
            return false;
        }
        for (int i = 0; i < 64; i++) {
            char c = id.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Finds where JSON values end, byte by byte, without building them. Throws
     * {@link IllegalArgumentException} (or {@link ArrayIndexOutOfBoundsException} at the end of the
     * bytes) on what is not JSON's shape.
     */
    private record Scanner(byte[] json) {
        int ws(int i) {
            while (i < json.length && (json[i] == ' ' || json[i] == '\n' || json[i] == '\r' || json[i] == '\t')) {
                i++;
            }
            return i;
        }

        void expect(int i, char c) {
            if (i >= json.length || json[i] != c) {
                throw new IllegalArgumentException("expected '" + c + "' at byte " + i);
            }
        }

        /** The index after the string whose opening quote is at {@code i}. */
        int string(int i) {
            expect(i, '"');
            i++;
            while (json[i] != '"') {
                i += json[i] == '\\' ? 2 : 1;
            }
            return i + 1;
        }

        /** The index after the value starting at {@code i}. */
        int value(int i) {
            byte b = json[i];
            if (b == '"') {
                return string(i);
            }
            if (b == '{' || b == '[') {
                int depth = 0;
                do {
                    b = json[i];
                    if (b == '"') {
                        i = string(i);
                        continue;
                    }
                    if (b == '{' || b == '[') {
                        depth++;
                    } else if (b == '}' || b == ']') {
                        depth--;
                    }
                    i++;
                } while (depth > 0);
                return i;
            }
            int start = i;
            while (i < json.length
                    && json[i] != ','
                    && json[i] != '}'
                    && json[i] != ']'
                    && json[i] != ' '
                    && json[i] != '\n'
                    && json[i] != '\r'
                    && json[i] != '\t') {
                i++;
            }
            if (i == start) {
                throw new IllegalArgumentException("expected a value at byte " + i);
            }
            return i;
        }

        String text(int from, int to) {
            return new String(json, from, to - from, StandardCharsets.UTF_8);
        }
    }
}
