package dev.ballast.backup.pack;

import java.io.IOException;

/**
 * Receives the blobs {@link BlobRepository#readAllBorrowed} reads, in a buffer the reading thread
 * reuses for its next blob: what a restore writes to a file at once, so no array per blob is
 * allocated (and collected) for it.
 */
@FunctionalInterface
public interface BorrowedBlobSink {
    /**
     * One blob, opened, decompressed and checked against its ID: its plain bytes are
     * {@code plain[0, length)}, valid only until this call returns (copy what is to be kept).
     * Called from the repository's read threads, several at once: implementations must be
     * thread-safe, and must not read blobs themselves (that would reuse the buffer).
     *
     * @throws IOException to stop the read (rethrown by {@code readAllBorrowed})
     */
    void accept(BlobId id, byte[] plain, int length) throws IOException;
}
