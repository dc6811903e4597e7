package dev.ballast.storage.cache;

import dev.ballast.storage.object.Freshness;
import dev.ballast.storage.object.ObjectVersion;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** LRU map bounded by entry count and total bytes. */
final class Entries {
    /** One cached object. */
    static record Entry(
            ObjectVersion version, Freshness freshness, byte[] bytes, Instant fetchedAt, Instant expiresAt) {
        String ageText(Instant now) {
            Duration age = Duration.between(fetchedAt, now);
            return (age.isNegative() ? Duration.ZERO : age).toString();
        }
    }

    private final int maxEntries;
    private final long maxBytes;
    private final LinkedHashMap<String, Entry> map = new LinkedHashMap<>(16, 0.75f, true);
    private long bytes;

    Entries(int maxEntries, long maxBytes) {
        this.maxEntries = maxEntries;
        this.maxBytes = maxBytes;
    }

    synchronized @Nullable Entry get(String key) {
        return map.get(key);
    }

    synchronized void putIfNotOlder(String key, Entry entry) {
        Entry existing = map.get(key);
        if (existing != null
                && existing.version().generation() > entry.version().generation()
                && entry.version().generation() > 0) {
            return; // a concurrent reader already kept a newer generation
        }
        Entry replaced = map.put(key, entry);
        if (replaced != null) {
            bytes -= replaced.bytes().length;
        }
        bytes += entry.bytes().length;
        var eldest = map.entrySet().iterator();
        while ((map.size() > maxEntries || bytes > maxBytes) && eldest.hasNext()) {
            Map.Entry<String, Entry> victim = eldest.next();
            bytes -= victim.getValue().bytes().length;
            eldest.remove();
        }
    }

    synchronized void remove(String key) {
        Entry removed = map.remove(key);
        if (removed != null) {
            bytes -= removed.bytes().length;
        }
    }

    synchronized void remove(String key, Entry entry) {
        if (map.remove(key, entry)) {
            bytes -= entry.bytes().length;
        }
    }

    synchronized int size() {
        return map.size();
    }

    synchronized long bytes() {
        return bytes;
    }
}
