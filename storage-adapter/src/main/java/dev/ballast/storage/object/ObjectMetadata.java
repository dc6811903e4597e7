package dev.ballast.storage.object;

import dev.ballast.storage.internal.ReservedMetadata;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * What a put records about an object besides its bytes, and what a read returns with them: the
 * HTTP headers S3 keeps with an object ({@code Content-Type}, {@code Cache-Control},
 * {@code Content-Encoding}, {@code Content-Disposition}) and user metadata (S3's
 * {@code x-amz-meta-*}). Every store keeps them as given; none of them changes the bytes (a
 * {@code Content-Encoding: gzip} object reads back as the gzip bytes written). Immutable.
 *
 * <p>Rules, the same on every store so that a put accepted by one is accepted by all: header values
 * and user metadata values are 1 to 1,024 printable US-ASCII characters (0x20 to 0x7E), not starting
 * or ending with a space (HTTP trims those, so S3 would return the value changed); user
 * metadata keys are 1 to 128 characters of lowercase {@code a-z}, {@code 0-9} and {@code -} (S3
 * lowercases keys, Ceph RGW turns {@code _} into {@code -}; {@code ballast-} keys are Ballast's own and refused), and keys and
 * values of the user metadata take at most 1,536 bytes in all (S3 allows 2 KiB of user metadata per
 * object, and Ballast's own keys take up to about 300 bytes of it).
 *
 * @param contentType the media type, such as {@code video/mp4}; null when none was given
 * @param cacheControl such as {@code max-age=3600}; null when none was given
 * @param contentEncoding such as {@code gzip}; null when none was given
 * @param contentDisposition such as {@code attachment; filename="report.pdf"}; null when none was given
 * @param user user metadata, keys in order; empty when none
 */
public record ObjectMetadata(
        @Nullable String contentType,
        @Nullable String cacheControl,
        @Nullable String contentEncoding,
        @Nullable String contentDisposition,
        Map<String, String> user) {

    /** No headers, no user metadata. */
    public static final ObjectMetadata NONE = new ObjectMetadata(null, null, null, null, Map.of());

    /** At most this many bytes of user metadata keys and values (UTF-8) in all. */
    public static final int MAX_USER_BYTES = 1536;

    /** The prefix of Ballast's own metadata keys, refused in user metadata. */
    public static final String RESERVED_PREFIX = "ballast-";

    /** A user map built by Ballast itself ({@link ReservedMetadata#with}), which may hold its reserved keys. */
    private static final class Trusted extends java.util.LinkedHashMap<String, String> {
        private static final long serialVersionUID = 1L;
    }

    static {
        ReservedMetadata.register((m, user) -> {
            Trusted t = new Trusted();
            t.putAll(user);
            return new ObjectMetadata(m.contentType, m.cacheControl, m.contentEncoding, m.contentDisposition, t);
        });
    }

    /**
     * @throws IllegalArgumentException if a value or key breaks the rules above (the message names it
     *     and says what is accepted)
     */
    public ObjectMetadata {
        checkHeader("contentType", contentType);
        checkHeader("cacheControl", cacheControl);
        checkHeader("contentEncoding", contentEncoding);
        checkHeader("contentDisposition", contentDisposition);
        Objects.requireNonNull(user, "user");
        boolean trusted = user instanceof Trusted;
        int bytes = 0;
        TreeMap<String, String> sorted = new TreeMap<>();
        for (Map.Entry<String, String> e : user.entrySet()) {
            String k = Objects.requireNonNull(e.getKey(), "user metadata key");
            String v = Objects.requireNonNull(e.getValue(), "user metadata value of '" + k + "'");
            if (k.isEmpty() || k.length() > 128 || !k.chars().allMatch(ObjectMetadata::keyChar)) {
                throw new IllegalArgumentException("User metadata key '" + k + "' is not accepted: use 1 to 128"
                        + " characters of lowercase a-z, 0-9 and '-' (Ceph RGW turns '_' into '-')");
            }
            boolean ballasts = trusted && ReservedMetadata.CARRIED.contains(k);
            if (k.startsWith(RESERVED_PREFIX) && !ballasts) {
                throw new IllegalArgumentException("User metadata key '" + k + "' starts with '" + RESERVED_PREFIX
                        + "', which Ballast keeps for its own metadata; choose another key");
            }
            checkHeader("user metadata '" + k + "'", v);
            if (!ballasts) { // Ballast's own entries are within its own share of S3's 2 KiB
                bytes += k.getBytes(StandardCharsets.UTF_8).length + v.length();
            }
            sorted.put(k, v);
        }
        if (bytes > MAX_USER_BYTES) {
            throw new IllegalArgumentException("User metadata of " + bytes + " bytes is too large: keys and values"
                    + " may take at most " + MAX_USER_BYTES + " bytes in all");
        }
        user = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(sorted));
    }

    /** A builder starting from no metadata. */
    public static Builder builder() {
        return new Builder(NONE);
    }

    /** A builder starting from these values. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** The content type, if one was given. */
    public Optional<String> contentTypeValue() {
        return Optional.ofNullable(contentType);
    }

    /** Whether nothing is set. */
    public boolean isEmpty() {
        return contentType == null
                && cacheControl == null
                && contentEncoding == null
                && contentDisposition == null
                && user.isEmpty();
    }

    private static boolean keyChar(int c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    }

    private static void checkHeader(String what, @Nullable String value) {
        if (value == null) {
            return;
        }
        if (value.isEmpty()
                || value.length() > 1024
                || !value.chars().allMatch(c -> c >= 0x20 && c <= 0x7e)
                || value.charAt(0) == ' '
                || value.charAt(value.length() - 1) == ' ') {
            // HTTP trims a header value's outer spaces and S3 drops an empty one (RFC 9110 section 5.5), so
            // such a value would come back from S3 unlike the local store: refused on every store alike.
            throw new IllegalArgumentException("The " + what + " value '" + abbreviate(value)
                    + "' is not accepted: use 1 to 1,024 printable US-ASCII characters (0x20 to 0x7E), not"
                    + " starting or ending with a space (leave it unset for none)");
        }
    }

    private static String abbreviate(String value) {
        String shown = value.length() > 40 ? value.substring(0, 40) + "..." : value;
        StringBuilder b = new StringBuilder();
        shown.chars()
                .forEach(c -> b.append(
                        c >= 0x20 && c <= 0x7e ? String.valueOf((char) c) : String.format(Locale.ROOT, "\\u%04x", c)));
        return b.toString();
    }

    /** Builds {@link ObjectMetadata}. Not thread-safe. */
    public static final class Builder {
        private @Nullable String contentType;
        private @Nullable String cacheControl;
        private @Nullable String contentEncoding;
        private @Nullable String contentDisposition;
        private final Map<String, String> user = new java.util.LinkedHashMap<>();

        private Builder(ObjectMetadata from) {
            contentType = from.contentType;
            cacheControl = from.cacheControl;
            contentEncoding = from.contentEncoding;
            contentDisposition = from.contentDisposition;
            user.putAll(from.user);
        }

        /** {@code Content-Type}, such as {@code application/json}; null for none. */
        public Builder contentType(@Nullable String value) {
            contentType = value;
            return this;
        }

        /** {@code Cache-Control}, such as {@code no-cache}; null for none. */
        public Builder cacheControl(@Nullable String value) {
            cacheControl = value;
            return this;
        }

        /** {@code Content-Encoding}, such as {@code gzip}; null for none. */
        public Builder contentEncoding(@Nullable String value) {
            contentEncoding = value;
            return this;
        }

        /** {@code Content-Disposition}, such as {@code inline}; null for none. */
        public Builder contentDisposition(@Nullable String value) {
            contentDisposition = value;
            return this;
        }

        /** Adds (or replaces) one user metadata entry. */
        public Builder user(String key, String value) {
            user.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
            return this;
        }

        /**
         * The metadata.
         *
         * @throws IllegalArgumentException if a value breaks the rules of {@link ObjectMetadata}
         */
        public ObjectMetadata build() {
            return new ObjectMetadata(contentType, cacheControl, contentEncoding, contentDisposition, user);
        }
    }
}
