package dev.ballast.backup.restore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.content.PackedContent;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PackedRestoreTest {
    private static final Instant MTIME = Instant.parse("2026-12-01T10:00:00Z");
    private static final String SHA = "0".repeat(64);

    private static ManifestEntry file(String path, String... chunks) {
        return new ManifestEntry(path, 1, SHA, "", MTIME, null, null, null, List.of(chunks));
    }

    @Test
    void filesAreWrittenInTheOrderTheirChunksAreStoredNotByPath() {
        // Stored in the order a backup's walk met them (c, a, d in pack p1; b in p0), not by path.
        String a = "a".repeat(64);
        String b = "b".repeat(64);
        String c = "c".repeat(64);
        String d = "d".repeat(64);
        String missing = "e".repeat(64);
        Manifest m = new Manifest(
                3,
                "n",
                MTIME,
                true,
                List.of(
                        file("a.txt", a),
                        file("b.txt", b),
                        file("c.txt", c, a),
                        file("d.txt", d),
                        file("empty.txt"),
                        file("lost.txt", missing)),
                List.of());
        Map<String, PackedContent.StoredAt> where = Map.of(
                a, new PackedContent.StoredAt("p1", 5_000),
                b, new PackedContent.StoredAt("p0", 90_000),
                c, new PackedContent.StoredAt("p1", 0),
                d, new PackedContent.StoredAt("p1", 70_000));

        int[] order = PackedRestore.writeOrder(chunks -> chunks.isEmpty() ? null : where.get(chunks.get(0)), m);

        // p0 before p1, by offset within a pack; a file with no chunk, or one not found, after them
        // in the manifest's order.
        assertThat(order).containsExactly(1, 2, 0, 3, 4, 5);
    }
}
