package dev.ballast.backup.pack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChunkerTest {
    private static final int MIB = 1024 * 1024;

    private static byte[] random(long seed, int length) {
        byte[] b = new byte[length];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    private static List<Integer> lengths(Chunker chunker, byte[] data) throws IOException {
        List<Integer> out = new ArrayList<>();
        chunker.chunk(new ByteArrayInputStream(data), (buf, off, len) -> out.add(len));
        return out;
    }

    private static Set<String> chunkHashes(Chunker chunker, byte[] data) throws IOException {
        Set<String> out = new HashSet<>();
        chunker.chunk(new ByteArrayInputStream(data), (buf, off, len) -> out.add(sha(buf, off, len)));
        return out;
    }

    private static List<String> chunkList(Chunker chunker, InputStream in) throws IOException {
        List<String> out = new ArrayList<>();
        chunker.chunk(in, (buf, off, len) -> out.add(sha(buf, off, len)));
        return out;
    }

    private static String sha(byte[] buf, int off, int len) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update(buf, off, len);
            return HexFormat.of().formatHex(d.digest());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void chunksConcatenateToTheInputAndKeepTheSizeBounds() throws IOException {
        byte[] data = random(1, 40 * MIB + 12345);
        ByteArrayOutputStream joined = new ByteArrayOutputStream();
        List<Integer> lengths = new ArrayList<>();
        new Chunker(42).chunk(new ByteArrayInputStream(data), (buf, off, len) -> {
            joined.write(buf, off, len);
            lengths.add(len);
        });
        assertThat(joined.toByteArray()).isEqualTo(data);
        for (int i = 0; i < lengths.size() - 1; i++) {
            assertThat(lengths.get(i)).isBetween(Chunker.MIN_SIZE, Chunker.MAX_SIZE);
        }
        assertThat(lengths.get(lengths.size() - 1)).isBetween(1, Chunker.MAX_SIZE);
    }

    @Test
    void randomDataAveragesAboutOneMebibyte() throws IOException {
        byte[] data = random(2, 64 * MIB);
        List<Integer> lengths = lengths(new Chunker(7), data);
        double mean = (double) data.length / lengths.size();
        assertThat(mean).isBetween(0.75 * MIB, 1.35 * MIB);
    }

    @Test
    void boundariesAreDeterministicPerSeedAndDifferAcrossSeeds() throws IOException {
        byte[] data = random(3, 24 * MIB);
        assertThat(lengths(new Chunker(11), data)).isEqualTo(lengths(new Chunker(11), data));
        assertThat(lengths(new Chunker(11), data)).isNotEqualTo(lengths(new Chunker(12), data));
    }

    @Test
    void streamsChannelsAndShortReadsCutAlike() throws IOException, Exception {
        byte[] data = random(4, 20 * MIB + 7);
        Chunker chunker = new Chunker(5);
        List<String> whole = chunkList(chunker, new ByteArrayInputStream(data));
        // a stream that hands out at most 1000 bytes a read
        InputStream trickle = new ByteArrayInputStream(data) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, 1000));
            }
        };
        assertThat(chunkList(chunker, trickle)).isEqualTo(whole);
        List<String> viaChannel = new ArrayList<>();
        chunker.chunk(
                Channels.newChannel(new ByteArrayInputStream(data)),
                (buf, off, len) -> viaChannel.add(sha(buf, off, len)));
        assertThat(viaChannel).isEqualTo(whole);
    }

    @Test
    void readsAFileChannel(@TempDir Path dir) throws IOException {
        byte[] data = random(6, 9 * MIB);
        Path file = dir.resolve("f");
        Files.write(file, data);
        List<String> viaFile = new ArrayList<>();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            new Chunker(9).chunk(ch, (buf, off, len) -> viaFile.add(sha(buf, off, len)));
        }
        assertThat(viaFile).isEqualTo(chunkList(new Chunker(9), new ByteArrayInputStream(data)));
    }

    @Test
    void smallAndEmptyInputs() throws IOException {
        assertThat(lengths(new Chunker(1), new byte[0])).isEmpty();
        assertThat(lengths(new Chunker(1), random(1, 1))).containsExactly(1);
        assertThat(lengths(new Chunker(1), random(1, Chunker.MIN_SIZE))).containsExactly(Chunker.MIN_SIZE);
    }

    @Test
    void zeroesAreCutAtTheMaximum() throws IOException {
        // a run of one byte value never satisfies the mask (gear hash of a constant stays constant)
        List<Integer> lengths = lengths(new Chunker(3), new byte[20 * MIB]);
        assertThat(lengths).allSatisfy(l -> assertThat(l).isLessThanOrEqualTo(Chunker.MAX_SIZE));
        assertThat(lengths.stream().mapToInt(Integer::intValue).sum()).isEqualTo(20 * MIB);
    }

    /**
     * The field case at a quarter of its scale: a disk image with ten scattered 4 KiB changes
     * stores again about two chunks per change, not the whole file.
     */
    @Test
    void tenScatteredFourKibChangesStoreAboutTwoChunksEach() throws IOException {
        byte[] before = random(8, 64 * MIB);
        byte[] after = before.clone();
        SplittableRandom where = new SplittableRandom(99);
        for (int i = 0; i < 10; i++) {
            int at = i * (after.length / 10) + where.nextInt(after.length / 10 - 4096);
            byte[] change = random(100 + i, 4096);
            System.arraycopy(change, 0, after, at, 4096);
        }
        Chunker chunker = new Chunker(77);
        Set<String> old = chunkHashes(chunker, before);
        List<Integer> newLengths = new ArrayList<>();
        long[] newBytes = {0};
        chunker.chunk(new ByteArrayInputStream(after), (buf, off, len) -> {
            if (!old.contains(sha(buf, off, len))) {
                newLengths.add(len);
                newBytes[0] += len;
            }
        });
        assertThat(newLengths.size()).isLessThanOrEqualTo(20);
        assertThat(newBytes[0]).isLessThan(64L * MIB / 2);
    }

    @Test
    void insertedBytesChangeOnlyTheChunksAroundThem() throws IOException {
        byte[] before = random(10, 32 * MIB);
        ByteArrayOutputStream shifted = new ByteArrayOutputStream();
        int[] cuts = {5 * MIB + 17, 17 * MIB + 3, 29 * MIB};
        int from = 0;
        for (int c : cuts) {
            shifted.write(before, from, c - from);
            shifted.write(random(c, 333), 0, 333);
            from = c;
        }
        shifted.write(before, from, before.length - from);
        Chunker chunker = new Chunker(13);
        Set<String> old = chunkHashes(chunker, before);
        long fresh = chunkHashes(chunker, shifted.toByteArray()).stream()
                .filter(h -> !old.contains(h))
                .count();
        assertThat(fresh).isLessThanOrEqualTo(2L * cuts.length);
    }

    /** The lengths {@link Chunker#cut} gives when the whole input is in one array. */
    private static List<Integer> cutWhole(Chunker chunker, byte[] data) {
        List<Integer> out = new ArrayList<>();
        for (int pos = 0; pos < data.length; ) {
            int len = chunker.cut(data, pos, data.length - pos);
            out.add(len);
            pos += len;
        }
        return out;
    }

    @Test
    void aSmallFileIsReadIntoASmallBufferAndAReusedChunkerCutsBigInputsAsAFreshOne() throws IOException {
        Chunker reused = new Chunker(7);
        assertThat(lengths(reused, random(1, 3 * 1024))).containsExactly(3 * 1024);
        assertThat(reused.bufferLength()).isEqualTo(Chunker.FIRST_BUFFER);

        for (int size : new int[] {Chunker.FIRST_BUFFER + 1, 9 * MIB, 37 * MIB + 123, 5 * 1024}) {
            byte[] data = random(size, size);
            assertThat(lengths(reused, data)).as("%d bytes", size).isEqualTo(cutWhole(new Chunker(7), data));
            // Short reads (a pipe, a socket) too.
            InputStream trickle = new ByteArrayInputStream(data) {
                @Override
                public synchronized int read(byte[] b, int off, int len) {
                    return super.read(b, off, Math.min(len, 1000));
                }
            };
            List<Integer> trickled = new ArrayList<>();
            new Chunker(7).chunk(trickle, (buf, off, len) -> trickled.add(len));
            assertThat(trickled).isEqualTo(cutWhole(new Chunker(7), data));
        }
        assertThat(reused.bufferLength()).isEqualTo(2 * Chunker.MAX_SIZE);
    }

    @Test
    void refusesImpossibleSizes() {
        assertThatThrownBy(() -> new Chunker(1, 100, 1000, 5000))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1000");
        assertThatThrownBy(() -> new Chunker(1, 4096, 2048, 8192)).isInstanceOf(IllegalArgumentException.class);
    }
}
