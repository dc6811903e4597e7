package dev.ballast.backup.verify;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.Cancellation;
import dev.ballast.backup.ProgressCounter;
import dev.ballast.backup.snapshot.DamagedVersions;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.test.FakeObjectStore;
import dev.ballast.testkit.FakeTime;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class VerifierTest {
    private static final Instant MTIME = Instant.parse("2025-05-05T05:05:05Z");

    private final FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime());

    private ManifestEntry stored(String path, String content) {
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        ObjectVersion v = store.put(Manifest.objectKey("n", path), ObjectContent.ofBytes(bytes));
        return new ManifestEntry(path, bytes.length, v.sha256(), v.versionId(), MTIME);
    }

    @Test
    void aFileWhoseCheckRanOutOfHeapIsReportedUnverifiedNeverCountedAsVerified() {
        // The kind of fault a restore held to a small heap showed: an Error ending a file's task unrecorded.
        ManifestEntry a = stored("a.txt", "alpha");
        ManifestEntry b = stored("b.txt", "bravo");
        String heavy = Manifest.objectKey("n", "b.txt");
        FakeObjectStore outOfHeap = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime()) {
            @Override
            public ObjectRead get(String key, ReadOptions options) {
                if (key.equals(heavy)) {
                    throw new OutOfMemoryError("Java heap space");
                }
                return store.get(key, options);
            }
        };
        Manifest m = new Manifest(1, "n", MTIME, true, List.of(a, b), List.of());

        Verifier.Result r = Verifier.run(
                outOfHeap,
                m,
                DamagedVersions.empty("n"),
                null,
                4,
                new Cancellation(),
                (f, n) -> new ProgressCounter(0, 0));

        assertThat(r.damaged()).isEmpty();
        assertThat(r.unreadable())
                .containsExactly(
                        "b.txt (it could not be verified: Java heap space: the JVM's maximum heap is too small; raise the JVM's -Xmx)");
        assertThat(r.bytes()).isEqualTo(5);
    }
}
