package dev.ballast.storage.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.storage.IntegrityException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class VerifyingInputStreamTest {
    private static final byte[] CONTENT = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final String SHA = Sha256.hex(Sha256.of(CONTENT));

    private static VerifyingInputStream over(byte[] served, long length, String sha) {
        return new VerifyingInputStream("k", new ByteArrayInputStream(served), length, sha);
    }

    @Test
    void matchingContentPassesThroughByteForByte() throws IOException {
        try (InputStream in = over(CONTENT, CONTENT.length, SHA)) {
            assertThat(in.readAllBytes()).isEqualTo(CONTENT);
            assertThat(in.read()).isEqualTo(-1);
        }
    }

    @Test
    void aMismatchFailsTheReadThatWouldHandOverTheLastBytes() throws IOException {
        byte[] corrupt = CONTENT.clone();
        corrupt[3] ^= 0x20;
        try (InputStream in = over(corrupt, CONTENT.length, SHA)) {
            byte[] buf = new byte[CONTENT.length];
            assertThat(in.read(buf, 0, 10)).isEqualTo(10);
            assertThatThrownBy(() -> in.read(buf, 10, 6))
                    .isInstanceOf(IntegrityException.class)
                    .hasMessageContaining("recorded SHA-256 " + SHA)
                    .hasMessageContaining("'k'");
        }
    }

    @Test
    void truncationIsAnIntegrityFailureNotAnEndOfStream() throws IOException {
        try (InputStream in = over(Arrays.copyOf(CONTENT, 12), CONTENT.length, SHA)) {
            assertThat(in.readNBytes(12)).hasSize(12);
            assertThatThrownBy(in::read)
                    .isInstanceOf(IntegrityException.class)
                    .hasMessageContaining("truncated")
                    .hasMessageContaining("after 12 of 16 bytes");
        }
    }

    @Test
    void extraBytesBeyondTheRecordedLengthAreAnIntegrityFailure() throws IOException {
        byte[] longer = Arrays.copyOf(CONTENT, CONTENT.length + 1);
        try (InputStream in = over(longer, CONTENT.length, SHA)) {
            assertThat(in.readNBytes(CONTENT.length)).isEqualTo(CONTENT);
            assertThatThrownBy(in::read).isInstanceOf(IntegrityException.class).hasMessageContaining("longer");
        }
    }

    @Test
    void withoutARecordedDigestOnlyTheLengthIsChecked() throws IOException {
        byte[] other = "fedcba9876543210".getBytes(StandardCharsets.US_ASCII);
        try (InputStream in = over(other, other.length, null)) {
            assertThat(in.readAllBytes()).isEqualTo(other);
        }
        try (InputStream in = over(Arrays.copyOf(other, 3), other.length, null)) {
            assertThatThrownBy(in::readAllBytes)
                    .isInstanceOf(IntegrityException.class)
                    .hasMessageContaining("truncated");
        }
    }

    @Test
    void anEmptyObjectIsVerifiedAtTheFirstRead() throws IOException {
        String emptySha = Sha256.hex(Sha256.of(new byte[0]));
        try (InputStream in = over(new byte[0], 0, emptySha)) {
            assertThat(in.read()).isEqualTo(-1);
        }
        try (InputStream in = over(new byte[0], 0, SHA)) {
            assertThatThrownBy(in::read).isInstanceOf(IntegrityException.class);
        }
    }

    @Test
    void skippedBytesAreStillHashed() throws IOException {
        byte[] corrupt = CONTENT.clone();
        corrupt[1] ^= 1;
        try (InputStream in = over(corrupt, CONTENT.length, SHA)) {
            assertThat(in.skip(8)).isEqualTo(8);
            assertThatThrownBy(in::readAllBytes).isInstanceOf(IntegrityException.class);
        }
    }
}
