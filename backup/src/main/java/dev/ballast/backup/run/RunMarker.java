package dev.ballast.backup.run;

import dev.ballast.backup.Futures;
import dev.ballast.backup.retention.Pruner;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.VersionEntry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The marker a backup keeps in the store while it runs, so that {@code prune} leaves its backup
 * name alone: the object {@code .ballast-runs/NAME/RUN-ID}, written before the backup reads the
 * previous manifest or stores a byte, written again every {@link #REFRESH} while the run lasts, and
 * removed (every version it wrote) when the run ends, however it ends. A marker whose newest version is
 * older than {@link #STALE} belongs to a run that died without removing it (kill -9, power cut):
 * prune ignores and removes it. This is restic's protocol for its non-exclusive backup locks (a lock
 * is refreshed every 5 minutes and stale after 30), with the store's own version timestamps as the
 * clock.
 *
 * <p><b>A run taken for dead.</b> A run that was paused (a laptop asleep, a stopped process) for
 * longer than {@link #STALE} looks dead to a prune, which removes its marker and may delete what it
 * had uploaded. Every write of the marker therefore puts a new version first and then checks that
 * the version written before it still exists, as restic's {@code RefreshStaleLock} creates a new lock
 * before checking that the old one was not removed: when it was, a prune removed it, and
 * {@link #losses()} counts up. The backup's own checks before and after its manifest
 * ({@link #refresh}) write only when the marker is {@link #REFRESH} old or gone; a younger one is
 * checked by a HEAD of the version written last. A prune removes markers before it deletes anything and lists them again
 * afterwards, so a run whose previous version was still there when it checked is seen live by that
 * prune (see {@link Pruner}); a run that finds its marker removed must not publish a snapshot that
 * references what it stored before (the backup stores those files again).
 *
 * <p><b>Holder.</b> The marker records the host, the process ID, the process's start time, the boot ID
 * and the PID namespace of the run, so that on the same host (same boot, same PID namespace) a run
 * whose process is gone is known dead at once, without waiting {@link #STALE} ({@link Holder#deadHere}),
 * as restic finds a lock stale when its process no longer exists on this host.
 *
 * <p>Backup names cannot start with {@code .ballast}, so no backup's objects live under
 * {@link #PREFIX}. Thread-safe.
 */
public final class RunMarker implements AutoCloseable, BackupRunner.Guard {
    /** Where markers live. */
    public static final String PREFIX = ".ballast-runs/";
    /** How often a running backup writes its marker again. */
    public static final Duration REFRESH = Duration.ofMinutes(5);
    /** A marker not written for this long belongs to a run that died. */
    public static final Duration STALE = Duration.ofMinutes(30);

    private final ObjectStore store;
    private final String key;
    private final byte[] body;
    private final ScheduledExecutorService refresher;
    private final AtomicInteger losses = new AtomicInteger();
    /** Whether the listing made just after the first write found another run's marker; see {@link #othersAtStart()}. */
    private final CompletableFuture<Boolean> othersAtStart = new CompletableFuture<>();

    private final Clock clock;
    private volatile boolean abandoned;
    /** The version this run wrote last; guarded by {@code this}. */
    private String lastVersion;
    /** When this run last sent a version of its marker ({@link #clock}, taken before the put); guarded by {@code this}. */
    private Instant lastWritten;
    /**
     * Every version this run wrote, oldest first: what {@link #close} deletes, without listing the
     * marker's versions; guarded by {@code this}.
     */
    private final List<String> written = new ArrayList<>();

    private RunMarker(
            ObjectStore store, String key, byte[] body, String firstVersion, Instant firstWritten, Clock clock) {
        this.store = store;
        this.key = key;
        this.body = body;
        this.lastVersion = firstVersion;
        this.lastWritten = firstWritten;
        this.written.add(firstVersion);
        this.clock = clock;
        this.refresher = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "ballast-run-marker");
            t.setDaemon(true);
            return t;
        });
    }

    /** The marker key prefix of backup {@code name}. */
    public static String prefix(String name) {
        return PREFIX + name + "/";
    }

    /**
     * Writes the marker of a run of backup {@code name} and starts refreshing it; then looks for
     * markers of other runs of the name ({@link #othersAtStart()}), on the marker's own thread: the
     * caller's next requests (a backup's look for a running prune) go out beside that listing.
     *
     * @throws dev.ballast.storage.StorageException if it cannot be written (the backup cannot run either)
     */
    public static RunMarker start(ObjectStore store, String name, Clock clock) {
        return start(store, name, clock, true);
    }

    /**
     * {@link #start(ObjectStore, String, Clock)} without looking for other runs' markers when {@code
     * lookForOthers} is false ({@link #othersAtStart()} then says false): for a reader's marker (a
     * restore's, a verify's), which only has to stand for a prune to find, one listing fewer.
     *
     * @throws dev.ballast.storage.StorageException if it cannot be written
     */
    public static RunMarker start(ObjectStore store, String name, Clock clock, boolean lookForOthers) {
        String runId = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
        byte[] body = Holder.current(name, clock.instant()).toJson();
        String key = prefix(name) + runId;
        Instant written = clock.instant();
        String first = store.put(key, ObjectContent.ofBytes(body)).versionId();
        RunMarker marker = new RunMarker(store, key, body, first, written, clock);
        if (lookForOthers) {
            // Listed after this run's marker exists: a prune that removes one of these markers later lists the
            // markers again after removing it and so sees this run live (Pruner).
            marker.refresher.execute(() -> {
                try {
                    marker.othersAtStart.complete(store.listVersions(prefix(name)).stream()
                            .anyMatch(v -> !v.key().equals(key) && !v.deleteMarker()));
                } catch (RuntimeException | Error e) {
                    marker.othersAtStart.completeExceptionally(e);
                }
            });
        } else {
            marker.othersAtStart.complete(false);
        }
        long every = REFRESH.toMillis();
        marker.refresher.scheduleWithFixedDelay(
                () -> {
                    try {
                        marker.write();
                    } catch (RuntimeException e) {
                        // the next refresh tries again; the backup itself reports a store that went away
                    }
                },
                every,
                every,
                TimeUnit.MILLISECONDS);
        return marker;
    }

    /**
     * Whether, just after this run wrote its marker, the store held a marker of another run of the
     * same name (one killed, or one running beside it): what that run uploaded and no manifest
     * references may be reused. Such versions are safe to reference: a prune that removes that other
     * marker lists the markers again afterwards and finds this one. Waits for that listing, made on the
     * marker's thread when the marker was written.
     *
     * @throws dev.ballast.storage.StorageException if that listing failed
     */
    @Override
    public boolean othersAtStart() {
        return Futures.join(othersAtStart);
    }

    /**
     * Makes sure the marker stands and says whether a prune removed it: when this run wrote it less than
     * {@link #REFRESH} ago (by the run's clock), only checks that the version it wrote last is still
     * there (one HEAD of that version, no write: a marker younger than {@link #REFRESH} is
     * far from {@link #STALE}, so no prune takes the run for dead on its age, and one that removed it
     * anyway is seen here); otherwise, or when that version is gone, {@link #write writes} a new version
     * first, as every refresh did before. Either way {@link #losses()} counts one more when a prune
     * removed the marker meanwhile, and the marker stands (a new version) when this returns. A backup
     * calls this just before and just after writing its manifest, seconds apart: two HEADs instead of
     * two writes (on an S3 store without conditional writes, a HEAD and a PUT each).
     *
     * @return {@link #losses()} after this refresh
     * @throws dev.ballast.storage.StorageException if the store cannot be written or read
     */
    @Override
    public synchronized int refresh() {
        Duration since = Duration.between(lastWritten, clock.instant());
        if (!since.isNegative() && since.compareTo(REFRESH) < 0 && stands(lastVersion)) {
            return losses.get();
        }
        return write();
    }

    /**
     * Whether {@code version} of the marker is still in the store: one HEAD of that version (S3's
     * HeadObject with a {@code versionId}, 404 once a prune deleted it), where a listing of the marker's
     * versions took one ListObjectVersions, several times slower on Ceph RGW.
     */
    private boolean stands(@Nullable String version) {
        if (version == null) {
            return false;
        }
        try {
            store.head(key, version);
            return true;
        } catch (ObjectNotFoundException gone) {
            return false;
        } catch (dev.ballast.storage.RequestRefusedException refused) {
            // a server that answers a HEAD of a version otherwise than S3 does: its version listing tells
            return store.versions(key).stream().anyMatch(v -> version.equals(v.versionId()));
        }
    }

    /**
     * Writes a new version of the marker, then checks that the one this run wrote before it is still
     * there; if a prune removed it meanwhile, {@link #losses()} counts one more. What the run does every
     * {@link #REFRESH} while it lasts.
     *
     * @return {@link #losses()} after this write
     * @throws dev.ballast.storage.StorageException if the store cannot be written or read
     */
    synchronized int write() {
        String previous = lastVersion;
        Instant now = clock.instant();
        lastVersion = store.put(key, ObjectContent.ofBytes(body)).versionId();
        lastWritten = now;
        written.add(lastVersion);
        return stands(previous) ? losses.get() : losses.incrementAndGet();
    }

    /** How many times a write of the marker found the previous one removed (a prune took this run for dead). */
    public int losses() {
        return losses.get();
    }

    /**
     * Leaves the marker in place when the run ends: the store went away, so removing it would only
     * wait out another timeout; it goes stale after {@link #STALE}.
     */
    public void abandon() {
        abandoned = true;
    }

    /**
     * Stops refreshing and removes every version of the marker this run wrote (unless abandoned), one
     * delete each and no listing; a failure leaves the marker to go stale. A version the store made of a
     * put whose answer never came back is not known here and is left as a killed run's marker is: its
     * holder is dead on this host at once, and stale elsewhere after {@link #STALE}, when prune and
     * unlock remove it. (A store that names no versions gets its versions listed and deleted.)
     */
    @Override
    public void close() {
        refresher.shutdownNow();
        othersAtStart.completeExceptionally(
                new IllegalStateException("the run's marker was closed before its listing of other runs ended"));
        if (abandoned) {
            return;
        }
        try {
            List<String> versions;
            synchronized (this) {
                versions = new ArrayList<>(written);
            }
            if (versions.contains(null)) {
                versions = store.versions(key).stream()
                        .map(VersionEntry::versionId)
                        .toList();
            }
            for (String v : versions) {
                store.deleteVersion(key, v);
            }
        } catch (RuntimeException e) {
            // it goes stale after STALE and prune removes it
        }
    }

    /** This run's ID, the last part of its marker's key (the same through a sealed view). */
    public String runId() {
        return key.substring(key.lastIndexOf('/') + 1);
    }

    /** The backup name of a marker key ({@code .ballast-runs/NAME/RUN-ID}). */
    public static String nameOf(String markerKey) {
        String rest = markerKey.substring(PREFIX.length());
        int slash = rest.lastIndexOf('/');
        return slash < 0 ? rest : rest.substring(0, slash);
    }

    /**
     * One marker as prune and unlock see it.
     *
     * @param key the marker's key
     * @param versions every version of it
     * @param written when its newest version was written (the store's clock)
     * @param holder what it records of the run, or null when it cannot be read
     * @param deadBecause why the run is known dead, or null while it may be running
     */
    public record Found(
            String key,
            List<VersionEntry> versions,
            Instant written,
            @Nullable Holder holder,
            @Nullable String deadBecause) {
        /** The backup name in the marker's key: what prune and unlock group markers by. */
        public String name() {
            return nameOf(key);
        }

        /**
         * The backup name for messages: as the run's record holds it, else {@link #name}. In a repository
         * of format 3 the key holds only the name's keyed ID, which a view that has not read the name's
         * snapshot shows as {@code id/...} (always so for a first backup killed before its snapshot).
         */
        public String shownName() {
            return holder != null && !holder.name().isEmpty() ? holder.name() : name();
        }

        public boolean live() {
            return deadBecause == null;
        }

        /** The run's ID, the last part of the key. */
        public String runId() {
            return key.substring(key.lastIndexOf('/') + 1);
        }

        /** Whether the holder's record names {@code name} (false when it cannot be read). */
        public boolean holds(String name) {
            return holder != null && holder.name().equals(name);
        }

        /** "started 2026-...Z on host h, process 123" for messages. */
        public String describe() {
            return holder == null
                    ? "written " + written
                    : "started " + holder.startedAt() + " on " + holder.host() + ", process " + holder.pid();
        }
    }

    /**
     * The markers among {@code markerVersions} (every version under {@link #PREFIX}, or under one
     * name's prefix), each judged at {@code now}: dead when its newest version is older than
     * {@link #STALE}, or when its holder was a process of this host that no longer runs; live
     * otherwise. The record of each marker not stale by age is read from the store (one GET each).
     */
    public static List<Found> classify(ObjectStore store, List<VersionEntry> markerVersions, Instant now) {
        Map<String, List<VersionEntry>> byKey = new java.util.TreeMap<>();
        for (VersionEntry v : markerVersions) {
            if (!v.deleteMarker()) {
                byKey.computeIfAbsent(v.key(), k -> new ArrayList<>()).add(v);
            }
        }
        List<Found> found = new ArrayList<>();
        Holder here = null;
        for (Map.Entry<String, List<VersionEntry>> e : byKey.entrySet()) {
            Instant written = e.getValue().stream()
                    .map(VersionEntry::lastModified)
                    .max(Instant::compareTo)
                    .orElse(Instant.EPOCH);
            if (!written.isAfter(now.minus(STALE))) {
                found.add(new Found(
                        e.getKey(),
                        e.getValue(),
                        written,
                        null,
                        "its marker was last written " + written + ", over " + STALE.toMinutes() + " minutes ago"));
                continue;
            }
            Holder holder = Holder.read(store, e.getKey());
            if (here == null) {
                here = Holder.current("", now);
            }
            found.add(new Found(
                    e.getKey(), e.getValue(), written, holder, holder == null ? null : holder.deadHere(here)));
        }
        return found;
    }

    /**
     * What a marker records of its run.
     *
     * @param name the backup name
     * @param startedAt when the run started (its clock)
     * @param host the host name
     * @param pid the process ID
     * @param processStart when that process started, or null when the platform does not say
     * @param bootId the kernel's boot ID ({@code /proc/sys/kernel/random/boot_id}), or null
     * @param pidNamespace the process's PID namespace ({@code /proc/self/ns/pid}), or null
     */
    public record Holder(
            String name,
            Instant startedAt,
            String host,
            long pid,
            @Nullable Instant processStart,
            @Nullable String bootId,
            @Nullable String pidNamespace) {

        /** This process, running a backup of {@code name} started at {@code startedAt}. */
        public static Holder current(String name, Instant startedAt) {
            ProcessHandle self = ProcessHandle.current();
            return new Holder(
                    name,
                    startedAt,
                    hostName(),
                    self.pid(),
                    self.info().startInstant().orElse(null),
                    firstLine(java.nio.file.Path.of("/proc/sys/kernel/random/boot_id")),
                    link(java.nio.file.Path.of("/proc/self/ns/pid")));
        }

        /**
         * Why this holder's process is known to have ended, judged from {@code here} (this process):
         * on the same host, boot and PID namespace, no process has its ID, or the one that has it
         * started at another time (the ID was reused); the same host booted again. Null when it may
         * still run: another host, or a host that cannot tell.
         */
        @Nullable
        public String deadHere(Holder here) {
            if (!host.equals(here.host)) {
                return null;
            }
            if (bootId != null && here.bootId != null && !bootId.equals(here.bootId)) {
                return "host " + host + " was restarted since process " + pid + " wrote it";
            }
            if (bootId == null || pidNamespace == null || !pidNamespace.equals(here.pidNamespace)) {
                return null; // another container or an unknown platform: this host cannot tell
            }
            java.util.Optional<ProcessHandle> p = ProcessHandle.of(pid);
            if (p.isEmpty() || !p.get().isAlive()) {
                return "process " + pid + " on " + host + " that wrote it no longer runs";
            }
            Instant started = p.get().info().startInstant().orElse(null);
            if (processStart != null
                    && started != null
                    && Duration.between(processStart, started).abs().compareTo(Duration.ofSeconds(1)) > 0) {
                return "process " + pid + " on " + host + " that wrote it no longer runs (the ID now belongs to a"
                        + " process started at " + started + ")";
            }
            return null;
        }

        public byte[] toJson() {
            StringBuilder sb = new StringBuilder("{");
            field(sb, "name", name).append(',');
            field(sb, "startedAt", startedAt.toString()).append(',');
            field(sb, "host", host).append(",\"pid\":").append(pid);
            if (processStart != null) {
                field(sb.append(','), "processStart", processStart.toString());
            }
            if (bootId != null) {
                field(sb.append(','), "bootId", bootId);
            }
            if (pidNamespace != null) {
                field(sb.append(','), "pidNamespace", pidNamespace);
            }
            return sb.append('}').toString().getBytes(StandardCharsets.UTF_8);
        }

        private static StringBuilder field(StringBuilder sb, String name, String value) {
            sb.append('"').append(name).append("\":\"");
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                if (c == '"' || c == '\\') {
                    sb.append('\\').append(c);
                } else if (c < 0x20) {
                    sb.append(String.format("\\u%04x", (int) c));
                } else {
                    sb.append(c);
                }
            }
            return sb.append('"');
        }

        /** The record in {@code json}, or null when it is not one (a marker of an earlier build has no pid's start). */
        public static @Nullable Holder parse(byte[] json) {
            Map<String, String> f = new HashMap<>();
            try (com.fasterxml.jackson.core.JsonParser p =
                    new com.fasterxml.jackson.core.JsonFactory().createParser(json)) {
                if (p.nextToken() != com.fasterxml.jackson.core.JsonToken.START_OBJECT) {
                    return null;
                }
                while (p.nextToken() == com.fasterxml.jackson.core.JsonToken.FIELD_NAME) {
                    String k = p.currentName();
                    p.nextToken();
                    if (p.currentToken().isScalarValue()) {
                        f.put(k, p.getText());
                    } else {
                        p.skipChildren();
                    }
                }
                return new Holder(
                        f.getOrDefault("name", ""),
                        Instant.parse(f.get("startedAt")),
                        f.get("host"),
                        Long.parseLong(f.get("pid")),
                        f.get("processStart") == null ? null : Instant.parse(f.get("processStart")),
                        f.get("bootId"),
                        f.get("pidNamespace"));
            } catch (java.io.IOException | RuntimeException e) {
                return null;
            }
        }

        /** The newest version of the marker {@code key}, read; null when it is gone or not a record. */
        public static @Nullable Holder read(ObjectStore store, String key) {
            try (ObjectRead r = store.get(key, ReadOptions.latest().withAllowCache(false))) {
                return parse(r.readAllBytes());
            } catch (ObjectNotFoundException e) {
                return null;
            } catch (dev.ballast.storage.IntegrityException | java.io.UncheckedIOException e) {
                dev.ballast.storage.IntegrityException.rethrowIfInStoreIndex(e); // the store's index, not what was read
                return null;
            }
        }

        private static String hostName() {
            try {
                return java.net.InetAddress.getLocalHost().getHostName().replaceAll("[^A-Za-z0-9._-]", "_");
            } catch (java.io.IOException e) {
                return "unknown";
            }
        }

        private static @Nullable String firstLine(java.nio.file.Path file) {
            try {
                String s = java.nio.file.Files.readString(file).trim();
                return s.isEmpty() ? null : s;
            } catch (java.io.IOException | RuntimeException e) {
                return null;
            }
        }

        private static @Nullable String link(java.nio.file.Path file) {
            try {
                return java.nio.file.Files.readSymbolicLink(file).toString();
            } catch (java.io.IOException | RuntimeException e) {
                return null;
            }
        }
    }
}
