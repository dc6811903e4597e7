package dev.ballast.storage.internal;

import dev.ballast.storage.object.ObjectMetadata;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * Ballast's own entries in an object's user metadata, under {@link ObjectMetadata#RESERVED_PREFIX}: the
 * keys a caller may not set, which Ballast's decorators set and the stores carry like user metadata.
 * {@link ObjectMetadata} refuses every reserved key except through {@link #with}. Not exported (but to
 * the test kit).
 */
public final class ReservedMetadata {

    /**
     * Set by {@code EncryptedObjectStore} on every object it writes: {@code BCE1/<scheme>/<key ID>}, the
     * envelope format and the wrapping key (its ID percent-encoded, cut to 200 characters).
     */
    public static final String CLIENT_SIDE_ENCRYPTION = "ballast-cse";

    /** The reserved keys the stores carry with an object. */
    public static final Set<String> CARRIED = Set.of(CLIENT_SIDE_ENCRYPTION);

    private static volatile BiFunction<ObjectMetadata, Map<String, String>, ObjectMetadata> maker;

    private ReservedMetadata() {}

    /** Called once, by {@link ObjectMetadata}'s class initialiser. */
    public static void register(BiFunction<ObjectMetadata, Map<String, String>, ObjectMetadata> f) {
        if (maker != null) {
            throw new IllegalStateException("already registered");
        }
        maker = Objects.requireNonNull(f, "f");
    }

    /** {@code m} with the reserved entry {@code key} (one of {@link #CARRIED}) set to {@code value}. */
    public static ObjectMetadata with(ObjectMetadata m, String key, String value) {
        if (!CARRIED.contains(key)) {
            throw new IllegalArgumentException("not a reserved metadata key: " + key);
        }
        Map<String, String> user = new LinkedHashMap<>(m.user());
        user.put(key, value);
        return maker.apply(m, user);
    }

    /** {@code m} with the entries of {@code reserved} whose keys are in {@link #CARRIED}; others ignored. */
    public static ObjectMetadata withAll(ObjectMetadata m, Map<String, String> reserved) {
        ObjectMetadata out = m;
        for (Map.Entry<String, String> e : reserved.entrySet()) {
            if (CARRIED.contains(e.getKey())) {
                out = with(out, e.getKey(), e.getValue());
            }
        }
        return out;
    }

    /** {@code m} without any reserved entry: what a caller is shown. */
    public static ObjectMetadata without(ObjectMetadata m) {
        if (m.user().keySet().stream().noneMatch(k -> k.startsWith(ObjectMetadata.RESERVED_PREFIX))) {
            return m;
        }
        Map<String, String> user = new LinkedHashMap<>(m.user());
        user.keySet().removeIf(k -> k.startsWith(ObjectMetadata.RESERVED_PREFIX));
        return new ObjectMetadata(m.contentType(), m.cacheControl(), m.contentEncoding(), m.contentDisposition(), user);
    }
}
