package dev.ballast.backup.restore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.content.PackedContent;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PackedRestoreTest {
    private static final Instant MTIME = Instant.parse("2026-12-01T10:00:00Z");
    private static final String SHA = "0".repeat(64);

    private static ManifestEntry file(String path, String... chunks) {
        return new ManifestEntry(path, 1, SHA, "", MTIME, null, null, null, List.of(chunks));
    }

    @Test
    void filesAreWrittenInTheOrderTheirChunksAreStoredNotByPath() {
        // Stored in the order a backup's walk met them (c, a, d in pack p1; b in p0), not by path.
        String a = "a".repeat(64);
        String b = "b".repeat(64);
        String c = "c".repeat(64);
        String d = "d".repeat(64);
        String missing = "e".repeat(64);
        Manifest m = new Manifest(
                3,
                "n",
                MTIME,
                true,
                List.of(
                        file("a.txt", a),
                        file("b.txt", b),
                        file("c.txt", c, a),
                        file("d.txt", d),
                        file("empty.txt"),
                        file("lost.txt", missing)),
                List.of());
        Map<String, PackedContent.StoredAt> where = Map.of(
                a, new PackedContent.StoredAt("p1", 5_000),
                b, new PackedContent.StoredAt("p0", 90_000),
                c, new PackedContent.StoredAt("p1", 0),
                d, new PackedContent.StoredAt("p1", 70_000));

        int[] order = PackedRestore.writeOrder(chunks -> chunks.isEmpty() ? null : where.get(chunks.get(0)), m);

        // p0 before p1, by offset within a pack; a file with no chunk, or one not found, after them
        // in the manifest's order.
        assertThat(order).containsExactly(1, 2, 0, 3, 4, 5);
    }

    @Test
    void wholeBlocksOfZerosOfTheFileAreLeftUnwrittenWhereverTheChunkStarts(@TempDir Path dir) throws IOException {
        int block = PackedRestore.SPARSE_BLOCK;
        long position = 3 * block + 1000; // a chunk starting inside a block of the file
        byte[] chunk = new byte[4 * block];
        java.util.Arrays.fill(chunk, 0, 100, (byte) 7); // data at the start
        chunk[chunk.length - 1] = 9; // and at the end; zeros between
        // The file as it was: 0xFF everywhere, so what was written shows.
        byte[] before = new byte[(int) position + chunk.length];
        java.util.Arrays.fill(before, (byte) 0xFF);
        Path file = Files.write(dir.resolve("f"), before);

        try (FileChannel out = FileChannel.open(file, StandardOpenOption.WRITE)) {
            assertThat(PackedRestore.writeSparse(out, position, chunk, chunk.length))
                    .as("where the last byte written ends")
                    .isEqualTo(position + chunk.length);
        }

        byte[] after = Files.readAllBytes(file);
        for (int i = 0; i < after.length; i++) {
            long at = i;
            boolean inChunk = at >= position;
            long blockStart = at / block * block;
            boolean wholeZeroBlock = inChunk
                    && blockStart >= position
                    && blockStart + block <= position + chunk.length - 1; // the last byte is 9
            byte expected = !inChunk || wholeZeroBlock ? (byte) 0xFF : chunk[(int) (at - position)];
            if (after[i] != expected) {
                throw new AssertionError("byte " + i + " is " + after[i] + ", expected " + expected);
            }
        }
        // Blocks 4 to 6 of the file lie wholly inside the run of zeros: left as they were.
        assertThat(after[4 * block]).isEqualTo((byte) 0xFF);
        assertThat(after[7 * block - 1]).isEqualTo((byte) 0xFF);
        // The zeros of the partial blocks at the chunk's edges are written.
        assertThat(after[(int) position + 100]).isZero();
        assertThat(after[7 * block]).isZero();
    }

    @Test
    void aChunkEndingInWholeBlocksOfZerosReportsWhereItsLastWrittenByteEnds(@TempDir Path dir) throws IOException {
        int block = PackedRestore.SPARSE_BLOCK;
        byte[] chunk = new byte[3 * block]; // data in the first block only, then two blocks of zeros
        java.util.Arrays.fill(chunk, 0, 10, (byte) 5);
        Path file = dir.resolve("f");

        long end;
        try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            end = PackedRestore.writeSparse(out, block, chunk, chunk.length);
        }

        assertThat(end).isEqualTo(2L * block); // the first block of the chunk, written whole
        assertThat(Files.size(file)).isEqualTo(end);
    }

    @Test
    void transferThreadsEachTakeAStretchOfTheStoredOrderOfTheirOwnInTurn() {
        int[] order = {10, 11, 12, 13, 14, 15, 16, 17, 18, 19};
        // Four threads: stretches 10-12, 13-15, 16-18, 19; each thread's next file is from its own stretch.
        assertThat(PackedRestore.interleave(order, 4)).containsExactly(10, 13, 16, 19, 11, 14, 17, 12, 15, 18);
        assertThat(PackedRestore.interleave(order, 1)).containsExactly(order);
        assertThat(PackedRestore.interleave(new int[] {3, 1}, 4)).containsExactly(3, 1);
        int[] many = new int[1001];
        for (int i = 0; i < many.length; i++) {
            many[i] = i;
        }
        assertThat(PackedRestore.interleave(many, 3)).containsExactlyInAnyOrder(many);
    }
}
