package dev.ballast.backup.content;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.backup.keys.KdfParameters;
import dev.ballast.backup.keys.KeyFiles;
import dev.ballast.backup.keys.MasterKey;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.VersionEntry;
import dev.ballast.storage.object.local.LocalObjectStore;
import dev.ballast.testkit.LeakCheck;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link PackedContent#writeTo}, what a restore writes files with: every chunk handed on at its place
 * (the same bytes {@link PackedContent#open} streams), a chunk listed twice at both places, and a
 * damaged or unknown chunk refused with the exception naming it.
 */
@ExtendWith(LeakCheck.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ChunkPlacementTest {
    @TempDir
    Path dir;

    private LocalObjectStore store;
    private PackedBlobs blobs;

    @BeforeEach
    void open() {
        store = LocalObjectStore.open(dir.resolve("store"));
        MasterKey key = KeyFiles.create()
                .withKdf(new KdfParameters(1024, 1, 1))
                .init(store, "test password".toCharArray())
                .masterKey();
        blobs = PackedBlobs.open(store, key, 4);
    }

    @AfterEach
    void close() {
        blobs.close();
        store.close();
    }

    private List<String> stored(String name, byte[] content) throws IOException {
        Path file = dir.resolve(name);
        Files.write(file, content);
        List<String> chunks = blobs.store(file, n -> {}, () -> false).chunks();
        blobs.flush();
        return chunks;
    }

    /** The file {@code writeTo} hands on, assembled from what the sink got at each position. */
    private byte[] placed(List<String> chunks, AtomicInteger calls) throws IOException {
        byte[][] file = new byte[1][];
        long length = blobs.writeTo(chunks, (position, plain, n) -> {
            calls.incrementAndGet();
            synchronized (file) {
                if (file[0] == null) {
                    file[0] = new byte[0];
                }
                if (file[0].length < position + n) {
                    file[0] = java.util.Arrays.copyOf(file[0], (int) (position + n));
                }
                System.arraycopy(plain, 0, file[0], (int) position, n);
            }
        });
        byte[] out = file[0] == null ? new byte[0] : file[0];
        assertThat((long) out.length).as("the length writeTo returns").isEqualTo(length);
        return out;
    }

    private byte[] streamed(List<String> chunks) throws IOException {
        try (InputStream in = blobs.open(chunks)) {
            return in.readAllBytes();
        }
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void everyChunkIsHandedOnAtItsPlaceAndMakesTheBytesTheStreamReads() throws IOException {
        byte[] content = random(5 * 1024 * 1024 + 123, 1);
        List<String> chunks = stored("big.bin", content);
        assertThat(chunks).as("a file of several chunks").hasSizeGreaterThan(2);

        AtomicInteger calls = new AtomicInteger();
        assertThat(placed(chunks, calls)).isEqualTo(content).isEqualTo(streamed(chunks));
        assertThat(calls.get()).isEqualTo(chunks.size());
    }

    @Test
    void aChunkListedTwiceIsHandedOnAtBothPlaces() throws IOException {
        List<String> a = stored("a.bin", random(300_000, 2));
        List<String> b = stored("b.bin", random(200_000, 3));
        List<String> twice = new ArrayList<>(a);
        twice.addAll(b);
        twice.addAll(a);

        AtomicInteger calls = new AtomicInteger();
        byte[] expected = streamed(twice);
        assertThat(expected).hasSize(800_000);
        assertThat(placed(twice, calls)).isEqualTo(expected);
        assertThat(calls.get()).isEqualTo(twice.size());
    }

    @Test
    void anEmptyListHandsNothingOn() throws IOException {
        AtomicInteger calls = new AtomicInteger();
        assertThat(placed(List.of(), calls)).isEmpty();
        assertThat(calls.get()).isZero();
    }

    @Test
    void aChunkTheIndexLacksIsRefusedBeforeAnythingIsHandedOn() throws IOException {
        List<String> chunks = new ArrayList<>(stored("a.bin", random(300_000, 4)));
        chunks.add("ab".repeat(32));
        AtomicInteger calls = new AtomicInteger();

        assertThatThrownBy(() -> placed(chunks, calls))
                .isInstanceOf(ObjectNotFoundException.class)
                .hasMessageContaining("ab".repeat(32));
        assertThat(calls.get()).isZero();
    }

    @Test
    void aDamagedChunkIsRefusedNamingItsPack() throws IOException {
        List<String> chunks = stored("big.bin", random(3 * 1024 * 1024, 5));
        // The chunks of 256 KiB and more are in one pack; a shorter last chunk (where the chunker's keyed
        // cuts put one) is in the pack of small blobs (PackWriter's lanes): damage the larger pack.
        List<VersionEntry> packs = store.listVersions("data/");
        assertThat(packs).hasSizeBetween(1, 2);
        VersionEntry pack = packs.stream()
                .max(java.util.Comparator.comparingLong(VersionEntry::size))
                .orElseThrow();
        byte[] bytes;
        try (ObjectRead r =
                store.get(pack.key(), ReadOptions.version(pack.versionId()).withAllowCache(false))) {
            bytes = r.readAllBytes();
        }
        bytes[bytes.length / 2] ^= 0x01; // inside a blob in the middle of the pack
        store.put(pack.key(), ObjectContent.ofBytes(bytes));

        ByteArrayOutputStream ignored = new ByteArrayOutputStream();
        assertThatThrownBy(() -> blobs.writeTo(chunks, (position, plain, n) -> ignored.write(plain, 0, n)))
                .isInstanceOf(IntegrityException.class)
                .hasMessageContaining(pack.key().substring(pack.key().lastIndexOf('/') + 1));
    }

    @Test
    void theInterfacesOwnWriteToHandsOnTheStreamsBytesAtTheirPlaces() throws Exception {
        byte[] content = random(2 * 1024 * 1024 + 77, 6);
        List<String> chunks = stored("big.bin", content);
        // A PackedContent with only open(): writeTo is the interface's default, over that stream.
        PackedContent streamOnly = (PackedContent) java.lang.reflect.Proxy.newProxyInstance(
                PackedContent.class.getClassLoader(), new Class<?>[] {PackedContent.class}, (proxy, method, args) -> {
                    if (method.getName().equals("open")) {
                        return blobs.open(chunks);
                    }
                    if (method.isDefault()) {
                        return java.lang.reflect.InvocationHandler.invokeDefault(proxy, method, args);
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        byte[] file = new byte[content.length];
        long length =
                streamOnly.writeTo(chunks, (position, plain, n) -> System.arraycopy(plain, 0, file, (int) position, n));

        assertThat(length).isEqualTo(content.length);
        assertThat(file).isEqualTo(content);
    }
}
