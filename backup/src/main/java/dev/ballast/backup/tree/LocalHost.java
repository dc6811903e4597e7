package dev.ballast.backup.tree;

import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * The name of this machine, as {@code hostname} prints it and restic records a snapshot's host: what
 * a snapshot and a key file record of where they were made.
 */
public final class LocalHost {
    private LocalHost() {}

    /** The kernel's host name ({@code /proc/sys/kernel/hostname}), else the JDK's; empty when neither tells. */
    public static String name() {
        try {
            Path kernel = Path.of("/proc/sys/kernel/hostname");
            if (Files.isReadable(kernel)) {
                return Files.readString(kernel).trim();
            }
            // the JDK may ask DNS here; only where the kernel's name cannot be read
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "";
        }
    }

    /** {@link #name()}, or null when it is empty: what a new snapshot records as its {@code host}. */
    public static @Nullable String nameOrNull() {
        String n = name();
        return n.isEmpty() ? null : n;
    }
}
