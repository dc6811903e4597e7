package dev.ballast.storage.block;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.storage.ChildJvm;
import dev.ballast.storage.VolumeInUseException;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(60)
@ExtendWith(LeakCheck.class)
class BlockVolumeTest {

    @TempDir
    Path root;

    @Test
    void writeAtOffsetReplacesOnlyThoseBytes() {
        try (BlockVolume volume = BlockVolume.open(root, "disk")) {
            volume.write(0, ascii("ABCDEF"));
            ByteBuffer xx = ascii("XX");
            assertThat(volume.write(2, xx)).isEqualTo(2);
            assertThat(xx.hasRemaining()).isFalse();
            assertThat(text(volume.read(0, 100))).isEqualTo("ABXXEF");
            assertThat(volume.size()).isEqualTo(6);
        }
    }

    @Test
    void readReturnsOnlyTheBytesPresent() {
        try (BlockVolume volume = BlockVolume.open(root, "disk")) {
            volume.write(0, ascii("ABCDEF"));
            assertThat(text(volume.read(4, 10))).isEqualTo("EF");
            assertThat(volume.read(6, 10).remaining()).isZero();
            assertThat(volume.read(100, 10).remaining()).isZero();
            assertThat(text(volume.read(1, 3))).isEqualTo("BCD");
        }
    }

    @Test
    void writingPastTheEndFillsTheGapWithZeros() {
        try (BlockVolume volume = BlockVolume.open(root, "disk")) {
            volume.write(0, ascii("AB"));
            volume.write(4, ascii("C"));
            ByteBuffer all = volume.read(0, 10);
            assertThat(all.remaining()).isEqualTo(5);
            assertThat(new byte[] {all.get(0), all.get(1), all.get(2), all.get(3), all.get(4)})
                    .containsExactly('A', 'B', 0, 0, 'C');
        }
    }

    @Test
    void truncateShrinksButNeverGrows() {
        try (BlockVolume volume = BlockVolume.open(root, "disk")) {
            volume.write(0, ascii("ABCDEF"));
            volume.truncate(3);
            assertThat(text(volume.read(0, 10))).isEqualTo("ABC");
            volume.truncate(10);
            assertThat(volume.size()).isEqualTo(3);
        }
    }

    @Test
    void forcedBytesAreOnDiskAfterClose() throws IOException {
        try (BlockVolume volume = BlockVolume.open(root, "fresh")) {
            volume.write(0, ascii("durable"));
            volume.force(); // file and, because the volume created it, the directory
            volume.force();
        }
        assertThat(Files.readString(root.resolve("fresh"), US_ASCII)).isEqualTo("durable");
        try (BlockVolume reopened = BlockVolume.open(root, "fresh")) {
            reopened.write(0, ascii("D"));
            reopened.force(); // existing file: no directory step needed
            assertThat(text(reopened.read(0, 7))).isEqualTo("Durable");
        }
    }

    @Test
    void secondWriterInTheSameJvmIsRefusedUntilTheFirstCloses() throws IOException {
        Files.createDirectory(root.resolve("sub"));
        BlockVolume first = BlockVolume.open(root, "shared");
        assertThatThrownBy(() -> BlockVolume.open(root, "shared"))
                .isInstanceOf(VolumeInUseException.class)
                .hasMessageContaining("'shared'")
                .satisfies(e -> assertThat(((VolumeInUseException) e).volume()).isEqualTo("shared"));
        // the same file through another spelling of the root is the same volume
        assertThatThrownBy(
                        () -> BlockVolume.open(root.resolve(".").resolve("sub").resolve(".."), "shared"))
                .isInstanceOf(VolumeInUseException.class);
        first.close();
        try (BlockVolume second = BlockVolume.open(root, "shared")) {
            assertThat(second.isOpen()).isTrue();
        }
    }

    @Test
    void secondWriterInAnotherProcessIsRefused() throws Exception {
        Process holder = ChildJvm.start(VolumeLockHolder.class, root.toString(), "cross");
        try {
            String line = ChildJvm.firstLine(holder, 30);
            assertThat(line).isEqualTo("LOCKED cross");

            assertThatThrownBy(() -> BlockVolume.open(root, "cross"))
                    .isInstanceOf(VolumeInUseException.class)
                    .hasMessageContaining("'cross'");

            holder.getOutputStream().close();
            assertThat(holder.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(holder.exitValue()).isZero();
            try (BlockVolume mine = BlockVolume.open(root, "cross")) {
                assertThat(mine.isOpen()).isTrue();
            }
        } finally {
            holder.destroyForcibly();
        }
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "../x",
                "/etc/x",
                "a/b",
                "a\\b",
                "",
                ".",
                "..",
                "bad\u0000name",
                "tab\tname",
                "del\u007f",
                "what?",
                "trailing.",
                " lead"
            })
    void invalidNamesAreRefusedWithoutTouchingTheDisk(String name) throws IOException {
        Path notYetThere = root.resolve("volumes");
        assertThatThrownBy(() -> BlockVolume.open(notYetThere, name))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Invalid block volume name");
        assertThat(notYetThere).doesNotExist();
        try (Stream<Path> left = Files.list(root)) {
            assertThat(left).isEmpty();
        }
    }

