package dev.ballast.backup.content;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.backup.keys.MasterKey;
import dev.ballast.backup.pack.Chunker;
import dev.ballast.test.FakeObjectStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link PackedBlobs#store}: what a stored file comes to when its large chunks are hashed and added on
 * other threads ({@link ChunkAdder}) and its small ones on the caller's.
 */
class PackedBlobsStoreTest {
    @TempDir
    Path dir;

    private final FakeObjectStore store = new FakeObjectStore();
    private final MasterKey key = MasterKey.generate();

    private static byte[] random(long seed, int length) {
        byte[] b = new byte[length];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    /** The chunk IDs of {@code data} as the repository cuts and names them, one at a time, in order. */
    private List<String> expectedIds(byte[] data) throws IOException {
        List<String> ids = new ArrayList<>();
        new Chunker(key.chunkerSeed())
                .chunk(
                        new java.io.ByteArrayInputStream(data),
                        (buf, off, len) -> ids.add(HexFormat.of().formatHex(key.id(buf, off, len))));
        return ids;
    }

    @Test
    void aLargeFileWithRepeatedChunksListsThemInOrderAndStoresEachOnce() throws Exception {
        // 12 MiB of random bytes, then the same 12 MiB again, then a short tail: the second half's
        // chunks repeat the first half's, and are hashed on the adder's threads at the same time.
        byte[] half = random(1, 12 * 1024 * 1024);
        byte[] data = new byte[2 * half.length + 1000];
        System.arraycopy(half, 0, data, 0, half.length);
        System.arraycopy(half, 0, data, half.length, half.length);
        System.arraycopy(random(2, 1000), 0, data, 2 * half.length, 1000);
        Path file = Files.write(dir.resolve("disk.img"), data);

        try (PackedBlobs blobs = PackedBlobs.open(store, key, 2)) {
            AtomicLong read = new AtomicLong();
            PackedContent.Stored s = blobs.store(file, read::addAndGet, () -> false);

            List<String> expected = expectedIds(data);
            assertThat(s.chunks()).isEqualTo(expected);
            assertThat(s.size()).isEqualTo(data.length);
            assertThat(read.get()).isEqualTo(data.length);
            assertThat(s.sha256())
                    .isEqualTo(HexFormat.of()
                            .formatHex(MessageDigest.getInstance("SHA-256").digest(data)));
            // Each distinct chunk counted once: what dedup did not find.
            long distinct = 0;
            java.util.Set<String> seen = new java.util.HashSet<>();
            List<Integer> lengths = new ArrayList<>();
            new Chunker(key.chunkerSeed())
                    .chunk(new java.io.ByteArrayInputStream(data), (buf, off, len) -> lengths.add(len));
            for (int i = 0; i < expected.size(); i++) {
                if (seen.add(expected.get(i))) {
                    distinct += lengths.get(i);
                }
            }
            assertThat(s.bytesAdded()).isEqualTo(distinct).isLessThan(data.length);

            // The same file again: nothing new.
            assertThat(blobs.store(file, n -> {}, () -> false).bytesAdded()).isZero();
            blobs.flush();
            assertThat(blobs.indexedAll(s.chunks())).isTrue();
            try (InputStream in = blobs.open(s.chunks())) {
                assertThat(in.readAllBytes()).isEqualTo(data);
            }
        }
    }

    @Test
    void aStopWhileReadingAbandonsTheFileAndAClosedRepositoryFailsTheNextOne() throws Exception {
        Path file = Files.write(dir.resolve("big.bin"), random(3, 20 * 1024 * 1024));
        PackedBlobs blobs = PackedBlobs.open(store, key, 2);
        try {
            int[] calls = {0};
            assertThatThrownBy(() -> blobs.store(file, n -> {}, () -> ++calls[0] > 3))
                    .isInstanceOf(InterruptedIOException.class)
                    .hasMessageContaining("stopped while");
        } finally {
            blobs.close();
        }
        assertThatThrownBy(() -> blobs.store(file, n -> {}, () -> false)).isInstanceOf(RuntimeException.class);
    }
}
