package dev.ballast.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.RequestRefusedException;
import dev.ballast.storage.StorageException;
import dev.ballast.storage.UnsupportedCapabilityException;
import dev.ballast.storage.object.ByteRange;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectMetadata;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.PutOptions;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.ServerSideEncryption;
import dev.ballast.storage.object.StoreCapabilities.Feature;
import dev.ballast.storage.object.VersionEntry;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The cases of {@link ObjectStoreContract} for the features a store may or may not offer
 * ({@link Feature}): ranged reads verified by block, metadata, and server-side encryption. Each
 * case runs where {@link ObjectStore#capabilities()} lists the feature it needs and is skipped,
 * naming it, where it does not; a store lacking a feature must refuse to be asked for it
 * ({@link UnsupportedCapabilityException}, nothing written), which the refusal cases check. Extend
 * {@link ObjectStoreContract}, not this class.
 */
public abstract class ObjectStoreFeatureCases {

    private static final int BLOCK = 1 << 20;

    /** The store under test, opened before each test. */
    protected ObjectStore store;

    ObjectStoreFeatureCases() {}

    /** A short name for skip reasons. */
    protected abstract String storeName();

    /**
     * Flips one bit of the byte at {@code offset} of {@code key}'s current version where the store
     * keeps it, leaving every digest recorded for it alone, as bit rot would. Skips the calling case
     * unless overridden.
     */
    protected void damageStoredByte(String key, long offset) {
        Assumptions.abort(storeName() + " cannot damage one stored byte of an object");
    }

    /**
     * Stages an object written by another program, without any of this store's metadata or digests.
     * Skips the calling case unless overridden (the contract's own hook of the same name).
     */
    protected abstract void plantForeignObject(String key, byte[] bytes);

    /** The KMS key the endpoint encrypts SSE-KMS puts with. Skips the SSE-KMS case unless overridden. */
    protected String kmsKeyId() {
        Assumptions.abort(storeName() + " names no KMS key for the SSE-KMS case");
        throw new AssertionError("unreachable");
    }

    private void requireFeature(Feature feature) {
        assumeThat(store.capabilities().has(feature))
                .as(storeName() + " lacks capability " + feature)
                .isTrue();
    }

    private static byte[] bytes(long seed, int size) {
        byte[] b = new byte[size];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    private static byte[] slice(byte[] all, long offset, long length) {
        return Arrays.copyOfRange(all, (int) offset, (int) (offset + length));
    }

    // ------------------------------------------------------------------------------------ ranges

    @Test
    void rangedReadsReturnExactlyTheirBytesAcrossBlocks() {
        requireFeature(Feature.RANGED_READS);
        byte[] all = bytes(7, 3 * BLOCK + 1234);
        ObjectVersion v = store.put("ranges/three-blocks.bin", ObjectContent.ofBytes(all));
        boolean digests = store.capabilities().has(Feature.BLOCK_DIGESTS);

        ByteRange[] asked = {
            ByteRange.of(0, 10),
            ByteRange.of(BLOCK - 5, 10), // across a block boundary
            ByteRange.of(BLOCK, BLOCK), // exactly one block
            ByteRange.from(3L * BLOCK), // the short last block
            ByteRange.last(50),
            ByteRange.of(all.length - 3, 100), // cut at the end, as HTTP does
            ByteRange.of(BLOCK + 6, Long.MAX_VALUE) // a last byte past Long.MAX_VALUE: to the end too
        };
        ByteRange[] served = {
            ByteRange.of(0, 10),
            ByteRange.of(BLOCK - 5, 10),
            ByteRange.of(BLOCK, BLOCK),
            ByteRange.of(3L * BLOCK, 1234),
            ByteRange.of(all.length - 50, 50),
            ByteRange.of(all.length - 3, 3),
            ByteRange.of(BLOCK + 6, all.length - BLOCK - 6)
        };
        for (int i = 0; i < asked.length; i++) {
            try (ObjectRead read =
                    store.get("ranges/three-blocks.bin", ReadOptions.latest().withRange(asked[i]))) {
                ByteRange r = served[i];
                assertThat(read.range()).as(asked[i].toString()).contains(r);
                assertThat(read.readAllBytes()).as(asked[i].toString()).isEqualTo(slice(all, r.offset(), r.length()));
                assertThat(read.verified()).as(asked[i] + " verified").isEqualTo(digests);
                assertThat(read.version().versionId()).isEqualTo(v.versionId());
                assertThat(read.version().size()).isEqualTo(all.length);
            }
        }
        try (ObjectRead old = store.get(
                "ranges/three-blocks.bin", ReadOptions.version(v.versionId()).withRange(ByteRange.of(7, 3)))) {
            assertThat(old.readAllBytes()).isEqualTo(slice(all, 7, 3));
        }
    }

    @Test
    void rangeOfAnObjectOfOneBlockIsVerifiedAgainstItsSha256() {
        requireFeature(Feature.RANGED_READS);
        byte[] all = bytes(8, 5000);
        store.put("ranges/small.bin", ObjectContent.ofBytes(all));

        try (ObjectRead read =
                store.get("ranges/small.bin", ReadOptions.latest().withRange(ByteRange.of(100, 200)))) {
            assertThat(read.readAllBytes()).isEqualTo(slice(all, 100, 200));
            assertThat(read.verified()).isTrue();
        }
    }

    @Test
    void rangeStartingAtTheEndIsRefusedAs416() {
        requireFeature(Feature.RANGED_READS);
        store.put("ranges/ten.bin", ObjectContent.ofBytes(bytes(9, 10)));

        assertThatThrownBy(
                        () -> store.get("ranges/ten.bin", ReadOptions.latest().withRange(ByteRange.from(10)))
                                .close())
                .isInstanceOfSatisfying(
                        RequestRefusedException.class,
                        e -> assertThat(e.statusCode()).isEqualTo(416));
    }

    @Test
    void rangeOfADamagedBlockFailsNamingTheBlockAndOtherBlocksStillRead() {
        requireFeature(Feature.RANGED_READS);
        requireFeature(Feature.BLOCK_DIGESTS);
        byte[] all = bytes(10, 3 * BLOCK + 99);
        store.put("ranges/rot.bin", ObjectContent.ofBytes(all));
        damageStoredByte("ranges/rot.bin", 2L * BLOCK + 7);

        assertThatThrownBy(() -> {
                    try (ObjectRead read = store.get(
                            "ranges/rot.bin", ReadOptions.latest().withRange(ByteRange.of(2L * BLOCK + 100, 10)))) {
                        read.readAllBytes();
                    }
                })
                .satisfies(e -> assertThat(integrityCause(e))
                        .as("an IntegrityException, not " + e)
                        .isNotNull()
                        .extracting(Throwable::getMessage)
                        .asString()
                        .contains("Block 2 (bytes " + 2L * BLOCK + "-" + (3L * BLOCK - 1) + ")")
                        .contains("ranges/rot.bin"));
        try (ObjectRead intact = store.get(
                "ranges/rot.bin", ReadOptions.latest().withAllowCache(false).withRange(ByteRange.of(BLOCK, 10)))) {
            assertThat(intact.readAllBytes()).isEqualTo(slice(all, BLOCK, 10));
            assertThat(intact.verified()).isTrue();
        }
    }

    private static IntegrityException integrityCause(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof IntegrityException i) {
                return i;
            }
        }
        return null;
    }

    @Test
    void rangeOfAnObjectWrittenWithoutDigestsIsServedMarkedUnverified() {
        requireFeature(Feature.RANGED_READS);
        byte[] all = bytes(11, 2 * BLOCK + 5);
        plantForeignObject("ranges/foreign.bin", all);

        try (ObjectRead read =
                store.get("ranges/foreign.bin", ReadOptions.latest().withRange(ByteRange.of(BLOCK + 3, 1000)))) {
            assertThat(read.readAllBytes()).isEqualTo(slice(all, BLOCK + 3, 1000));
            assertThat(read.verified()).isFalse();
        }
    }

    // ---------------------------------------------------------------------------------- metadata

    @Test
    void metadataIsKeptPerVersionAndReturnedByGetHeadAndVersions() {
        requireFeature(Feature.METADATA);
        ObjectMetadata metadata = ObjectMetadata.builder()
                .contentType("video/mp4")
                .cacheControl("max-age=86400")
                .contentEncoding("identity")
                .contentDisposition("attachment; filename=\"clip.mp4\"")
                .user("owner", "team-media")
                .user("source-id", "42")
                .build();

        ObjectVersion first = store.put(
                "meta/clip.mp4",
                ObjectContent.ofBytes(bytes(12, 300)),
                PutOptions.defaults().withMetadata(metadata));
        ObjectVersion second = store.put("meta/clip.mp4", ObjectContent.ofBytes(bytes(13, 300)));

        assertThat(first.metadata()).isEqualTo(metadata);
        try (ObjectRead read = store.get("meta/clip.mp4", ReadOptions.version(first.versionId()))) {
            assertThat(read.version().metadata()).isEqualTo(metadata);
        }
        assertThat(store.head("meta/clip.mp4", first.versionId()).metadata()).isEqualTo(metadata);
        // Metadata belongs to the version written with it, not to the key.
        assertThat(second.metadata()).isEqualTo(ObjectMetadata.NONE);
        try (ObjectRead read = store.get("meta/clip.mp4")) {
            assertThat(read.version().metadata()).isEqualTo(ObjectMetadata.NONE);
        }
        for (VersionEntry e : store.versions("meta/clip.mp4")) {
            if (e.metadata() != null) { // S3's version listing carries none: head is the way there
                assertThat(e.metadata())
                        .isEqualTo(e.versionId().equals(first.versionId()) ? metadata : ObjectMetadata.NONE);
            }
        }
    }

    @Test
    void metadataIsRefusedWhereTheStoreDoesNotKeepIt() {
        assumeThat(store.capabilities().has(Feature.METADATA))
                .as(storeName() + " has capability METADATA: nothing to refuse")
                .isFalse();
        PutOptions options = PutOptions.defaults()
                .withMetadata(ObjectMetadata.builder().contentType("text/plain").build());

        assertThatThrownBy(() -> store.put("meta/refused", ObjectContent.ofBytes(new byte[1]), options))
                .isInstanceOf(UnsupportedCapabilityException.class)
                .hasMessageContaining("METADATA");
        assertThat(store.versions("meta/refused")).isEmpty();
    }

    // ------------------------------------------------------------------------ server-side encryption

    @Test
    void sseS3IsAppliedAndReportedOrRefusedWhereAbsent() {
        checkEncryption(Feature.SSE_S3, ServerSideEncryption.s3(), "sse/s3");
    }

    @Test
    void sseKmsIsAppliedWithTheKeyNamedOrRefusedWhereAbsent() {
        ServerSideEncryption kms = store.capabilities().has(Feature.SSE_KMS)
                ? ServerSideEncryption.kms(kmsKeyId())
                : ServerSideEncryption.kms("alias/ballast-contract");
        checkEncryption(Feature.SSE_KMS, kms, "sse/kms");
    }

    @Test
    void sseCNeedsItsKeyToReadOrIsRefusedWhereAbsent() {
        byte[] key = bytes(14, 32);
        ServerSideEncryption sseC = ServerSideEncryption.customerKey(key);
        checkEncryption(Feature.SSE_C, sseC, "sse/c");
        if (store.capabilities().has(Feature.SSE_C)) {
            assertThatThrownBy(() -> store.get("sse/c", ReadOptions.latest().withAllowCache(false))
                            .readAllBytes())
                    .isInstanceOf(StorageException.class);
        }
    }

    private void checkEncryption(Feature feature, ServerSideEncryption asked, String key) {
        byte[] content = bytes(15, 2000);
        PutOptions options = PutOptions.defaults().withEncryption(asked);
        if (!store.capabilities().has(feature)) {
            assertThatThrownBy(() -> store.put(key, ObjectContent.ofBytes(content), options))
                    .isInstanceOf(UnsupportedCapabilityException.class)
                    .hasMessageContaining(feature.name());
            assertThat(store.versions(key)).isEmpty();
            return;
        }
        ObjectVersion v = store.put(key, ObjectContent.ofBytes(content), options);

        assertThat(v.encryption().kind()).isEqualTo(asked.kind());
        asked.kmsKeyId()
                .ifPresent(id -> assertThat(v.encryption().kmsKeyId())
                        .hasValueSatisfying(
                                reported -> assertThat(reported).endsWith(id.startsWith("alias/") ? "" : id)));
        ReadOptions read = ReadOptions.latest().withAllowCache(false);
        if (asked.kind() == ServerSideEncryption.Kind.CUSTOMER_KEY) {
            read = read.withCustomerKey(asked);
        }
        try (ObjectRead r = store.get(key, read)) {
            assertThat(r.readAllBytes()).isEqualTo(content);
            assertThat(r.version().encryption().kind()).isEqualTo(asked.kind());
        }
    }
}
