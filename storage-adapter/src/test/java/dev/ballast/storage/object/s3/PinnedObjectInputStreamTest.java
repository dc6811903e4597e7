package dev.ballast.storage.object.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.RequestRefusedException;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * A stored copy shorter than its announced length, served by a store that then keeps the connection
 * open, fails as soon as a probe proves the next byte missing; a merely slow store is waited for.
 * The timeout guards against a read that waits for bytes that never come.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class PinnedObjectInputStreamTest {
    private static final GetObjectResponse RESPONSE =
            GetObjectResponse.builder().versionId("v1").eTag("\"e\"").build();
    private static final Duration PROBE_AFTER = Duration.ofMillis(50);

    /** Hands out {@code bytes} bytes, then blocks until {@code release} opens or the stream is aborted. */
    private static final class StallingStream extends InputStream {
        private final CountDownLatch aborted = new CountDownLatch(1);
        private final CountDownLatch release;
        private int left;
        private int afterRelease;

        StallingStream(int bytes, CountDownLatch release, int afterRelease) {
            this.left = bytes;
            this.release = release;
            this.afterRelease = afterRelease;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) == -1 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (left > 0) {
                int n = Math.min(len, left);
                left -= n;
                return n;
            }
            try {
                while (!aborted.await(10, TimeUnit.MILLISECONDS)) {
                    if (release.getCount() == 0) {
                        if (afterRelease == 0) {
                            return -1;
                        }
                        int n = Math.min(len, afterRelease);
                        afterRelease -= n;
                        return n;
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new IOException("aborted");
        }

        ResponseInputStream<GetObjectResponse> response() {
            return new ResponseInputStream<>(RESPONSE, AbortableInputStream.create(this, aborted::countDown));
        }
    }

    private static long drain(InputStream in) throws IOException {
        long n = 0;
        byte[] buf = new byte[64];
        int r;
        while ((r = in.read(buf)) != -1) {
            n += r;
        }
        return n;
    }

    @Test
    void aCopyShorterThanAnnouncedFailsAsSoonAsTheStoreSaysTheNextByteIsMissing() throws IOException {
        StallingStream first = new StallingStream(100, new CountDownLatch(1), 0);
        AtomicInteger probes = new AtomicInteger();
        try (PinnedObjectInputStream in = new PinnedObjectInputStream(
                "k",
                first.response(),
                200,
                offset -> {
                    probes.incrementAndGet();
                    assertThat(offset).isEqualTo(100);
                    throw new RequestRefusedException("k", 416, "InvalidRange", "GET failed: HTTP 416", null);
                },
                3,
                PROBE_AFTER)) {
            assertThatThrownBy(() -> drain(in))
                    .isInstanceOf(IntegrityException.class)
                    .hasMessageContaining("truncated")
                    .hasMessageContaining("announced 200 bytes but holds only 100");
        }
        assertThat(probes).hasValue(1);
    }

    @Test
    void aSlowStoreWhoseNextByteExistsIsWaitedForAndProbedOncePerByte() throws IOException {
        CountDownLatch release = new CountDownLatch(1);
        StallingStream first = new StallingStream(100, release, 100);
        AtomicInteger probes = new AtomicInteger();
        try (PinnedObjectInputStream in = new PinnedObjectInputStream(
                "k",
                first.response(),
                200,
                offset -> {
                    probes.incrementAndGet();
                    StallingStream probe = new StallingStream(0, new CountDownLatch(0), 0);
                    release.countDown(); // the store is slow, not short: its bytes come once asked
                    return probe.response();
                },
                3,
                PROBE_AFTER)) {
            assertThat(drain(in)).isEqualTo(200);
        }
        assertThat(probes).hasValue(1);
    }
}
