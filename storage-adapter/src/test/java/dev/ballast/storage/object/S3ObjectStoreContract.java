package dev.ballast.storage.object;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.ballast.storage.AccessDeniedException;
import dev.ballast.storage.AlreadyExistsException;
import dev.ballast.storage.BucketNotFoundException;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.PreconditionFailedException;
import dev.ballast.storage.StaleReadException;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.UnsupportedCapabilityException;
import dev.ballast.storage.internal.Sha256;
import dev.ballast.storage.object.S3TestBackend.Feature;
import dev.ballast.storage.object.s3.S3Endpoint;
import dev.ballast.storage.object.s3.S3Errors;
import dev.ballast.storage.object.s3.S3ObjectStore;
import dev.ballast.storage.object.s3.S3StoreConfig;
import dev.ballast.test.ObjectStoreContract;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketVersioningStatus;
import software.amazon.awssdk.services.s3.model.ChecksumMode;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The {@link ObjectStoreContract} for {@link S3ObjectStore} over an S3 server, plus what only S3 can
 * stage: objects planted with a raw S3 client, faults injected on the wire by a
 * {@link FaultInjectingHttpClient} in front of the real transport, multipart uploads left behind.
 * A subclass supplies {@link #backend()}. Each test gets a fresh bucket (created, versioning enabled
 * by the store's own open) and removes it afterwards. Cases needing a behaviour the backend does not
 * declare, or a capability its probe did not find, are skipped with the reason.
 */
@ExtendWith(LeakCheck.class)
public abstract class S3ObjectStoreContract extends ObjectStoreContract {

    /** The backend to run against; may be the same instance for every test. */
    protected abstract S3TestBackend backend();

    protected FaultInjectingHttpClient http;
    protected S3Client raw;
    protected String bucket;
    protected final List<Duration> pauses = new ArrayList<>();
    /** Reads resumed after a stall or a cut, as the stores opened with {@link #options()} report them. */
    protected final java.util.concurrent.atomic.AtomicInteger resumes = new java.util.concurrent.atomic.AtomicInteger();

    @Override
    protected S3ObjectStore newStore() {
        S3TestBackend b = backend();
        bucket = "ballast-" + Long.toHexString(new SplittableRandom().nextLong() & Long.MAX_VALUE);
        http = b.newHttpClient();
        // Planting, staging and cleaning up go the way the product talks to the server, not the SDK's defaults.
        raw = b.endpoint(b.newHttpClient()).newClient();
        return S3ObjectStore.open(b.endpoint(http), bucket, options().build());
    }

    /** The settings every test store is opened with: bucket created, versioning enabled, pauses recorded. */
    protected S3StoreConfig.Builder options() {
        return S3StoreConfig.builder()
                .createBucket(true)
                .enableVersioning(true)
                .sleeper(pauses::add)
                .onReadResumed(resumes::incrementAndGet);
    }

    @Override
    protected String storeName() {
        return backend().name();
    }

    @Override
    protected boolean has(Behaviour behaviour) {
        return switch (behaviour) {
            case PATH_FAITHFUL_KEYS -> backend().has(Feature.PATH_FAITHFUL_KEYS);
            case FAITHFUL_DELETE_MARKERS -> backend().has(Feature.FAITHFUL_DELETE_MARKERS);
            case OBJECTS_OUTSIDE_TEST_HEAP -> backend().has(Feature.OBJECTS_OUTSIDE_TEST_HEAP);
            case PAGED_DELIMITER_LISTINGS -> backend().has(Feature.PAGED_DELIMITER_LISTINGS);
            case CONTENT_DIGESTS_AND_SIZES -> true; // S3 stores the bytes put: their SHA-256, their sizes
        };
    }

    @Override
    protected void plantObject(String key, byte[] bytes, String recordedSha256Hex) {
        raw.putObject(
                p -> p.bucket(bucket)
                        .key(key)
                        .metadata(Map.of(
                                S3ObjectStore.META_SHA256, recordedSha256Hex, S3ObjectStore.META_GENERATION, "1")),
                RequestBody.fromBytes(bytes));
    }

    @Override
    protected void plantForeignObject(String key, byte[] bytes) {
        raw.putObject(p -> p.bucket(bucket).key(key), RequestBody.fromBytes(bytes));
    }

    /**
     * Writes a new version with the current version's metadata (its SHA-256, generation and block
     * digest table) and its bytes with one bit flipped at {@code offset}: what bit rot on the server
     * would leave behind that metadata.
     */
    @Override
    protected void damageStoredByte(String key, long offset) {
        var current = raw.getObjectAsBytes(g -> g.bucket(bucket).key(key));
        byte[] bytes = current.asByteArray();
        bytes[Math.toIntExact(offset)] ^= 1;
        raw.putObject(
                p -> p.bucket(bucket).key(key).metadata(current.response().metadata()), RequestBody.fromBytes(bytes));
    }

    @Override
    protected ObjectStore openAnotherWriter(Clock clock) {
        return S3ObjectStore.open(
                backend().endpoint(backend().newHttpClient()),
                bucket,
                options().clock(clock).build());
    }

    @Override
    protected void observeLargeWrite(Runnable checkpointEveryFewMiB) {
        http.observeRequestBodies(
                checkpointEveryFewMiB == null
                        ? null
                        : (before, after) -> {
                            if (before / (4 * MIB) != after / (4 * MIB)) {
                                checkpointEveryFewMiB.run();
                            }
                        });
    }

    @Override
    protected void assertNoIncompleteWrites() {
        assertThat(raw.listMultipartUploads(l -> l.bucket(bucket)).uploads())
                .as("no orphaned uploads")
                .isEmpty();
    }

    private S3ObjectStore s3Store() {
        return (S3ObjectStore) store;
    }

    @AfterEach
    void removeBucket() {
        if (raw == null) {
            return;
        }
        try {
            S3Buckets.removeWithEveryVersion(raw, bucket);
        } catch (RuntimeException e) {
            System.err.println("[" + backend().name() + "] could not remove bucket " + bucket + ": " + e);
        } finally {
            raw.close();
        }
    }

    // ---------------------------------------------------------------- probe

    @Test
    void probeFindsVersioningEnabledAndLeavesNoObjectsBehind() {
        StoreCapabilities caps = store.capabilities();
        System.out.println("[" + backend().name() + "] " + caps);

        assertThat(caps.bucket()).isEqualTo(bucket);
        assertThat(caps.versioningEnabled()).isTrue();
        assertThat(caps.endpoint()).isEqualTo(backend().endpoint());
        var left = raw.listObjectVersions(l -> l.bucket(bucket));
        assertThat(left.versions()).isEmpty();
        assertThat(left.deleteMarkers()).isEmpty();
    }

    @Test
    void openingABucketWithoutVersioningIsRefusedUnlessAskedToEnableIt() {
        String plain = bucket + "-plain";
        raw.createBucket(c -> c.bucket(plain));
        try {
            assertThatThrownBy(() -> S3ObjectStore.open(
                            backend().endpoint(backend().newHttpClient()), plain, S3StoreConfig.ofDefaults()))
                    .isInstanceOf(UnsupportedCapabilityException.class)
                    .hasMessageContaining(plain)
                    .hasMessageContaining("enableVersioning(true)");
            assertThatThrownBy(() -> S3ObjectStore.open(
                            backend().endpoint(backend().newHttpClient()),
                            plain + "-missing",
                            S3StoreConfig.ofDefaults()))
                    .isInstanceOf(BucketNotFoundException.class)
                    .hasMessageContaining("No such bucket")
                    .hasMessageContaining("'" + plain + "-missing'")
                    .hasMessageContaining(backend().endpoint().toString())
                    .hasMessageContaining("createBucket(true)");
        } finally {
            raw.deleteBucket(d -> d.bucket(plain));
        }
    }

    @Test
    void theProbeWritesOnlyUnderItsPrefixAndSaysWhatItSent() {
        // newStore() opened the store through `http`: its exchanges so far are the probe's.
        List<FaultInjectingHttpClient.Exchange> probe = http.exchanges();
        System.out.println("[" + backend().name() + "] probe: "
                + probe.stream()
                        .map(e -> e.method() + " " + e.uri().getRawPath()
                                + (e.query().isEmpty() ? "" : "?" + e.query()))
                        .collect(Collectors.joining(", ")));
        List<FaultInjectingHttpClient.Exchange> writes = probe.stream()
                .filter(e -> e.method().equals("PUT")
                        || e.method().equals("DELETE")
                        || e.method().equals("POST"))
                .filter(e ->
                        !e.query().contains("versioning")) // PutBucketVersioning: asked for by enableVersioning(true)
                .filter(e ->
                        !e.uri().getRawPath().equals("/" + bucket)) // CreateBucket: asked for by createBucket(true)
                .toList();
        assertThat(writes)
                .isNotEmpty()
                .allSatisfy(e -> assertThat(e.uri().getRawPath()).startsWith("/" + bucket + "/.ballast/probe/"));
        assertThat(writes.stream().map(e -> e.uri().getRawPath()).distinct())
                .as("one probe key")
                .hasSize(1);
        // HEAD bucket, CreateBucket, GetBucketVersioning, PutBucketVersioning, GetBucketVersioning, at most
        // 8 probe PUTs (with a retry or two of a PUT whose answer the server cut short), ListObjectVersions, a
        // DELETE per version made.
        assertThat(probe.size()).isBetween(10, 22);
    }

    @Test
    void aStoreOpenedWithinTheProbeCachesAgeChecksOnlyTheBucketsVersioning(@TempDir Path cacheDir) {
        Path cache = cacheDir.resolve("probe.properties");
        FakeTime clock = new FakeTime(Instant.parse("2030-01-01T00:00:00Z"));
        S3StoreConfig config =
                options().clock(clock).probeCache(cache, Duration.ofHours(24)).build();
        FaultInjectingHttpClient first = backend().newHttpClient();
        try (S3ObjectStore probed = S3ObjectStore.open(backend().endpoint(first), bucket, config)) {
            assertThat(probed.capabilities()).isEqualTo(store.capabilities());
            assertThat(first.exchanges().size())
                    .as("requests at the first open: the probe")
                    .isGreaterThan(5);
        }
        assertThat(cache).isRegularFile();

        clock.advance(Duration.ofHours(23));
        FaultInjectingHttpClient second = backend().newHttpClient();
        try (S3ObjectStore remembered = S3ObjectStore.open(backend().endpoint(second), bucket, config)) {
            assertThat(second.exchanges())
                    .as("requests at an open 23 h later")
                    .extracting(e -> e.method() + (e.query().isEmpty() ? "" : "?" + e.query()))
                    .containsExactly("GET?versioning"); // answered Enabled: the bucket exists and is ours
            assertThat(remembered.capabilities()).isEqualTo(store.capabilities());
            assertThat(remembered.confirmsWrites()).isEqualTo(s3Store().confirmsWrites());
        }

        clock.advance(Duration.ofHours(2));
        FaultInjectingHttpClient third = backend().newHttpClient();
        try (S3ObjectStore reprobed = S3ObjectStore.open(backend().endpoint(third), bucket, config)) {
            assertThat(third.exchanges().size())
                    .as("requests at an open after the findings aged out")
                    .isGreaterThan(5);
        }
    }

    @Test
    void rememberedFindingsAreNotTrustedForABucketTheOpenHadToCreate(@TempDir Path cacheDir) throws IOException {
        // Findings for this URL may come from another server that answered there before (MinIO swapped
        // for Ceph on the same port): a bucket that did not exist is probed, whatever is remembered.
        String fresh = bucket + "-new";
        Path cache = cacheDir.resolve("probe.properties");
        FakeTime clock = new FakeTime(Instant.parse("2030-01-01T00:00:00Z"));
        S3StoreConfig config =
                options().clock(clock).probeCache(cache, Duration.ofHours(24)).build();
        try {
            S3ObjectStore.open(backend().endpoint(backend().newHttpClient()), fresh, config)
                    .close();
            S3Buckets.removeWithEveryVersion(raw, fresh);
            // What a server honouring everything would have left in the cache.
            Properties remembered = new Properties();
            try (InputStream in = Files.newInputStream(cache)) {
                remembered.load(in);
            }
            String everything = "PUT_IF_ABSENT,PUT_IF_MATCH,ADDITIONAL_CHECKSUMS,CONTENT_MD5,SIGNED_PAYLOAD";
            for (String key : remembered.stringPropertyNames()) {
                remembered.setProperty(key, clock.millis() + " " + everything + " tested=" + everything);
            }
            try (OutputStream out = Files.newOutputStream(cache)) {
                remembered.store(out, null);
            }

            FaultInjectingHttpClient client = backend().newHttpClient();
            try (S3ObjectStore opened = S3ObjectStore.open(backend().endpoint(client), fresh, config)) {
                assertThat(client.exchanges().size())
                        .as("requests at the open: the bucket created, then the probe")
                        .isGreaterThan(5);
                assertThat(opened.capabilities().putIfAbsent())
                        .isEqualTo(store.capabilities().putIfAbsent());
                assertThat(opened.capabilities().putIfMatch())
                        .isEqualTo(store.capabilities().putIfMatch());
                assertThat(opened.capabilities().additionalChecksums())
                        .isEqualTo(store.capabilities().additionalChecksums());
                assertThat(opened.confirmsWrites()).isEqualTo(store.confirmsWrites());
            }
        } finally {
            try {
                S3Buckets.removeWithEveryVersion(raw, fresh);
            } catch (RuntimeException e) {
                // already removed, or never created by a failed open: nothing to clean up
            }
        }
    }

    @Test
    void turningOnTheVersioningOfABucketThatWasThereIsToldOnceAndOfABucketItCreatedNot() {
        String plain = bucket + "-plain";
        String made = bucket + "-made";
        java.util.List<String> told = new java.util.concurrent.CopyOnWriteArrayList<>();
        S3StoreConfig config = options().onVersioningEnabled(told::add).build();
        raw.createBucket(c -> c.bucket(plain));
        try {
            S3ObjectStore.open(backend().endpoint(backend().newHttpClient()), plain, config)
                    .close();
            assertThat(raw.getBucketVersioning(g -> g.bucket(plain)).status())
                    .isEqualTo(BucketVersioningStatus.ENABLED);
            assertThat(told).containsExactly("never enabled");

            S3ObjectStore.open(backend().endpoint(backend().newHttpClient()), plain, config)
                    .close();
            S3ObjectStore.open(backend().endpoint(backend().newHttpClient()), made, config)
                    .close();
            assertThat(told)
                    .as("told again: already enabled, or a bucket the open created")
                    .hasSize(1);
        } finally {
            for (String b : java.util.List.of(plain, made)) {
                try {
                    S3Buckets.removeWithEveryVersion(raw, b);
                } catch (RuntimeException e) {
                    // never created by a failed open: nothing to clean up
                }
            }
        }
    }

    @Test
    void aBucketWhoseVersioningWasSuspendedMakesPutsFailAndIsRefusedAtOpenNotTurnedBackOn(@TempDir Path cacheDir) {
        // findings remembered while versioning was on: an open trusting them still checks the bucket
        S3StoreConfig remembering = options()
                .probeCache(cacheDir.resolve("probe.properties"), Duration.ofHours(24))
                .build();
        S3ObjectStore.open(backend().endpoint(backend().newHttpClient()), bucket, remembering)
                .close();
        raw.putBucketVersioning(
                p -> p.bucket(bucket).versioningConfiguration(v -> v.status(BucketVersioningStatus.SUSPENDED)));
        try {
            String answered = raw.putObject(p -> p.bucket(bucket).key("plain"), RequestBody.fromBytes(new byte[] {0}))
                    .versionId();
            assumeThat(answered == null || "null".equals(answered))
                    .as(
                            "%s answers a put in a suspended bucket without a version ID",
                            backend().name())
                    .isTrue();

            assertThatThrownBy(() -> store.put("after-suspension", ObjectContent.ofBytes(new byte[] {1})))
                    .isInstanceOf(UnsupportedCapabilityException.class)
                    .hasMessageContaining("without a version ID");
            assertThatThrownBy(() -> S3ObjectStore.open(
                            backend().endpoint(backend().newHttpClient()),
                            bucket,
                            options().build()))
                    .isInstanceOf(UnsupportedCapabilityException.class)
                    .hasMessageContaining("versioning Suspended");
            assertThatThrownBy(() ->
                            S3ObjectStore.open(backend().endpoint(backend().newHttpClient()), bucket, remembering))
                    .isInstanceOf(UnsupportedCapabilityException.class)
                    .hasMessageContaining("versioning Suspended");
            assertThat(raw.getBucketVersioning(g -> g.bucket(bucket)).status())
                    .isEqualTo(BucketVersioningStatus.SUSPENDED);
        } finally {
            raw.putBucketVersioning(
                    p -> p.bucket(bucket).versioningConfiguration(v -> v.status(BucketVersioningStatus.ENABLED)));
        }
    }

    @Test
    void declaredCapabilitiesSkipTheProbe() {
        FaultInjectingHttpClient declaredHttp = backend().newHttpClient();
        S3StoreConfig config = S3StoreConfig.builder()
                .sleeper(pauses::add)
                .declaredCapabilities(declared(store.capabilities()))
                .build();
        try (S3ObjectStore declared = S3ObjectStore.open(backend().endpoint(declaredHttp), bucket, config)) {
            assertThat(declaredHttp.exchanges()).as("requests at open").isEmpty();
            assertThat(declared.capabilities()).isEqualTo(store.capabilities());

            ObjectVersion v = declared.put("declared.txt", ObjectContent.ofBytes(new byte[] {1, 2, 3}));
            try (ObjectRead read = store.get("declared.txt")) {
                assertThat(read.readAllBytes()).containsExactly(1, 2, 3);
                assertThat(read.version().versionId()).isEqualTo(v.versionId());
            }
        }
        var left = raw.listObjectVersions(l -> l.bucket(bucket).prefix(".ballast/"));
        assertThat(left.versions()).isEmpty();
        assertThat(left.deleteMarkers()).isEmpty();

        try (S3ObjectStore missing =
                S3ObjectStore.open(backend().endpoint(backend().newHttpClient()), bucket + "-none", config)) {
            // A read: a PUT's early 404 is answered before its body on some servers (Ceph RGW), and the
            // plain JDK client this suite uses bounds no body read, while the store's default client does.
            assertThatThrownBy(() -> missing.versions("k"))
                    .isInstanceOf(BucketNotFoundException.class)
                    .hasMessageContaining("no such bucket");
        }
    }

    private static java.util.Set<S3StoreConfig.Capability> declared(StoreCapabilities found) {
        var declared = java.util.EnumSet.noneOf(S3StoreConfig.Capability.class);
        if (found.putIfAbsent()) {
            declared.add(S3StoreConfig.Capability.PUT_IF_ABSENT);
        }
        if (found.putIfMatch()) {
            declared.add(S3StoreConfig.Capability.PUT_IF_MATCH);
        }
        if (found.additionalChecksums()) {
            declared.add(S3StoreConfig.Capability.ADDITIONAL_CHECKSUMS);
        }
        return declared;
    }

    /** What the exchanges since the last clear were, as "METHOD" or "METHOD If-Match"/"METHOD If-None-Match". */
    private List<String> requestsSinceCleared() {
        List<String> sent = new ArrayList<>();
        for (FaultInjectingHttpClient.Exchange e : http.exchanges()) {
            String condition = e.headers()
                    .firstValue("If-Match")
                    .map(v -> " If-Match")
                    .or(() -> e.headers().firstValue("If-None-Match").map(v -> " If-None-Match"))
                    .orElse("");
            sent.add(e.method() + condition);
        }
        http.clearExchanges();
        return sent;
    }

    @Test
    void aPutSendsNoHeadWhereAConditionStandsInForIt() throws IOException {
        StoreCapabilities caps = store.capabilities();
        http.clearExchanges();

        store.put("counted", ObjectContent.ofBytes("v1".getBytes(StandardCharsets.UTF_8)));
        assertThat(requestsSinceCleared())
                .as("first put of a key")
                .isEqualTo(caps.putIfAbsent() ? List.of("PUT If-None-Match") : List.of("HEAD", "PUT"));

        ObjectVersion v2 = store.put("counted", ObjectContent.ofBytes("v2".getBytes(StandardCharsets.UTF_8)));
        assertThat(requestsSinceCleared())
                .as("a put of a key this store wrote")
                .isEqualTo(caps.putIfMatch() ? List.of("PUT If-Match") : List.of("HEAD", "PUT"));

        try (ObjectRead read = store.get("counted")) {
            assertThat(read.readAllBytes()).isEqualTo("v2".getBytes(StandardCharsets.UTF_8));
            assertThat(read.version().generation()).isEqualTo(v2.generation());
        }
        assertThat(requestsSinceCleared()).as("a get").isEqualTo(List.of("GET"));

        if (caps.putIfMatch()) {
            store.putIfMatch("counted", v2.eTag(), ObjectContent.ofBytes("v3".getBytes(StandardCharsets.UTF_8)));
            assertThat(requestsSinceCleared())
                    .as("putIfMatch on the ETag this store wrote")
                    .isEqualTo(List.of("PUT If-Match"));
        }
        if (caps.putIfAbsent()) {
            store.putIfAbsent("fresh", ObjectContent.ofBytes("new".getBytes(StandardCharsets.UTF_8)));
            assertThat(requestsSinceCleared()).as("putIfAbsent").isEqualTo(List.of("PUT If-None-Match"));
            store.delete("fresh");
            http.clearExchanges();
            store.put("fresh", ObjectContent.ofBytes("again".getBytes(StandardCharsets.UTF_8)));
            // A key whose latest entry is a delete marker has no current version; a store that answers 412
            // (S3Mock) costs the fallback, never the put.
            assertThat(requestsSinceCleared())
                    .as("a put after this store deleted the key")
                    .isEqualTo(
                            has(Behaviour.FAITHFUL_DELETE_MARKERS)
                                    ? List.of("PUT If-None-Match")
                                    : List.of("PUT If-None-Match", "HEAD", "PUT"));
            try (ObjectRead read = store.get("fresh")) {
                assertThat(read.readAllBytes()).isEqualTo("again".getBytes(StandardCharsets.UTF_8));
            }
        }
    }

    @Test
    void aPutAfterAnotherWriterChangedTheKeyLandsAboveItsGeneration() throws IOException {
        ObjectVersion mine = store.put("shared", ObjectContent.ofBytes("mine".getBytes(StandardCharsets.UTF_8)));
        ObjectStore other =
                openAnotherWriter(Clock.fixed(Instant.parse("2100-01-01T00:00:00Z"), java.time.ZoneOffset.UTC));
        ObjectVersion theirs = other.put("shared", ObjectContent.ofBytes("theirs".getBytes(StandardCharsets.UTF_8)));
        ObjectVersion mineAgain;
        try {
            http.clearExchanges();
            // Not a conditional put: a condition this store adds in place of the HEAD is never refused to it.
            mineAgain = store.put("shared", ObjectContent.ofBytes("mine again".getBytes(StandardCharsets.UTF_8)));
            List<String> sent = requestsSinceCleared();
            assertThat(sent).as("requests").contains("HEAD").endsWith("PUT");
        } finally {
            if (other instanceof AutoCloseable closeable) {
                try {
                    closeable.close();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        assertThat(theirs.generation()).isGreaterThan(mine.generation());
        assertThat(mineAgain.generation())
                .as("above the other writer's far-future generation")
                .isGreaterThan(theirs.generation());
        try (ObjectRead read = store.get("shared")) {
            assertThat(read.readAllBytes()).isEqualTo("mine again".getBytes(StandardCharsets.UTF_8));
            assertThat(read.freshness()).isEqualTo(Freshness.FRESH);
        }
        assertThat(store.versions("shared")).hasSize(3);
    }

    @Test
    void putsUnderAPreparedPrefixReadTheVersionOnlyOfKeysItsOneListingHeld() throws Exception {
        boolean conditional = store.capabilities().putIfAbsent();
        ObjectStore other =
                openAnotherWriter(Clock.fixed(Instant.parse("2100-01-01T00:00:00Z"), java.time.ZoneOffset.UTC));
        ObjectVersion theirs;
        try {
            theirs = other.put("prepared/theirs", ObjectContent.ofBytes("theirs".getBytes(StandardCharsets.UTF_8)));
        } finally {
            if (other instanceof AutoCloseable closeable) {
                closeable.close();
            }
        }
        store.prepareWrites("prepared/");
        http.clearExchanges();

        store.put("prepared/new-1", ObjectContent.ofBytes("one".getBytes(StandardCharsets.UTF_8)));
        assertThat(requestsSinceCleared())
                .as("the first put under the prefix")
                .isEqualTo(conditional ? List.of("PUT If-None-Match") : List.of("GET", "PUT"));
        store.put("prepared/new-2", ObjectContent.ofBytes("two".getBytes(StandardCharsets.UTF_8)));
        assertThat(requestsSinceCleared())
                .as("a put of another new key")
                .isEqualTo(conditional ? List.of("PUT If-None-Match") : List.of("PUT"));
        ObjectVersion mine =
                store.put("prepared/theirs", ObjectContent.ofBytes("mine".getBytes(StandardCharsets.UTF_8)));
        assertThat(requestsSinceCleared())
                .as("a put of a key the listing held")
                .contains("HEAD")
                .endsWith("PUT");
        assertThat(mine.generation())
                .as("above the other writer's far-future generation")
                .isGreaterThan(theirs.generation());
        store.put("prepared/new-1", ObjectContent.ofBytes("one again".getBytes(StandardCharsets.UTF_8)));
        assertThat(requestsSinceCleared())
                .as("a second put of a key the listing did not hold")
                .isEqualTo(store.capabilities().putIfMatch() ? List.of("PUT If-Match") : List.of("HEAD", "PUT"));

        for (String key : List.of("prepared/new-1", "prepared/new-2", "prepared/theirs")) {
            try (ObjectRead read = store.get(key)) {
                assertThat(read.freshness()).as(key).isEqualTo(Freshness.FRESH);
            }
        }
    }

    /**
     * A put sent with a condition in place of its HEAD lands, another writer replaces it, and only then
     * is the put's answer lost: the key's current version neither carries its token nor meets its
     * condition, yet it landed. It is found in the history and returned, never written a second time.
     */
    @Test
    void aPutThatLandedAndWasReplacedBeforeItsLostAnswerIsNotWrittenAgain() {
        assumeThat(store.capabilities().putIfMatch())
                .as("%s honours If-Match", backend().name())
                .isTrue();
        S3Client real = backend().endpoint(backend().newHttpClient()).newClient();
        java.util.concurrent.atomic.AtomicBoolean replaceThenLoseAnswer =
                new java.util.concurrent.atomic.AtomicBoolean();
        S3Client lossy = new S3Client() {
            @Override
            public String serviceName() {
                return real.serviceName();
            }

            @Override
            public software.amazon.awssdk.services.s3.S3ServiceClientConfiguration serviceClientConfiguration() {
                return real.serviceClientConfiguration();
            }

            @Override
            public void close() {
                real.close();
            }

            @Override
            public software.amazon.awssdk.services.s3.model.PutObjectResponse putObject(
                    software.amazon.awssdk.services.s3.model.PutObjectRequest request, RequestBody body) {
                var answer = real.putObject(request, body);
                if (replaceThenLoseAnswer.getAndSet(false)) {
                    store.put("replaced", ObjectContent.ofBytes("theirs".getBytes(StandardCharsets.UTF_8)));
                    throw SdkClientException.create("no answer", new IOException("Connection reset"));
                }
                return answer;
            }

            @Override
            public HeadObjectResponse headObject(software.amazon.awssdk.services.s3.model.HeadObjectRequest request) {
                return real.headObject(request);
            }

            @Override
            public software.amazon.awssdk.services.s3.model.ListObjectVersionsResponse listObjectVersions(
                    software.amazon.awssdk.services.s3.model.ListObjectVersionsRequest request) {
                return real.listObjectVersions(request);
            }
        };
        try (S3ObjectStore mine = S3ObjectStore.open(
                S3Endpoint.of(lossy),
                bucket,
                S3StoreConfig.builder()
                        .declaredCapabilities(declared(store.capabilities()))
                        .build())) {
            mine.put("replaced", ObjectContent.ofBytes("first".getBytes(StandardCharsets.UTF_8)));
            replaceThenLoseAnswer.set(true);

            ObjectVersion landed =
                    mine.put("replaced", ObjectContent.ofBytes("second".getBytes(StandardCharsets.UTF_8)));

            List<VersionEntry> history = store.versions("replaced");
            assertThat(history)
                    .as("first, second, theirs: nothing written twice")
                    .hasSize(3)
                    .extracting(VersionEntry::versionId)
                    .contains(landed.versionId());
            try (ObjectRead read = store.get("replaced", ReadOptions.version(landed.versionId()))) {
                assertThat(read.readAllBytes()).isEqualTo("second".getBytes(StandardCharsets.UTF_8));
            }
        } finally {
            real.close();
        }
    }

    // ---------------------------------------------------------------- what goes on the wire

    @Test
    void theSha256GenerationAndPutTokenAreStoredAsUserMetadata() {
        byte[] content = "hello, versioned world\n".getBytes(StandardCharsets.UTF_8);

        ObjectVersion v = store.put("docs/hello.txt", ObjectContent.ofBytes(content));

        HeadObjectResponse head =
                raw.headObject(h -> h.bucket(bucket).key("docs/hello.txt").checksumMode(ChecksumMode.ENABLED));
        assertThat(head.metadata())
                .containsEntry(S3ObjectStore.META_SHA256, v.sha256())
                .containsEntry(S3ObjectStore.META_GENERATION, Long.toString(v.generation()))
                .containsKey(S3ObjectStore.META_PUT_TOKEN);
        if (store.capabilities().additionalChecksums()) {
            assertThat(head.checksumSHA256()).isEqualTo(Sha256.base64(Sha256.of(content)));
        }
    }

    @Test
    void everyBodyGoesWithADigestTheEndpointValidatesSoNoWriteNeedsReadingBack() {
        byte[] small = pseudoRandom(13, 1000);
        byte[] big = pseudoRandom(14, (int) (17 * MIB));
        http.clearExchanges();

        store.put("md5/small", ObjectContent.ofBytes(small));
        store.put("md5/big", ObjectContent.ofBytes(big));

        List<FaultInjectingHttpClient.Exchange> puts =
                http.exchanges().stream().filter(e -> e.method().equals("PUT")).toList();
        // The small object, the big one's block digest table (.ballast/blocks/...), the big one's three parts.
        assertThat(puts).hasSize(5);
        var blocks = new dev.ballast.storage.internal.BlockDigests.Builder();
        blocks.update(big, 0, big.length);
        byte[] table = blocks.build().table();
        boolean signedPayloadValidated = backend().has(Feature.VERIFIES_SIGNED_PAYLOAD)
                && "http".equals(backend().endpoint().getScheme());
        if (signedPayloadValidated) {
            // The server refuses a body whose signed SHA-256 does not match it: that SHA-256, computed in the
            // content's one read, proves each body, and no MD5 is computed or sent.
            assertThat(puts)
                    .allSatisfy(e -> assertThat(e.headers().firstValue("Content-MD5"))
                            .as("Content-MD5 of %s", e.query())
                            .isEmpty())
                    .extracting(
                            e -> e.headers().firstValue("x-amz-content-sha256").orElse("none"))
                    .containsExactlyInAnyOrder(
                            Sha256.hex(Sha256.of(small)),
                            Sha256.hex(Sha256.of(table)),
                            Sha256.hex(Sha256.of(Arrays.copyOfRange(big, 0, (int) (8 * MIB)))),
                            Sha256.hex(Sha256.of(Arrays.copyOfRange(big, (int) (8 * MIB), (int) (16 * MIB)))),
                            Sha256.hex(Sha256.of(Arrays.copyOfRange(big, (int) (16 * MIB), big.length))));
        } else {
            assertThat(puts)
                    .allSatisfy(e -> assertThat(e.headers().firstValue("Content-MD5"))
                            .as("Content-MD5 of %s", e.query())
                            .isPresent());
        }
        assertThat(store.confirmsWrites())
                .as(
                        "%s refuses a wrong Content-MD5 or signed payload hash",
                        backend().name())
                .isTrue();
    }

    @Test
    void aLargePutGoesUpInPartsOfThePartSizeAndLeavesNoUploadBehind() {
        byte[] big = pseudoRandom(12, (int) (17 * MIB));
        http.clearExchanges();

        ObjectVersion v = store.put("big/17mib.bin", ObjectContent.ofBytes(big));

        long parts = http.exchanges().stream()
                .filter(e -> e.method().equals("PUT") && e.query().contains("partNumber="))
                .count();
        assertThat(parts).as("UploadPart requests of 8, 8 and 1 MiB").isEqualTo(3);
        assertNoIncompleteWrites();
        assertThat(store.get("big/17mib.bin").readAllBytes()).isEqualTo(big);
        assertThat(v.sha256()).isEqualTo(Sha256.hex(Sha256.of(big)));
    }

    @Test
    void invalidKeysAreRejectedBeforeAnyRequest() {
        http.clearExchanges();

        INVALID_KEYS.keySet().forEach(key -> {
            assertThatThrownBy(() -> store.put(key, ObjectContent.ofBytes(new byte[1])))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> store.get(key)).isInstanceOf(IllegalArgumentException.class);
        });

        assertThat(http.exchanges()).as("requests sent for rejected keys").isEmpty();
    }

    @Test
    void conditionalWritesGoOutAsIfNoneMatchAndIfMatch() {
        assumePutIfAbsent();
        assumePutIfMatch();
        http.clearExchanges();

        ObjectVersion v1 = store.putIfAbsent("wire", ObjectContent.ofBytes(new byte[] {1}));
        store.putIfMatch("wire", v1.eTag(), ObjectContent.ofBytes(new byte[] {2}));

        List<FaultInjectingHttpClient.Exchange> puts =
                http.exchanges().stream().filter(e -> e.method().equals("PUT")).collect(Collectors.toList());
        assertThat(puts).hasSize(2);
        assertThat(puts.get(0).headers().firstValue("If-None-Match")).contains("*");
        assertThat(puts.get(1).headers().firstValue("If-Match")).contains(v1.eTag());
    }

    @Test
    void aConditionalWriteConflictIsRetriedABoundedNumberOfTimes() {
        assumePutIfMatch();
        ObjectVersion v1 = store.put("contended", ObjectContent.ofBytes("1".getBytes(StandardCharsets.UTF_8)));
        var conditionalPut = FaultInjectingHttpClient.request("PUT", q -> true);
        http.answerS3ErrorOnce(conditionalPut, 409, "ConditionalRequestConflict");
        http.clearExchanges();

        ObjectVersion v2 =
                store.putIfMatch("contended", v1.eTag(), ObjectContent.ofBytes("2".getBytes(StandardCharsets.UTF_8)));

        assertThat(http.exchanges())
                .filteredOn(e -> e.method().equals("PUT"))
                .hasSize(2)
                .allMatch(e -> e.headers().firstValue("If-Match").orElse("").equals(v1.eTag()));
        assertThat(pauses).hasSize(1);
        assertThat(store.versions("contended"))
                .extracting(VersionEntry::versionId)
                .containsExactly(v2.versionId(), v1.versionId());

        for (int i = 0; i < 3; i++) {
            http.answerS3ErrorOnce(conditionalPut, 409, "ConditionalRequestConflict");
        }
        assertThatThrownBy(() -> store.putIfMatch("contended", v2.eTag(), ObjectContent.ofBytes(new byte[1])))
                .isInstanceOf(PreconditionFailedException.class)
                .hasMessageContaining("409 ConditionalRequestConflict");
        assertThat(store.versions("contended")).hasSize(2);
    }

    /**
     * A server may answer a conditional PUT with 412 before reading its body and close the connection,
     * so the client gets no answer (s3proxy does, now and then): the refusal must still come back as the
     * 412 it is, never as an unreachable store, and nothing may be written.
     */
    @Test
    void aRefusedConditionalPutWhoseAnswerIsLostIsStillTheRefusal() {
        assumePutIfAbsent();
        assumePutIfMatch();
        ObjectVersion v1 = store.put("refused", ObjectContent.ofBytes("1".getBytes(StandardCharsets.UTF_8)));
        ObjectVersion v2 = store.put("refused", ObjectContent.ofBytes("2".getBytes(StandardCharsets.UTF_8)));
        var conditionalPut = FaultInjectingHttpClient.request("PUT", q -> true);

        http.dropResponseOnce(conditionalPut);
        assertThatThrownBy(() -> store.putIfAbsent("refused", ObjectContent.ofBytes(new byte[] {3})))
                .isInstanceOf(AlreadyExistsException.class);
        http.dropResponseOnce(conditionalPut);
        assertThatThrownBy(() -> store.putIfMatch("refused", v1.eTag(), ObjectContent.ofBytes(new byte[] {4})))
                .isInstanceOf(PreconditionFailedException.class)
                .isNotInstanceOf(AlreadyExistsException.class)
                .hasMessageContaining("answer was lost");

        assertThat(store.versions("refused"))
                .extracting(VersionEntry::versionId)
                .containsExactly(v2.versionId(), v1.versionId());
    }

    /**
     * A layer below that repeats a conditional PUT whose first attempt landed gets 412 for the repeat:
     * the store recognises its own put token and reports the write, not a conflict with itself.
     */
    @Test
    void aConditionalPutRepeatedAfterItLandedIsTheWriteNotAConflict() {
        assumePutIfAbsent();
        http.sendTwiceOnce(FaultInjectingHttpClient.request("PUT", q -> true));

        ObjectVersion created =
                store.putIfAbsent("repeated", ObjectContent.ofBytes("once".getBytes(StandardCharsets.UTF_8)));

        assertThat(store.versions("repeated"))
                .extracting(VersionEntry::versionId)
                .containsExactly(created.versionId());
        assertThat(store.get("repeated").readAllBytes()).isEqualTo("once".getBytes(StandardCharsets.UTF_8));
    }

    // ---------------------------------------------------------------- versions

    @Test
    void removingTheDeleteMarkerBringsThePreviousVersionBack() {
        assumeThat(backend().has(Feature.DELETE_MARKER_REMOVAL_RESTORES))
                .as(
                        "%s does not restore the previous version when a delete marker is removed",
                        backend().name())
                .isTrue();
        ObjectVersion v1 = store.put("undelete", ObjectContent.ofBytes("keep me".getBytes(StandardCharsets.UTF_8)));
        VersionEntry marker = store.delete("undelete");
        assertThatThrownBy(() -> store.get("undelete")).isInstanceOf(ObjectNotFoundException.class);

        raw.deleteObject(d -> d.bucket(bucket).key("undelete").versionId(marker.versionId()));

        try (ObjectRead read = store.get("undelete")) {
            assertThat(read.readAllBytes()).isEqualTo("keep me".getBytes(StandardCharsets.UTF_8));
            assertThat(read.version().versionId()).isEqualTo(v1.versionId());
        }
        assertThat(store.versions("undelete"))
                .extracting(VersionEntry::deleteMarker)
                .containsExactly(false);
    }

    // ---------------------------------------------------------------- integrity on the wire

    @Test
    void aByteFlippedInTransitRaisesIntegrityException() {
        byte[] content = pseudoRandom(6, 300_000);
        store.put("flip", ObjectContent.ofBytes(content));
        http.flipResponseByteOnce(FaultInjectingHttpClient.request("GET", q -> !q.contains("versions")), 123_456);

        assertThatThrownBy(() -> store.get("flip").readAllBytes())
                .isInstanceOf(IntegrityException.class)
                .hasMessageContaining("flip")
                .hasMessageContaining(Sha256.hex(Sha256.of(content)));
        assertThat(store.get("flip").readAllBytes()).isEqualTo(content);
    }

    @Test
    void aBodyCorruptedOnTheWayUpIsRefusedAndNothingIsStored() {
        assumeThat(backend().has(Feature.VERIFIES_PAYLOAD_DIGEST))
                .as(
                        "%s does not check uploaded bytes against their signature or digest",
                        backend().name())
                .isTrue();
        // Past any aws-chunked framing (a chunk header is under 100 bytes), inside the content itself.
        http.flipRequestByteOnce(FaultInjectingHttpClient.request("PUT", q -> true), 2500);

        // Over plain HTTP the SDK signs each aws-chunked chunk, so S3 answers a corrupted chunk with 403
        // SignatureDoesNotMatch; with an unsigned payload the trailing checksum gives 400 BadDigest.
        assertThatThrownBy(() -> store.put("corrupt-upload", ObjectContent.ofBytes(pseudoRandom(7, 5000))))
                .isInstanceOfAny(IntegrityException.class, AccessDeniedException.class)
                .hasMessageContaining("corrupt-upload");
        assertThat(store.versions("corrupt-upload")).isEmpty();
    }

    @Test
    void aBadDigestAnswerIsTranslatedToAnIntegrityFailure() {
        assumeThat(backend().has(Feature.VERIFIES_PAYLOAD_DIGEST))
                .as(
                        "%s does not check uploaded bytes against their digest",
                        backend().name())
                .isTrue();

        // A server that refuses the body may reset the connection under its own answer (s3proxy does,
        // now and then), so the client sees no answer at all; the subject here is the translation of the
        // answer, so the refused PUT is sent again (it can never land) until an answer arrives.
        S3Exception refused = null;
        for (int attempt = 1; refused == null && attempt <= 5; attempt++) {
            Throwable thrown = Assertions.catchThrowable(() -> raw.putObject(
                    p -> p.bucket(bucket).key("md5").contentMD5("AAAAAAAAAAAAAAAAAAAAAA=="),
                    RequestBody.fromString("not the digest")));
            if (thrown instanceof S3Exception answered) {
                refused = answered;
            } else {
                assertThat(thrown)
                        .as("a PUT with a wrong Content-MD5 must not be stored")
                        .isInstanceOf(SdkClientException.class);
            }
        }

        assertThat(refused).as("an answer to the refused PUT within 5 tries").isNotNull();
        assertThat(refused.awsErrorDetails().errorCode()).isEqualTo("BadDigest");
        assertThat(S3Errors.translate("md5", "PUT of 'md5'", refused))
                .isInstanceOf(IntegrityException.class)
                .hasCause(refused)
                .hasMessageContaining("BadDigest");
    }

    @Test
    void aBrokenDownloadResumesPinnedToTheFirstVersionAndNeverStitches() throws IOException {
        byte[] v1 = pseudoRandom(8, (int) (3 * MIB));
        byte[] v2 = pseudoRandom(9, (int) (3 * MIB));
        ObjectVersion first = store.put("resume", ObjectContent.ofBytes(v1));
        http.cutResponseBodyOnce(FaultInjectingHttpClient.request("GET", q -> !q.contains("versions")), MIB);
        http.clearExchanges();

        byte[] got;
        try (ObjectRead read = store.get("resume");
                InputStream in = read.stream()) {
            byte[] start = in.readNBytes((int) (MIB / 2));
            store.put("resume", ObjectContent.ofBytes(v2));
            byte[] rest = in.readAllBytes();
            got = new byte[start.length + rest.length];
            System.arraycopy(start, 0, got, 0, start.length);
            System.arraycopy(rest, 0, got, start.length, rest.length);
        }

        assertThat(got).isEqualTo(v1);
        assertThat(resumes).as("resumes reported").hasValue(1);
        List<FaultInjectingHttpClient.Exchange> gets =
                http.exchanges().stream().filter(e -> e.method().equals("GET")).collect(Collectors.toList());
        assertThat(gets).hasSize(2);
        assertThat(gets.get(1).headers().firstValue("Range")).contains("bytes=" + MIB + "-" + (3 * MIB - 1));
        assertThat(URLDecoder.decode(gets.get(1).query(), StandardCharsets.UTF_8))
                .contains("versionId=" + first.versionId());
    }

    // ---------------------------------------------------------------- phantom versions

    @Test
    void aPutWhoseAnswerIsLostAfterItLandedLeavesExactlyOneVersion() {
        http.dropResponseOnce(FaultInjectingHttpClient.request("PUT", q -> true));
        http.clearExchanges();

        ObjectVersion v = store.put("once", ObjectContent.ofBytes("exactly once".getBytes(StandardCharsets.UTF_8)));

        assertThat(store.versions("once")).extracting(VersionEntry::versionId).containsExactly(v.versionId());
        assertThat(http.exchanges()).filteredOn(e -> e.method().equals("PUT")).hasSize(1);
        assertThat(store.get("once").readAllBytes()).isEqualTo("exactly once".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aLostMultipartCompletionIsRecognisedByItsToken() {
        http.dropResponseOnce(FaultInjectingHttpClient.request("POST", q -> q.contains("uploadId")));
        byte[] big = pseudoRandom(10, (int) (17 * MIB));

        ObjectVersion v = store.put("big-once", ObjectContent.ofBytes(big));

        assertThat(store.versions("big-once"))
                .extracting(VersionEntry::versionId)
                .containsExactly(v.versionId());
        assertThat(v.sha256()).isEqualTo(Sha256.hex(Sha256.of(big)));
    }

    @Test
    void aPartThatFailsAbortsTheUploadSoNoPartsAreOrphaned() {
        http.dropResponseOnce(FaultInjectingHttpClient.request("PUT", q -> q.contains("partNumber=2")));
        byte[] big = pseudoRandom(11, (int) (17 * MIB));

        assertThatThrownBy(() -> store.put("half-uploaded", ObjectContent.ofBytes(big)))
                .isInstanceOf(StorageUnavailableException.class)
                .hasMessageContaining("half-uploaded");

        assertThat(http.exchanges())
                .anyMatch(e -> e.method().equals("DELETE") && e.query().contains("uploadId"));
        assertNoIncompleteWrites();
        assertThat(store.versions("half-uploaded")).isEmpty();
    }

    @Test
    void uploadsOrphanedByAnEndpointThatDiedMidUploadAreSweptAway() {
        // What a put leaves when the endpoint dies after a part landed: its abort could not reach it either.
        String uploadId =
                raw.createMultipartUpload(c -> c.bucket(bucket).key("orphan")).uploadId();
        raw.uploadPart(
                u -> u.bucket(bucket)
                        .key("orphan")
                        .uploadId(uploadId)
                        .partNumber(1)
                        .contentLength(5L),
                RequestBody.fromBytes(new byte[5]));
        assertThat(raw.listMultipartUploads(l -> l.bucket(bucket)).uploads()).hasSize(1);

        assertThat(s3Store().abortIncompleteUploads(Instant.now().minus(Duration.ofHours(1))))
                .as("too young to sweep")
                .isZero();
        assertThat(s3Store().abortIncompleteUploads(Instant.now().plus(Duration.ofHours(1))))
                .isEqualTo(1);

        assertNoIncompleteWrites();
        assertThat(store.versions("orphan")).isEmpty();
    }

    // ---------------------------------------------------------------- stale reads

    @Test
    void aReadOlderThanAVersionAlreadySeenIsRetriedThenRaisedOrMarkedStale() {
        ObjectVersion old = store.put("stale", ObjectContent.ofBytes("old".getBytes(StandardCharsets.UTF_8)));
        ObjectVersion newer = store.put("stale", ObjectContent.ofBytes("new".getBytes(StandardCharsets.UTF_8)));
        // A lagging replica: the store now serves the older version again.
        raw.deleteObject(d -> d.bucket(bucket).key("stale").versionId(newer.versionId()));
        http.clearExchanges();

        assertThatThrownBy(() -> store.get("stale")).isInstanceOfSatisfying(StaleReadException.class, e -> {
            assertThat(e.expectedGeneration()).isEqualTo(newer.generation());
            assertThat(e.observedGeneration()).isEqualTo(old.generation());
        });
        assertThat(http.exchanges()).filteredOn(e -> e.method().equals("GET")).hasSize(3);
        assertThat(pauses).hasSize(2);

        try (ObjectRead read = store.get("stale", ReadOptions.latest().withAcceptStale(true))) {
            assertThat(read.freshness()).isEqualTo(Freshness.STALE);
            assertThat(read.readAllBytes()).isEqualTo("old".getBytes(StandardCharsets.UTF_8));
        }
    }

    // ---------------------------------------------------------------- errors

    @Test
    void aWrongSecretKeyIsAClearAccessDeniedError() {
        assumeThat(backend().has(Feature.VERIFIES_SIGNATURES))
                .as("%s accepts any signature", backend().name())
                .isTrue();

        assertThatThrownBy(() -> S3ObjectStore.open(
                        backend().endpoint(backend().newHttpClient(), "not-the-secret"),
                        bucket,
                        S3StoreConfig.ofDefaults()))
                .isInstanceOf(AccessDeniedException.class)
                .hasMessageContaining("403")
                .hasMessageContaining("secret key")
                .satisfies(
                        e -> assertThat(((AccessDeniedException) e).retryable()).isFalse());
    }
}
