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
  @TempDir Path dir;

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
      try (InputStream first = p.open(1024 * 1024, 1024 * 1024); InputStream again = p.open(1024 * 1024, 1024 * 1024)) {
        byte[] expected = Arrays.copyOfRange(data, 1024 * 1024, 2 * 1024 * 1024);
        assertThat(first.readAllBytes()).isEqualTo(expected);
        assertThat(again.readAllBytes()).isEqualTo(expected);
      }
      assertThat(streamReads.get()).as("the one-shot stream is never read again").isEqualTo(readsAfterSpooling);
      assertThat(Files.list(dir)).hasSize(1);
    }
    assertThat(Files.list(dir)).as("spool file deleted on close").isEmpty();
  }

  @Test
  void aStreamShorterThanDeclaredIsRejectedAndLeavesNoSpoolFile() throws IOException {
    byte[] data = bytes(2 * 1024 * 1024);
    assertThatThrownBy(() -> Payload.prepare(ObjectContent.ofStream(new ByteArrayInputStream(data), data.length + 10L), dir))
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
      assertThat(Sha256.hex(p.sha256(0, 1000))).isEqualTo(p.sha256Hex());
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
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("still be 100 bytes");
  }

  @Test
  void aStreamWithMoreBytesThanDeclaredIsRefusedNotTruncatedAndLeavesNoSpoolFile() throws IOException {
    for (int declared : new int[] {10, 2 * Payload.IN_MEMORY_LIMIT}) {
      byte[] data = bytes(declared + 1);
      assertThatThrownBy(() -> Payload.prepare(ObjectContent.ofStream(new ByteArrayInputStream(data), declared), dir))
          .as("declared %d", declared)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("exactly its declared length of " + declared + " bytes but had more");
    }
    try (var left = Files.list(dir)) {
      assertThat(left).isEmpty();
    }
  }
}
