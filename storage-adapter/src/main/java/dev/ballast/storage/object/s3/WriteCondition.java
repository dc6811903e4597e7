package dev.ballast.storage.object.s3;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The precondition of one put: none, {@code If-None-Match: *} (create only) or {@code If-Match} with
 * an ETag (replace only that version), as in RFC 9110 sections 13.1.1 and 13.1.2 and
 * <a href="https://docs.aws.amazon.com/AmazonS3/latest/userguide/conditional-writes.html">S3
 * conditional writes</a>. Immutable.
 *
 * @param ifAbsent send {@code If-None-Match: *}
 * @param ifMatch the ETag to send as {@code If-Match}, or null
 */
record WriteCondition(boolean ifAbsent, @Nullable String ifMatch) {
    static final WriteCondition NONE = new WriteCondition(false, null);
    static final WriteCondition IF_ABSENT = new WriteCondition(true, null);

    static WriteCondition ifMatch(String eTag) {
        return new WriteCondition(false, Objects.requireNonNull(eTag, "eTag"));
    }

    /** Whether this put is conditional at all. */
    boolean any() {
        return ifAbsent || ifMatch != null;
    }

    /** The header as sent, for messages: {@code If-None-Match: *} or {@code If-Match}. */
    String header() {
        return ifAbsent ? "If-None-Match: *" : "If-Match";
    }

    /**
     * Whether {@code currentETag}, the ETag of the key's current version (null when it has none),
     * satisfies this condition. ETags are compared strongly, ignoring only the quoting some servers
     * drop (RFC 9110 section 8.8.3.2).
     */
    boolean holdsFor(@Nullable String currentETag) {
        if (ifAbsent) {
            return currentETag == null;
        }
        return ifMatch == null || (currentETag != null && unquoted(ifMatch).equals(unquoted(currentETag)));
    }

    private static String unquoted(String eTag) {
        String t = eTag.trim();
        return t.length() >= 2 && t.startsWith("\"") && t.endsWith("\"") ? t.substring(1, t.length() - 1) : t;
    }
}
