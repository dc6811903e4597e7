package dev.ballast.spring.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The hand-over of a streamed request body: every byte arrives, the end is never lost, nobody waits for good. */
@Timeout(30)
class BodyPipeTest {

    private static byte[] chunk(int i) {
        byte[] b = new byte[100];
        java.util.Arrays.fill(b, (byte) i);
        return b;
    }

    @Test
    void theEndOfABodyThatFillsThePipeIsNotLost() throws IOException {
        // given a writer that fills the pipe to capacity and ends the body before any read
        BodyPipe pipe = new BodyPipe();
        for (int i = 0; i < BodyPipe.CHUNKS; i++) {
            pipe.write(chunk(i), 0, 100, null);
        }
        pipe.finish();

        // when
        byte[] read = pipe.source().readAllBytes();

        // then every byte, then the end
        assertThat(read).hasSize(BodyPipe.CHUNKS * 100);
        assertThat(read[0]).isEqualTo((byte) 0);
        assertThat(read[read.length - 1]).isEqualTo((byte) (BodyPipe.CHUNKS - 1));
    }

    @Test
    void aBodyLargerThanThePipeArrivesWholeWhileItIsWritten() throws Exception {
        BodyPipe pipe = new BodyPipe();
        CompletableFuture<byte[]> reader = CompletableFuture.supplyAsync(() -> {
            try (InputStream in = pipe.source()) {
                return in.readAllBytes();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });

        byte[] large = new byte[BodyPipe.CHUNKS * BodyPipe.CHUNK_BYTES * 3 + 17];
        for (int i = 0; i < large.length; i++) {
            large[i] = (byte) (i * 13);
        }
        pipe.write(large, 0, large.length, reader);
        pipe.finish();

        assertThat(reader.get()).isEqualTo(large);
    }

    @Test
    void aWriterFailureReachesTheReaderAfterTheBytesWritten() throws IOException {
        BodyPipe pipe = new BodyPipe();
        pipe.write(chunk(1), 0, 100, null);
        pipe.fail(new IllegalStateException("converter failed"));
        InputStream in = pipe.source();

        assertThat(in.readNBytes(100)).hasSize(100);
        assertThatThrownBy(in::read)
                .isInstanceOf(IOException.class)
                .hasMessage("writing the request body failed")
                .hasRootCauseMessage("converter failed");
    }

    @Test
    void aWriterStopsWaitingOnceTheExchangeHasEnded() throws IOException {
        // given a full pipe nobody reads, and an exchange that ended (an early answer, a refusal)
        BodyPipe pipe = new BodyPipe();
        for (int i = 0; i < BodyPipe.CHUNKS; i++) {
            pipe.write(chunk(i), 0, 100, null);
        }
        CompletableFuture<Void> ended = CompletableFuture.completedFuture(null);

        // then
        assertThatThrownBy(() -> pipe.write(chunk(99), 0, 100, ended))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("the exchange ended");
    }

    @Test
    void aWriterStopsWaitingOnceTheReaderClosed() throws IOException {
        BodyPipe pipe = new BodyPipe();
        pipe.source().close();

        assertThatThrownBy(() -> {
                    for (int i = 0; i <= BodyPipe.CHUNKS; i++) {
                        pipe.write(chunk(i), 0, 100, null);
                    }
                })
                .isInstanceOf(IOException.class);
    }
}
