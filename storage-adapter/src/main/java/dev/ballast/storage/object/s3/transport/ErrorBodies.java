package dev.ballast.storage.object.s3.transport;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;

/**
 * Workaround: an error answer whose body breaks off must still reach the SDK as its status.
 *
 * <p>A server may answer a request with content before reading that content, for instance
 * {@code 412 Precondition Failed} to a conditional PUT (RFC 9110 section 10.1.1 allows a final
 * status before the body, as with {@code Expect: 100-continue}), and then close the connection while
 * the client is still sending. The JDK hands the answer over once its headers arrived, but reading its
 * body can then fail with the connection reset under it. The status is the answer; the error document
 * (a few hundred bytes) only adds detail. So error bodies up to {@value #MAX_BUFFERED} bytes are read
 * in full here, and one that breaks off is replaced by an empty body (the SDK then reports the status
 * without an error code) instead of surfacing as an I/O failure that would hide the 412. Larger
 * bodies are streamed on unchanged. Stateless.
 */
final class ErrorBodies {
    /** Error bodies up to this many bytes are read in full before the SDK parses them. */
    static final int MAX_BUFFERED = 64 * 1024;

    private ErrorBodies() {}

    /** The body of an error answer, read ahead as described in the class comment. */
    static InputStream readAhead(InputStream body) {
        byte[] head;
        try {
            head = body.readNBytes(MAX_BUFFERED);
        } catch (IOException cutShort) {
            closeQuietly(body);
            return InputStream.nullInputStream();
        }
        if (head.length < MAX_BUFFERED) {
            closeQuietly(body);
            return new ByteArrayInputStream(head);
        }
        return new SequenceInputStream(new ByteArrayInputStream(head), body);
    }

    static void closeQuietly(InputStream stream) {
        try {
            stream.close();
        } catch (IOException e) {
            // Closing is how an abort releases the connection; a failure to close leaves nothing to do.
        }
    }
}
