package dev.ballast.storage.object.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.VersionEntry;
import dev.ballast.testkit.LeakCheck;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LocalObjectStore#missingContent}: a version the index still lists is found missing, without
 * reading it, when its content file is gone or has another length, or its pack file ends before
 * its content does; {@link LocalObjectStore#head} reads no bytes.
 */
@ExtendWith(LeakCheck.class)
class LocalObjectStoreMissingContentTest {
    @TempDir
    Path root;

    @Test
    void aVersionWhoseBytesAreGoneIsFoundWithoutReadingIt() throws Exception {
        byte[] large = new byte[200_000];
        new Random(1).nextBytes(large);
        try (LocalObjectStore store = LocalObjectStore.open(root)) {
            ObjectVersion big = store.put("n/large", ObjectContent.ofBytes(large));
            ObjectVersion small = store.put(
                    "n/small", ObjectContent.ofBytes("small".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            List<VersionEntry> listed = store.listVersions("n/");
            assertThat(store.missingContent(listed)).isEmpty();
            assertThat(store.head("n/large", big.versionId()).sha256()).isEqualTo(big.sha256());

            Path file =
                    root.resolve("blobs").resolve(big.sha256().substring(0, 2)).resolve(big.sha256());
            assertThat(file).exists();
            try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
                raf.setLength(100);
            }
            Map<VersionEntry, String> cut = store.missingContent(listed);
            assertThat(cut).hasSize(1);
            assertThat(cut.values()).singleElement().asString().contains("has 100 bytes but 200000 are recorded");

            Files.delete(file);
            assertThat(store.missingContent(listed).values())
                    .singleElement()
                    .asString()
                    .contains("its content file " + file + " is missing");

            Path pack;
            try (Stream<Path> packs = Files.list(root.resolve("packs"))) {
                pack = packs.filter(p -> p.toString().endsWith(".pack"))
                        .findFirst()
                        .orElseThrow();
            }
            try (RandomAccessFile raf = new RandomAccessFile(pack.toFile(), "rw")) {
                raf.setLength(0);
            }
            Map<VersionEntry, String> both = store.missingContent(listed);
            assertThat(both).hasSize(2);
            assertThat(both.entrySet())
                    .filteredOn(e -> e.getKey().versionId().equals(small.versionId()))
                    .singleElement()
                    .satisfies(e ->
                            assertThat(e.getValue()).contains("its pack file").contains("ends at byte 0"));
        }
    }
}
