package dev.ballast.storage.block;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Run in a separate JVM by {@link BlockVolumeTest}: opens a volume, prints {@code LOCKED}, and
 * holds it until its standard input reaches end of stream.
 */
public final class VolumeLockHolder {
    private VolumeLockHolder() {}

    public static void main(String[] args) throws IOException {
        try (BlockVolume volume = BlockVolume.open(Path.of(args[0]), args[1])) {
            System.out.println("LOCKED " + volume.name());
            System.out.flush();
            while (System.in.read() >= 0) {
                // hold the lock until the parent closes our stdin
            }
        }
    }
}
