package dev.ballast.backup.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.Cancellation;
import dev.ballast.backup.ProgressCounter;
import dev.ballast.backup.content.PackedBlobs;
import dev.ballast.backup.keys.MasterKey;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.test.FakeObjectStore;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * An encrypted backup (format 3) tells its caller which files it stored only once their packs and
 * index are written, each once, in path order, whatever order its transfer threads finished them in;
 * the manifest lists the same files in the same order.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
@ExtendWith(LeakCheck.class)
class PackedStoredOrderTest {
    @TempDir
    Path src;

    @Test
    void storedFilesAreToldOnceEachInPathOrder() throws IOException {
        List<String> expected = new ArrayList<>();
        // Names whose path order differs from the order a walk meets them in (a directory's files
        // before a longer sibling name, upper case before lower, digits before letters).
        for (String dir : new String[] {"b", "a", "a-z", "a.b", "B", "10", "9"}) {
            Files.createDirectories(src.resolve(dir));
            for (int i = 0; i < 12; i++) {
                String path = dir + "/f" + (i * 7 % 12) + ".txt";
                Files.writeString(src.resolve(path), "file " + path + " ".repeat(i * 100));
                expected.add(path);
            }
        }
        Files.writeString(src.resolve("top"), "top");
        expected.add("top");
        Collections.sort(expected);

        FakeObjectStore metadata = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime());
        List<String> told = Collections.synchronizedList(new ArrayList<>());
        BackupRunner.Result r;
        try (PackedBlobs blobs = PackedBlobs.open(new FakeObjectStore(), MasterKey.generate(), 4)) {
            r = new BackupRunner(
                            metadata,
                            "n",
                            src,
                            new BackupRunner.Settings(false, 4, false),
                            new Cancellation(),
                            BackupRunnerTest.CLOCK,
                            line -> {},
                            () -> new ProgressCounter(0, 0),
                            Duration.ofSeconds(5),
                            told::add)
                    .packedInto(blobs)
                    .run();
        }

        assertThat(r.ok()).isTrue();
        assertThat(r.stored()).isEqualTo(expected.size());
        assertThat(told).containsExactlyElementsOf(expected);
        Manifest m = Manifest.parse(metadata.get(Manifest.key("n")).readAllBytes(), "test");
        assertThat(m.files()).extracting(ManifestEntry::path).containsExactlyElementsOf(expected);
    }
}
