package dev.ballast.storage.object.local;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Run in a separate JVM by {@link LocalObjectStoreTest}: opens a local object store as its writer,
 * prints {@code LOCKED}, and holds it until its standard input reaches end of stream.
 */
public final class StoreLockHolder {
    private StoreLockHolder() {}

    public static void main(String[] args) throws IOException {
        try (LocalObjectStore store = LocalObjectStore.open(Path.of(args[0]))) {
            System.out.println("LOCKED");
            System.out.flush();
            while (System.in.read() >= 0) {
                // hold the writer lock until the parent closes our stdin
            }
        }
    }
}
