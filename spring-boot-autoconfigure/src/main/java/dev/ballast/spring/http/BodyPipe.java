package dev.ballast.spring.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A bounded hand-over of a streamed request body from the thread Spring writes it on to the client
 * thread that sends it: at most {@value #CHUNKS} chunks of at most {@value #CHUNK_BYTES} bytes wait,
 * so a body above the buffering limit costs no more memory than that. The writer never blocks for
 * good: once the exchange has ended (answered early, failed, cancelled) or the reader has closed its
 * end, a write fails with an {@link IOException}.
 */
final class BodyPipe {

    static final int CHUNKS = 16;
    static final int CHUNK_BYTES = 64 * 1024;
    private static final byte[] END = new byte[0];
    private static final long POLL_MILLIS = 50;

    private final BlockingQueue<byte[]> chunks = new ArrayBlockingQueue<>(CHUNKS + 1);
    private volatile boolean readerClosed;
    private volatile @Nullable Throwable writerFailure;

    /** Hands {@code len} bytes to the reader, waiting while the pipe is full. */
    void write(byte[] b, int off, int len, @Nullable Future<?> exchange) throws IOException {
        for (int start = off; start < off + len; start += CHUNK_BYTES) {
            byte[] chunk = Arrays.copyOfRange(b, start, Math.min(off + len, start + CHUNK_BYTES));
            try {
                while (!chunks.offer(chunk, POLL_MILLIS, TimeUnit.MILLISECONDS)) {
                    if (readerClosed || exchange != null && exchange.isDone()) {
                        throw new IOException(
                                "the request body could not be sent: the exchange ended before" + " reading all of it");
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while sending the request body");
            }
        }
    }

    /** Ends the body: the reader sees end of stream after the bytes written. */
    void finish() {
        offerEnd();
    }

    /** Ends the body with a failure: the reader's next read throws. */
    void fail(Throwable failure) {
        writerFailure = failure;
        offerEnd();
    }

    private void offerEnd() {
        // Room is kept for the end marker (capacity CHUNKS + 1); a full pipe whose reader left needs none.
        chunks.offer(END);
    }

    /** The reading end, for one reader. */
    InputStream source() {
        return new InputStream() {
            private byte @Nullable [] current;
            private int position;

            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                int n = read(one, 0, 1);
                return n < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (len == 0) {
                    return 0;
                }
                while (current == null || position == current.length) {
                    if (current == END) {
                        return -1;
                    }
                    try {
                        current = chunks.take();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new InterruptedIOException("interrupted while reading the request body");
                    }
                    position = 0;
                    if (current == END) {
                        Throwable failure = writerFailure;
                        if (failure != null) {
                            throw new IOException("writing the request body failed", failure);
                        }
                        return -1;
                    }
                }
                int n = Math.min(len, current.length - position);
                System.arraycopy(current, position, b, off, n);
                position += n;
                return n;
            }

            @Override
            public void close() {
                readerClosed = true;
                chunks.clear();
            }
        };
    }
}
