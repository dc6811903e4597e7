package dev.ballast.storage.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.storage.object.ObjectContent;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 20, unit = TimeUnit.SECONDS)
class PayloadTest {
    @TempDir
    Path dir;

    private static byte[] bytes(int n) {
        byte[] b = new byte[n];
        new SplittableRandom(n).nextBytes(b);
        return b;
    }

    @Test
    void aLargeStreamIsReadOnceSpooledAndItsRegionsReReadFromTheSpoolFile() throws IOException {
        byte[] data = bytes(3 * 1024 * 1024 + 5);
        AtomicInteger streamReads = new AtomicInteger();
        InputStream once = new ByteArrayInputStream(data) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                streamReads.incrementAndGet();
                return super.read(b, off, len);
            }
        };

        try (Payload p = Payload.prepare(ObjectContent.ofStream(once, data.length), dir)) {
            int readsAfterSpooling = streamReads.get();
            assertThat(p.spooled()).isTrue();
            assertThat(p.sha256Hex()).isEqualTo(Sha256.hex(Sha256.of(data)));
            try (InputStream first = p.open(1024 * 1024, 1024 * 1024);
                    InputStream again = p.open(1024 * 1024, 1024 * 1024)) {
                byte[] expected = Arrays.copyOfRange(data, 1024 * 1024, 2 * 1024 * 1024);
                assertThat(first.readAllBytes()).isEqualTo(expected);
                assertThat(again.readAllBytes()).isEqualTo(expected);
            }
            assertThat(streamReads.get())
                    .as("the one-shot stream is never read again")
                    .isEqualTo(readsAfterSpooling);
            assertThat(Files.list(dir)).hasSize(1);
        }
        assertThat(Files.list(dir)).as("spool file deleted on close").isEmpty();
    }

    @Test
    void aStreamShorterThanDeclaredIsRejectedAndLeavesNoSpoolFile() throws IOException {
        byte[] data = bytes(2 * 1024 * 1024);
        assertThatThrownBy(() ->
                        Payload.prepare(ObjectContent.ofStream(new ByteArrayInputStream(data), data.length + 10L), dir))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("declared length of " + (data.length + 10L));
        assertThat(Files.list(dir)).isEmpty();
    }

    @Test
    void aSmallStreamStaysInMemoryAndFilesAreReadInPlace() throws IOException {
        byte[] data = bytes(1000);
        try (Payload p = Payload.prepare(ObjectContent.ofStream(new ByteArrayInputStream(data), data.length), dir)) {
            assertThat(p.spooled()).isFalse();
            assertThat(p.open(10, 20).readAllBytes()).isEqualTo(Arrays.copyOfRange(data, 10, 30));
        }
        Path file = dir.resolve("f");
        Files.write(file, data);
        try (Payload p = Payload.prepare(ObjectContent.ofFile(file), dir)) {
            assertThat(p.length()).isEqualTo(1000);
            assertThat(Sha256.hex(Sha256.of(p.open(0, 1000)))).isEqualTo(p.sha256Hex());
            assertThatThrownBy(() -> p.open(990, 20)).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(file).exists();
    }

    @Test
    void aFileThatChangedSizeSinceTheContentWasCreatedIsRejected() throws IOException {
        Path file = dir.resolve("g");
        Files.write(file, bytes(100));
        ObjectContent content = ObjectContent.ofFile(file);
        Files.write(file, bytes(50));
        assertThatThrownBy(() -> Payload.prepare(content, dir))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("still be 100 bytes");
    }

    @Test
    void aStreamWithMoreBytesThanDeclaredIsRefusedNotTruncatedAndLeavesNoSpoolFile() throws IOException {
        for (int declared : new int[] {10, 2 * Payload.IN_MEMORY_LIMIT}) {
            byte[] data = bytes(declared + 1);
            assertThatThrownBy(() ->
                            Payload.prepare(ObjectContent.ofStream(new ByteArrayInputStream(data), declared), dir))
                    .as("declared %d", declared)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("exactly its declared length of " + declared + " bytes but had more");
        }
        try (var left = Files.list(dir)) {
            assertThat(left).isEmpty();
        }
    }

    private static byte[] digest(String algorithm, byte[] data, int from, int to) throws Exception {
        java.security.MessageDigest d = java.security.MessageDigest.getInstance(algorithm);
        d.update(data, from, to - from);
        return d.digest();
    }

    @Test
    void oneReadComputesTheWholeSha256AndEachPartsMd5AndSha256() throws Exception {
        int partSize = 1000;
        byte[] data = bytes(2 * partSize + 17);
        Path file = Files.write(dir.resolve("parts"), data);

        try (Payload p = Payload.prepare(ObjectContent.ofFile(file), dir, new Payload.Digests(partSize, true, true))) {
            assertThat(p.partCount()).isEqualTo(3);
            assertThat(p.partSize()).isEqualTo(partSize);
            assertThat(p.sha256()).isEqualTo(digest("SHA-256", data, 0, data.length));
            for (int i = 0; i < 3; i++) {
                int from = i * partSize;
                int to = Math.min(data.length, from + partSize);
                assertThat(p.md5(i)).as("MD5 of part %d", i).isEqualTo(digest("MD5", data, from, to));
                assertThat(p.sha256(i)).as("SHA-256 of part %d", i).isEqualTo(digest("SHA-256", data, from, to));
            }
        }
    }

    @Test
    void contentOfOnePartHasItsWholeDigestsAsThePartsAndAnEmptyOneTooAsExactlyOnePart() throws Exception {
        byte[] data = bytes(5000);
        for (byte[] content : new byte[][] {data, new byte[0]}) {
            try (Payload p = Payload.prepare(ObjectContent.ofBytes(content), dir, new Payload.Digests(0, true, true))) {
                assertThat(p.partCount()).isEqualTo(1);
                assertThat(p.md5(0)).isEqualTo(digest("MD5", content, 0, content.length));
                assertThat(p.sha256(0)).isEqualTo(p.sha256()).isEqualTo(digest("SHA-256", content, 0, content.length));
            }
        }
    }

    @Test
    void aPartSizeThatSplitsNothingMeansOnePartAndAPartBoundaryOnTheLastByteMakesNoEmptyPart() throws Exception {
        byte[] data = bytes(3000);
        try (Payload p = Payload.prepare(ObjectContent.ofBytes(data), dir, new Payload.Digests(1000, true, false))) {
            assertThat(p.partCount()).isEqualTo(3);
            assertThat(p.hasPartSha256()).isFalse();
            assertThat(p.md5(2)).isEqualTo(digest("MD5", data, 2000, 3000));
        }
        try (Payload p = Payload.prepare(ObjectContent.ofBytes(data), dir, new Payload.Digests(4000, true, false))) {
            assertThat(p.partCount()).isEqualTo(1);
        }
    }

    @Test
    void onlyTheWholeSha256IsComputedUnlessMoreIsAskedFor() {
        try (Payload p = Payload.prepare(ObjectContent.ofBytes(bytes(10)), dir)) {
            assertThatThrownBy(() -> p.md5(0)).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> p.sha256(0)).isInstanceOf(IllegalStateException.class);
        }
    }
}
