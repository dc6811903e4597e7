package dev.ballast.storage.internal;

import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Validates object keys before any request is sent. Keys follow
 * <a href="https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-keys.html">S3's object key
 * rules</a> (1 to 1024 bytes of UTF-8) and are never normalised: {@code a//b}, {@code x y+z} and the
 * NFC and NFD forms of a name stay different keys. Rejected: unpaired surrogates (they have no UTF-8
 * form, so the key could not round-trip), ISO control characters (U+0000..U+001F, U+007F..U+009F:
 * XML 1.0 listings cannot carry most of them), the reserved {@value #RESERVED_PREFIX} prefix, and,
 * unless allowed, {@code ..} path segments and a leading {@code /} (they turn into path traversal
 * when keys are mapped to files).
 *
 * <p>Stateless and thread-safe.
 */
public final class ObjectKeys {

    /** Maximum key length in UTF-8 bytes. */
    public static final int MAX_KEY_BYTES = 1024;

    /** Prefix reserved for Ballast's own objects (the capability probe). */
    public static final String RESERVED_PREFIX = ".ballast/";

    private ObjectKeys() {}

    /**
     * @param key the key to check
     * @param allowDotSegmentsAndLeadingSlash accept {@code ..} segments and a leading {@code /}
     * @return the key, unchanged
     * @throws NullPointerException if {@code key} is null
     * @throws IllegalArgumentException naming the key and the rule it breaks
     */
    public static String validate(String key, boolean allowDotSegmentsAndLeadingSlash) {
        Objects.requireNonNull(key, "key");
        if (key.isEmpty()) {
            throw new IllegalArgumentException("key must be 1 to " + MAX_KEY_BYTES + " UTF-8 bytes but was empty");
        }
        int bytes = utf8Length(key);
        if (bytes > MAX_KEY_BYTES) {
            throw new IllegalArgumentException("key must be at most " + MAX_KEY_BYTES + " UTF-8 bytes but was " + bytes
                    + " bytes: '" + abbreviate(key) + "'");
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (Character.isISOControl(c)) {
                throw new IllegalArgumentException(String.format(
                        "key must not contain control characters but '%s' has U+%04X at index %d",
                        printable(key), (int) c, i));
            }
        }
        if (key.startsWith(RESERVED_PREFIX)) {
            throw new IllegalArgumentException(
                    "key must not start with the reserved prefix '" + RESERVED_PREFIX + "' but was '" + key + "'");
        }
        if (!allowDotSegmentsAndLeadingSlash) {
            if (key.startsWith("/")) {
                throw new IllegalArgumentException("key must not start with '/' (allowed only with"
                        + " allowDotSegmentsAndLeadingSlash) but was '" + key + "'");
            }
            for (String segment : key.contains("..") ? key.split("/", -1) : new String[0]) {
                if (segment.equals("..")) {
                    throw new IllegalArgumentException("key must not contain a '..' segment (allowed only with"
                            + " allowDotSegmentsAndLeadingSlash) but was '" + key + "'");
                }
            }
        }
        return key;
    }

    private static int utf8Length(String key) {
        int bytes = 0;
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c)
                    && i + 1 < key.length()
                    && Character.isLowSurrogate(key.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                return strictUtf8Length(key); // unpaired: the encoder names the problem
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }

    private static int strictUtf8Length(String key) {
        try {
            return StandardCharsets.UTF_8
                    .newEncoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .encode(CharBuffer.wrap(key))
                    .remaining();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException(
                    "key must be valid Unicode (no unpaired surrogates) so it round-trips" + " through UTF-8 but was '"
                            + printable(key) + "'",
                    e);
        }
    }

    private static String abbreviate(String key) {
        return key.length() <= 64 ? key : key.substring(0, 61) + "...";
    }

    private static String printable(String key) {
        StringBuilder sb = new StringBuilder();
        for (char c : abbreviate(key).toCharArray()) {
            if (Character.isISOControl(c) || Character.isSurrogate(c)) {
                sb.append(String.format("\\u%04X", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
