package dev.ballast.storage.object.local;

import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectVersion;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;

/**
 * Run in a separate JVM by {@link IndexRebuildTest} and killed there: writes small and large
 * contents, removes versions and compacts, without end, printing {@code ACK KEY VERSION-ID} for each
 * write acknowledged.
 */
public final class JournallingWriter {
    private JournallingWriter() {}

    public static void main(String[] args) throws java.io.IOException {
        SplittableRandom random = new SplittableRandom(Long.parseLong(args[1]));
        LocalStoreConfig config =
                LocalStoreConfig.builder().packSize(256 * 1024).build();
        try (LocalObjectStore store = LocalObjectStore.open(Path.of(args[0]), config)) {
            System.out.println("OPEN");
            System.out.flush();
            for (int round = 0; ; round++) {
                List<CompletableFuture<ObjectVersion>> writes = new ArrayList<>();
                for (int i = 0; i < 50; i++) {
                    byte[] bytes = new byte[random.nextInt(10) == 0 ? 100_000 : 1 + random.nextInt(5000)];
                    random.nextBytes(bytes);
                    writes.add(store.putAsync("k/" + random.nextInt(200), ObjectContent.ofBytes(bytes)));
                }
                for (CompletableFuture<ObjectVersion> w : writes) {
                    ObjectVersion v = w.join();
                    System.out.println("ACK " + v.key() + " " + v.versionId());
                }
                System.out.flush();
                String key = "k/" + random.nextInt(200);
                var versions = store.versions(key);
                if (versions.size() > 1) {
                    // Said before it happens: a kill between the index's commit of a removal and the
                    // journal's COMMIT marker leaves that removal in doubt, and a rebuild keeps the version.
                    java.nio.file.Files.writeString(
                            Path.of(args[2]),
                            versions.get(versions.size() - 1).versionId() + "\n",
                            java.nio.file.StandardOpenOption.CREATE,
                            java.nio.file.StandardOpenOption.APPEND);
                    store.deleteVersion(key, versions.get(versions.size() - 1).versionId());
                }
                if (round % 5 == 4) {
                    store.compact();
                }
                if (round % 7 == 6) {
                    store.delete("k/" + random.nextInt(200));
                }
            }
        }
    }
}
