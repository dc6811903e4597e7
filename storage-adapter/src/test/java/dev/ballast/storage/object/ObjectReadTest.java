package dev.ballast.storage.object;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.storage.StorageUnavailableException;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Reading an object whole. */
class ObjectReadTest {
    static final ObjectVersion CONFIG = new ObjectVersion("config", "v1", "etag", 190, "", 1, null);

    /**
     * Field case (a fault tester): the connection to an S3 endpoint cut while a repository's {@code config}
     * was read ("fixed content-length: 190, bytes received: 0") came out of {@code readAllBytes} as an
     * {@link java.io.UncheckedIOException}, which the command reported as "A local file operation failed",
     * exit 1. It is the store's failure, and the read changed nothing in the store.
     */
    @Test
    void aReadThatBreaksOffIsTheStoreBeingUnavailableAndChangedNothing() {
        InputStream brokenOff = new SequenceInputStream(new ByteArrayInputStream(new byte[10]), new InputStream() {
            @Override
            public int read() throws IOException {
                throw new IOException(
                        "fixed content-length: 190, bytes received: 10", new EOFException("EOF reached while reading"));
            }
        });
        ObjectRead read = new ObjectRead(CONFIG, brokenOff, Source.LIVE, Freshness.FRESH, Duration.ZERO, null);

        assertThatThrownBy(read::readAllBytes)
                .isInstanceOfSatisfying(StorageUnavailableException.class, e -> {
                    assertThat(e.key()).isEqualTo("config");
                    assertThat(e.outcomeUnknown()).isFalse();
                })
                .hasMessage("Reading object 'config' failed (fixed content-length: 190, bytes received: 10)");
    }
}
