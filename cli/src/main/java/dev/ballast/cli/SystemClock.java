package dev.ballast.cli;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import org.jspecify.annotations.Nullable;

/**
 * The system clock in the system's default time zone, the zone looked up only when a command asks
 * for it ({@code forget}'s periods; every command shows times in UTC). {@link Clock#systemDefaultZone()}
 * looks it up at once, which loads the JDK's time-zone database: about 0.2 s of every command's
 * start on the project's machine (a wall-clock profile of a restore), though a backup and a restore
 * print instants in UTC and never use it. Thread-safe; equal to another
 * {@code SystemClock} only.
 */
final class SystemClock extends Clock {
    private volatile @Nullable ZoneId zone;

    @Override
    public ZoneId getZone() {
        ZoneId z = zone;
        if (z == null) {
            z = ZoneId.systemDefault();
            zone = z;
        }
        return z;
    }

    @Override
    public Clock withZone(ZoneId z) {
        return Clock.system(z);
    }

    @Override
    public Instant instant() {
        return Instant.now();
    }

    @Override
    public long millis() {
        return System.currentTimeMillis();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SystemClock;
    }

    @Override
    public int hashCode() {
        return SystemClock.class.hashCode();
    }

    @Override
    public String toString() {
        return "SystemClock[" + getZone() + "]";
    }
}
