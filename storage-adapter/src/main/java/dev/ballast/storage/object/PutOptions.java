package dev.ballast.storage.object;

import dev.ballast.storage.UnsupportedCapabilityException;
import java.util.Objects;

/**
 * How to write an object besides its bytes: its {@link ObjectMetadata} and the
 * {@link ServerSideEncryption} to ask for. Immutable and thread-safe.
 *
 * <pre>{@code
 * PutOptions options = PutOptions.defaults()
 *     .withMetadata(ObjectMetadata.builder().contentType("video/mp4").cacheControl("max-age=86400").build())
 *     .withEncryption(ServerSideEncryption.kms("alias/media"));
 * }</pre>
 *
 * @param metadata recorded with the version and returned by reads, {@code head} and version listings
 * @param encryption the server-side encryption asked for; {@link ServerSideEncryption#NONE} by default
 */
public record PutOptions(ObjectMetadata metadata, ServerSideEncryption encryption) {

    private static final PutOptions DEFAULTS = new PutOptions(ObjectMetadata.NONE, ServerSideEncryption.NONE);

    public PutOptions {
        Objects.requireNonNull(metadata, "metadata");
        Objects.requireNonNull(encryption, "encryption");
    }

    /** No metadata, no server-side encryption asked for: what {@code put(key, content)} writes. */
    public static PutOptions defaults() {
        return DEFAULTS;
    }

    /** These options with {@code metadata}. */
    public PutOptions withMetadata(ObjectMetadata metadata) {
        return new PutOptions(metadata, encryption);
    }

    /** These options with {@code encryption} asked for. */
    public PutOptions withEncryption(ServerSideEncryption encryption) {
        return new PutOptions(metadata, encryption);
    }

    /** Whether these are the defaults (nothing beyond a plain put). */
    public boolean isDefault() {
        return metadata.isEmpty() && encryption.kind() == ServerSideEncryption.Kind.NONE;
    }

    /**
     * Refuses these options, before anything is written, when {@code capabilities} lack a feature
     * they need: {@link StoreCapabilities.Feature#METADATA} for metadata, {@code SSE_S3},
     * {@code SSE_KMS} or {@code SSE_C} for encryption.
     *
     * @param store names the store in the message, such as {@code "the local object store '/data'"}
     * @throws UnsupportedCapabilityException naming the feature, in one sentence
     */
    public void requireSupportedBy(StoreCapabilities capabilities, String store) {
        if (!metadata.isEmpty() && !capabilities.has(StoreCapabilities.Feature.METADATA)) {
            throw new UnsupportedCapabilityException("Object metadata is not kept by " + store
                    + " (capability METADATA absent); put without metadata or use a store that keeps it");
        }
        StoreCapabilities.Feature needed = switch (encryption.kind()) {
            case NONE -> null;
            case S3 -> StoreCapabilities.Feature.SSE_S3;
            case KMS -> StoreCapabilities.Feature.SSE_KMS;
            case CUSTOMER_KEY -> StoreCapabilities.Feature.SSE_C;
        };
        if (needed != null && !capabilities.has(needed)) {
            throw new UnsupportedCapabilityException("Server-side encryption " + encryption + " is not offered by "
                    + store + " (capability " + needed + " absent); nothing was written");
        }
    }
}