    @Test
    void aSymbolicLinkUnderTheRootIsNeverFollowed() throws IOException {
        Path outside = Files.writeString(Files.createTempFile("outside", ".txt"), "untouched", US_ASCII);
        try {
            Files.createSymbolicLink(root.resolve("link"), outside);
            assertThatThrownBy(() -> BlockVolume.open(root, "link"))
                    .isInstanceOf(java.io.UncheckedIOException.class)
                    .hasMessageContaining("'link'");
            assertThat(Files.readString(outside, US_ASCII)).isEqualTo("untouched");
            Files.delete(root.resolve("link"));
            try (BlockVolume retry = BlockVolume.open(root, "link")) {
                assertThat(retry.isOpen()).isTrue(); // the failed open left no registration behind
                assertThat(Files.isSymbolicLink(root.resolve("link"))).isFalse();
            }
        } finally {
            Files.deleteIfExists(outside);
        }
    }

    @Test
    void namesAreBoundedInUtf8Bytes() {
        assertThat(VolumeNames.validate("a".repeat(255))).hasSize(255);
        assertThatThrownBy(() -> VolumeNames.validate("a".repeat(256)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("256 UTF-8 bytes");
        // 128 two-byte characters: 256 bytes although only 128 chars
        assertThatThrownBy(() -> VolumeNames.validate("\u00e9".repeat(128)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> VolumeNames.validate("x\ud800"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unpaired surrogate");
        assertThatThrownBy(() -> VolumeNames.validate(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("name");
    }

    @Test
    void concurrentWritesAtDisjointOffsetsAllLand() throws Exception {
        int threads = 8;
        int chunk = 64 * 1024;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (BlockVolume volume = BlockVolume.open(root, "parallel")) {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Integer>> writes = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                byte fill = (byte) ('a' + t);
                long offset = (long) t * chunk;
                writes.add(pool.submit(() -> {
                    byte[] bytes = new byte[chunk];
                    java.util.Arrays.fill(bytes, fill);
                    start.await();
                    return volume.write(offset, ByteBuffer.wrap(bytes));
                }));
            }
            start.countDown();
            for (Future<Integer> write : writes) {
                assertThat(write.get(30, TimeUnit.SECONDS)).isEqualTo(chunk);
            }
            assertThat(volume.size()).isEqualTo((long) threads * chunk);
            for (int t = 0; t < threads; t++) {
                ByteBuffer region = volume.read((long) t * chunk, chunk);
                assertThat(region.remaining()).isEqualTo(chunk);
                while (region.hasRemaining()) {
                    assertThat(region.get()).isEqualTo((byte) ('a' + t));
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void closedVolumeRefusesUseAndBadArgumentsAreNamed() {
        BlockVolume volume = BlockVolume.open(root, "disk");
        assertThatThrownBy(() -> volume.write(-1, ascii("A")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("offset must be >= 0 but was -1");
        assertThatThrownBy(() -> volume.read(0, -2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("length must be >= 0 but was -2");
        assertThatThrownBy(() -> volume.write(Long.MAX_VALUE - 1, ascii("ABCD")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("offset + length must be <= " + Long.MAX_VALUE);
        assertThatThrownBy(() -> volume.write(Long.MAX_VALUE / 2, ascii("A")))
                .as("beyond the file system's largest file")
                .isInstanceOf(java.io.UncheckedIOException.class)
                .hasMessageContaining("'disk'");
        assertThat(volume.size()).isZero();
        assertThat(volume.read(Long.MAX_VALUE, 10).remaining()).isZero();
        volume.close();
        volume.close();
        assertThatThrownBy(() -> volume.write(0, ascii("A")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("Block volume 'disk' is closed");
        assertThatThrownBy(() -> volume.read(0, 1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("Block volume 'disk' is closed");
    }

    private static ByteBuffer ascii(String s) {
        return ByteBuffer.wrap(s.getBytes(US_ASCII));
    }

    private static String text(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return new String(bytes, US_ASCII);
    }
}
