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
    /** Wakes a waiting reader to look at {@link #ended}; carries no data. */
    private static final byte[] WAKE = new byte[0];

    private static final long POLL_MILLIS = 50;

    private final BlockingQueue<byte[]> chunks = new ArrayBlockingQueue<>(CHUNKS);
    private volatile boolean readerClosed;
    /** Set after the writer's last chunk is queued: the reader ends once the queue is empty. */
    private volatile boolean ended;

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

    /** Ends the body: the reader sees end of stream after the bytes written. Never blocks. */
    void finish() {
        end();
    }

    /** Ends the body with a failure: the reader's read after the bytes written throws. Never blocks. */
    void fail(Throwable failure) {
        writerFailure = failure;
        end();
    }

    private void end() {
        ended = true;
        // A reader waiting on an empty queue wakes now rather than at its next poll; a full queue
        // needs no wake-up (the reader will find it empty and ended).
        chunks.offer(WAKE);
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
                    byte[] next;
                    try {
                        next = chunks.poll(POLL_MILLIS, TimeUnit.MILLISECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new InterruptedIOException("interrupted while reading the request body");
                    }
                    if (next == null || next.length == 0) {
                        // ended is written after the last chunk was queued: ended and empty means all read.
                        if (ended && chunks.isEmpty()) {
                            Throwable failure = writerFailure;
                            if (failure != null) {
                                throw new IOException("writing the request body failed", failure);
                            }
                            return -1;
                        }
                        if (readerClosed) {
                            throw new IOException("the request body stream is closed");
                        }
                        continue;
                    }
                    current = next;
                    position = 0;
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
