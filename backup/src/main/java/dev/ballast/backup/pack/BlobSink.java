package dev.ballast.backup.pack;

import java.io.IOException;

/** Receives the blobs {@link BlobRepository#readAll} reads. */
@FunctionalInterface
public interface BlobSink {
    /**
     * One blob, opened, decompressed and checked against its ID. {@code plain} is the caller's to keep.
     * Called from the repository's read threads, several at once: implementations must be thread-safe.
     *
     * @throws IOException to stop the read (rethrown by {@code readAll})
     */
    void accept(BlobId id, byte[] plain) throws IOException;
}
