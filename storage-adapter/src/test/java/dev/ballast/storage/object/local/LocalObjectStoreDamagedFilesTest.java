package dev.ballast.storage.object.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.object.ListEntry;
import dev.ballast.storage.object.ListRequest;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.VersionEntry;
import dev.ballast.testkit.LeakCheck;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A content file or pack file deleted or cut by hand (the field case: {@code rm} or
 * {@code truncate -s} of a repository's pack object under {@code blobs/}): the local store's
 * listings report such an object at the bytes its file still holds — 0 when its file is gone, which
 * the index still records (lost, not deleted: a tester's deleted newest snapshot vanished from every
 * listing, and the one before it was restored as the latest, exit 0) — never at its recorded size;
 * {@code head} and {@code get} fail with {@link IntegrityException} and hand out no byte.
 */
@ExtendWith(LeakCheck.class)
class LocalObjectStoreDamagedFilesTest {
    @TempDir
    Path root;

    private static byte[] random(int size, int seed) {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        return b;
    }

    private Path blobFile(ObjectVersion v) {
        return root.resolve("blobs").resolve(v.sha256().substring(0, 2)).resolve(v.sha256());
    }

    private List<Path> packFiles() throws Exception {
        try (Stream<Path> packs = Files.list(root.resolve("packs"))) {
            return packs.filter(p -> p.toString().endsWith(".pack")).sorted().toList();
        }
    }

    private static Map<String, Long> listing(LocalObjectStore store, ListRequest request) {
        try (Stream<ListEntry> s = store.listing(request)) {
            return s.collect(Collectors.toMap(ListEntry::key, ListEntry::size, (a, b) -> a, LinkedHashMap::new));
        }
    }

    private static void cut(Path file, long length) throws Exception {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(length);
        }
    }

    private static void assertUnreadable(LocalObjectStore store, ObjectVersion v, String why) {
        assertThatThrownBy(() -> store.head(v.key(), v.versionId()))
                .isInstanceOf(IntegrityException.class)
                .hasMessageContaining(why);
        assertThatThrownBy(() -> {
                    try (ObjectRead read = store.get(v.key())) {
                        read.stream().readAllBytes();
                    }
                })
                .isInstanceOf(IntegrityException.class)
                .hasMessageContaining(why);
    }

    @Test
    void aDeletedContentFileListsItsObjectAtZeroBytesAndItCannotBeRead() throws Exception {
        try (LocalObjectStore store = LocalObjectStore.open(root)) {
            ObjectVersion big = store.put("data/0a/big", ObjectContent.ofBytes(random(200_000, 1)));
            store.put("data/0b/other", ObjectContent.ofBytes(random(200_000, 2)));
            assertThat(listing(store, ListRequest.prefix("data/")))
                    .containsEntry("data/0a/big", 200_000L)
                    .hasSize(2);

            List<VersionEntry> before = store.listVersions("data/0a/");
            Files.delete(blobFile(big));

            assertThat(listing(store, ListRequest.prefix("data/")))
                    .containsExactly(Map.entry("data/0a/big", 0L), Map.entry("data/0b/other", 200_000L));
            assertThat(listing(store, ListRequest.prefix("data/").withDelimiter("/")))
                    .containsOnlyKeys("data/0a/", "data/0b/");
            assertThat(store.list("data/")).containsExactly("data/0a/big", "data/0b/other");
            assertThat(store.listVersions("data/"))
                    .extracting(VersionEntry::key, VersionEntry::size)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple("data/0a/big", 0L),
                            org.assertj.core.groups.Tuple.tuple("data/0b/other", 200_000L));
            assertThat(store.versions("data/0a/big"))
                    .singleElement()
                    .satisfies(v -> assertThat(v.versionId()).isEqualTo(big.versionId()))
                    .satisfies(v -> assertThat(v.size()).isZero());
            assertThat(store.missingContent(store.versions("data/0a/big")).values())
                    .singleElement()
                    .asString()
                    .contains("is missing");
            assertThat(store.missingContent(before).values())
                    .singleElement()
                    .asString()
                    .contains("is missing");
            assertUnreadable(store, big, "is missing");
        }
    }

    @Test
    void aCutContentFileIsListedAtItsRealSizeAndCannotBeRead() throws Exception {
        try (LocalObjectStore store = LocalObjectStore.open(root)) {
            ObjectVersion big = store.put("data/0a/big", ObjectContent.ofBytes(random(200_000, 1)));
            cut(blobFile(big), 100_000);

            assertThat(listing(store, ListRequest.prefix("data/"))).containsExactly(Map.entry("data/0a/big", 100_000L));
            assertThat(store.list("data/")).containsExactly("data/0a/big");
            List<VersionEntry> versions = store.listVersions("data/");
            assertThat(versions)
                    .singleElement()
                    .satisfies(v -> assertThat(v.size()).isEqualTo(100_000L));
            assertThat(store.missingContent(versions)).hasSize(1);
            assertUnreadable(store, big, "has 100000 bytes but 200000 are recorded");
        }
    }

    /**
     * A content over 1 MiB has a digest per block: a cut file still serves a range its remaining
     * bytes hold (what a repository reads of the intact chunks of a cut pack, as on S3), checked; a
     * range past its end is refused before a byte is handed out.
     */
    @Test
    void aCutLargeContentFileStillServesTheRangesItHoldsAndRefusesTheOthers() throws Exception {
        byte[] bytes = random(3 << 20, 7);
        try (LocalObjectStore store = LocalObjectStore.open(root)) {
            ObjectVersion big = store.put("data/0a/big", ObjectContent.ofBytes(bytes));
            cut(blobFile(big), 2 << 20);

            assertThat(listing(store, ListRequest.prefix("data/"))).containsExactly(Map.entry("data/0a/big", 2L << 20));
            try (ObjectRead read = store.get(
                    "data/0a/big",
                    dev.ballast.storage.object.ReadOptions.latest()
                            .withRange(dev.ballast.storage.object.ByteRange.of(1_000, 5_000)))) {
                assertThat(read.stream().readAllBytes()).isEqualTo(java.util.Arrays.copyOfRange(bytes, 1_000, 6_000));
            }
            assertThatThrownBy(() -> {
                        try (ObjectRead read = store.get(
                                "data/0a/big",
                                dev.ballast.storage.object.ReadOptions.latest()
                                        .withRange(dev.ballast.storage.object.ByteRange.of((2 << 20) + 100, 5_000)))) {
                            read.stream().readAllBytes();
                        }
                    })
                    .isInstanceOf(IntegrityException.class)
                    .hasMessageContaining("has " + (2 << 20) + " bytes");
            assertUnreadable(store, big, "has " + (2 << 20) + " bytes but " + (3 << 20) + " are recorded");
        }
    }

    /**
     * A range read with {@code verifyRange(false)} is served exactly as stored, marked unverified: its
     * caller authenticates the bytes itself (the backup library's packs, sealed blob by blob). A
     * verified read of the same range refuses the changed byte.
     */
    @Test
    void aRangeReadWithoutBlockChecksIsServedAsStoredAndMarkedUnverified() throws Exception {
        byte[] bytes = random(3 << 20, 9);
        try (LocalObjectStore store = LocalObjectStore.open(root)) {
            ObjectVersion big = store.put("data/0a/big", ObjectContent.ofBytes(bytes));
            long at = (2 << 20) + 10;
            try (RandomAccessFile raf = new RandomAccessFile(blobFile(big).toFile(), "rw")) {
                raf.seek(at);
                raf.write(bytes[(int) at] ^ 0x01);
            }
            dev.ballast.storage.object.ReadOptions asStored = dev.ballast.storage.object.ReadOptions.latest()
                    .withRange(dev.ballast.storage.object.ByteRange.of(at - 5, 10))
                    .withVerifyRange(false);

            try (ObjectRead read = store.get("data/0a/big", asStored)) {
                byte[] expected = java.util.Arrays.copyOfRange(bytes, (int) at - 5, (int) at + 5);
                expected[5] ^= 0x01;
                assertThat(read.stream().readAllBytes()).isEqualTo(expected);
                assertThat(read.verified()).isFalse();
            }
            try (ObjectRead read = store.get(
                    "data/0a/big", asStored.withRange(dev.ballast.storage.object.ByteRange.of(1_000, 5_000)))) {
                assertThat(read.stream().readAllBytes()).isEqualTo(java.util.Arrays.copyOfRange(bytes, 1_000, 6_000));
            }
            assertThatThrownBy(() -> {
                        try (ObjectRead read = store.get("data/0a/big", asStored.withVerifyRange(true))) {
                            read.stream().readAllBytes();
                        }
                    })
                    .isInstanceOf(IntegrityException.class);
        }
    }

    @Test
    void aDeletedPackFileListsEveryObjectInItAtZeroBytes() throws Exception {
        try (LocalObjectStore store = LocalObjectStore.open(root)) {
            ObjectVersion small = store.put("data/0a/small", ObjectContent.ofBytes(random(1_000, 1)));
            store.put("data/0b/big", ObjectContent.ofBytes(random(200_000, 2)));
            assertThat(packFiles()).hasSize(1);

            Files.delete(packFiles().get(0));

            assertThat(listing(store, ListRequest.prefix("data/")))
                    .containsExactly(Map.entry("data/0a/small", 0L), Map.entry("data/0b/big", 200_000L));
            assertThat(store.listVersions("data/0a/"))
                    .singleElement()
                    .satisfies(v -> assertThat(v.size()).isZero());
            assertUnreadable(store, small, "is missing");
        }
    }

    @Test
    void aCutPackFileListsWhatItStillHolds() throws Exception {
        try (LocalObjectStore store = LocalObjectStore.open(root)) {
            List<ObjectVersion> written = new java.util.ArrayList<>();
            for (int i = 0; i < 3; i++) {
                written.add(store.put("k/" + i, ObjectContent.ofBytes(random(1_000, i))));
            }
            List<Path> packs = packFiles();
            assertThat(packs).hasSize(1);
            long length = Files.size(packs.get(0));
            assertThat(length).isGreaterThanOrEqualTo(3_000);
            // The pack ends 500 bytes into the last content written: the first two are whole.
            long end = length - 500;
            cut(packs.get(0), end);

            Map<String, Long> listed = listing(store, ListRequest.prefix("k/"));
            assertThat(listed).containsEntry("k/0", 1_000L).containsEntry("k/1", 1_000L);
            assertThat(listed.get("k/2")).isEqualTo(500L);
            assertThat(store.listVersions("k/2"))
                    .singleElement()
                    .satisfies(v -> assertThat(v.size()).isEqualTo(500L));
            assertUnreadable(store, written.get(2), "ends at byte " + end);
            try (ObjectRead read = store.get("k/1")) {
                assertThat(read.stream().readAllBytes()).isEqualTo(random(1_000, 1));
            }

            // A pack file still there but empty: its contents list at the 0 bytes they still have.
            cut(packs.get(0), 0);
            assertThat(listing(store, ListRequest.prefix("k/")))
                    .containsExactly(Map.entry("k/0", 0L), Map.entry("k/1", 0L), Map.entry("k/2", 0L));
            assertThat(store.listVersions("k/")).extracting(VersionEntry::size).containsExactly(0L, 0L, 0L);
            assertUnreadable(store, written.get(0), "ends at byte 0");
        }
    }

    /** A pack that grows while a listing runs is looked at again, not reported cut from its earlier length. */
    @Test
    void aContentAppendedToAPackDuringAListingIsListedWhole() throws Exception {
        try (LocalObjectStore store = LocalObjectStore.open(root)) {
            store.put("k/0", ObjectContent.ofBytes(random(1_000, 0)));
            try (Stream<ListEntry> s = store.listing(ListRequest.prefix("k/").withPageSize(1))) {
                java.util.Iterator<ListEntry> it = s.iterator();
                assertThat(it.next().size()).isEqualTo(1_000L);
                store.put("k/1", ObjectContent.ofBytes(random(1_000, 1)));
                assertThat(packFiles()).hasSize(1);
                ListEntry next = it.next();
                assertThat(next.key()).isEqualTo("k/1");
                assertThat(next.size()).isEqualTo(1_000L);
            }
        }
    }

    @Test
    void lostFilesInAPageAreListedAndTheListingGoesOnToTheEnd() throws Exception {
        try (LocalObjectStore store = LocalObjectStore.open(root)) {
            List<ObjectVersion> written = new java.util.ArrayList<>();
            for (int i = 0; i < 10; i++) {
                written.add(store.put(String.format("f/%02d", i), ObjectContent.ofBytes(random(70_000, i))));
            }
            for (int i = 2; i < 6; i++) {
                Files.delete(blobFile(written.get(i)));
            }

            Map<String, Long> listed = listing(store, ListRequest.prefix("f/").withPageSize(3));
            assertThat(listed).hasSize(10);
            assertThat(listed.entrySet().stream()
                            .filter(e -> e.getValue() == 0L)
                            .map(Map.Entry::getKey))
                    .containsExactly("f/02", "f/03", "f/04", "f/05");
            assertThat(listing(store, ListRequest.prefix("f/").withPageSize(3).withStartAfter("f/01"))
                            .keySet())
                    .containsExactly("f/02", "f/03", "f/04", "f/05", "f/06", "f/07", "f/08", "f/09");
        }
    }
}
