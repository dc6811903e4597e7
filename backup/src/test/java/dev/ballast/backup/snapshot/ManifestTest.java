package dev.ballast.backup.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.backup.BackupException;
import dev.ballast.backup.tree.Names;
import dev.ballast.backup.tree.PosixAttrs;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ManifestTest {
    static final String SHA = "a".repeat(64);
    static final Instant T = Instant.parse("2026-11-29T10:15:30Z");

    static String json(String path) {
        return json(1, path, SHA);
    }

    static String json(int format, String path, String sha) {
        return """
        {"formatVersion": %d, "name": "n", "createdAt": "2026-11-29T10:15:30Z", "complete": true,
         "files": [{"path": "%s", "size": 3, "sha256": "%s", "versionId": "v1", "mtime": "2026-11-29T10:15:30Z"}]}
        """.formatted(format, path, sha);
    }

    @Test
    void roundTripsEveryField() {
        Manifest m = new Manifest(
                1,
                "photos",
                T,
                false,
                List.of(
                        new ManifestEntry("a b/ü+x.txt", 3, SHA, "v-1", T, T.plusNanos(123_456_789), 4242L),
                        new ManifestEntry("old.txt", 3, SHA, "v-2", T)),
                List.of("missing.bin"));
        Manifest back = Manifest.parse(m.toJson(), "test");
        assertThat(back).isEqualTo(m);
        assertThat(new String(m.toJson(), StandardCharsets.UTF_8))
                .contains(
                        "\"formatVersion\":1",
                        "\"complete\":false",
                        "\"sha256\":\"" + SHA + "\"",
                        "\"versionId\":\"v-1\"",
                        "\"mtime\":\"2026-11-29T10:15:30Z\"",
                        "\"ctime\":\"2026-11-29T10:15:30.123456789Z\"",
                        "\"inode\":4242")
                .as("an entry without ctime and inode is written as earlier versions wrote it")
                .contains("{\"path\":\"old.txt\",\"size\":3,\"sha256\":\"" + SHA + "\",\"versionId\":\"v-2\","
                        + "\"mtime\":\"2026-11-29T10:15:30Z\"}");
    }

    @Test
    void recordsTheSourceByteForByteAndTheHostAndReadsAManifestWithoutThem() {
        String source = "/home/me/" + Names.decode(new byte[] {'d', (byte) 0xE9});
        Manifest m = new Manifest(
                2, "docs", T, true, List.of(), List.of(), List.of(), null, ManifestTree.EMPTY, source, "build1");
        Manifest back = Manifest.parse(m.toJson(), "test");
        assertThat(back).isEqualTo(m);
        assertThat(Names.encode(back.source())).endsWith((byte) 'd', (byte) 0xE9);
        assertThat(back.host()).isEqualTo("build1");
        assertThat(new String(m.toJson(), StandardCharsets.UTF_8)).contains("\"host\":\"build1\"");

        Manifest before = Manifest.parse(json(2, "a.txt", SHA).getBytes(StandardCharsets.UTF_8), "before");
        assertThat(before.source()).isNull();
        assertThat(before.host()).isNull();
        assertThat(new String(before.toJson(), StandardCharsets.UTF_8))
                .doesNotContain("\"host\"")
                .doesNotContain("\"source\"");
    }

    @Test
    void roundTripsStaleEntriesAndWhyARunIsIncompleteAndReadsManifestsWithoutThem() {
        Manifest m = new Manifest(
                1,
                "photos",
                T,
                true,
                List.of(new ManifestEntry("busy.log", 3, SHA, "v-0", T)),
                List.of("busy.log", "new.bin"),
                List.of(new Manifest.Stale("busy.log", "it changed while it was being backed up")),
                null);
        assertThat(Manifest.parse(m.toJson(), "test")).isEqualTo(m);
        Manifest cut = new Manifest(1, "photos", T, false, List.of(), List.of("a"), List.of(), "it was interrupted");
        assertThat(Manifest.parse(cut.toJson(), "test")).isEqualTo(cut);
        Manifest old = Manifest.parse(json("a.txt").getBytes(StandardCharsets.UTF_8), "test");
        assertThat(old.stale()).isEmpty();
        assertThat(old.incompleteBecause()).isNull();
        assertThat(new String(new Manifest(1, "n", T, true, List.of(), List.of()).toJson(), StandardCharsets.UTF_8))
                .as("a manifest with neither is written as earlier versions wrote it")
                .doesNotContain("stale")
                .doesNotContain("incompleteBecause");
    }

    @Test
    void parsesAPlainManifest() {
        Manifest m = Manifest.parse(json("dir/file.txt").getBytes(StandardCharsets.UTF_8), "test");
        assertThat(m.files()).singleElement().satisfies(e -> {
            assertThat(e.path()).isEqualTo("dir/file.txt");
            assertThat(e.size()).isEqualTo(3);
            assertThat(e.versionId()).isEqualTo("v1");
        });
        assertThat(m.complete()).isTrue();
    }

    @Test
    void refusesAManifestNamingDotDot() {
        assertThatThrownBy(() -> Manifest.parse(json("../x").getBytes(StandardCharsets.UTF_8), "test"))
                .isInstanceOfSatisfying(
                        BackupException.class, f -> assertThat(f.kind()).isEqualTo(BackupException.Kind.INTEGRITY))
                .hasMessageContaining("'../x'")
                .hasMessageContaining("refused");
    }

    @Test
    void refusesAbsoluteAndEscapingPaths() {
        for (String p : List.of("/etc/passwd", "a/../../x", "a/b/../../../x")) {
            assertThatThrownBy(() -> Manifest.parse(json(p).getBytes(StandardCharsets.UTF_8), "test"))
                    .isInstanceOf(BackupException.class)
                    .hasMessageContaining(p);
        }
    }

    @Test
    void refusesANewerFormatABadDigestDuplicatesAndMalformedJson() {
        assertThatThrownBy(() -> Manifest.parse(json(4, "a", SHA).getBytes(StandardCharsets.UTF_8), "m"))
                .hasMessageContaining("format version is 4");
        // Format 3 lists chunks, not object versions: an entry with a version ID only is not one of its entries.
        assertThatThrownBy(() -> Manifest.parse(json(3, "a", SHA).getBytes(StandardCharsets.UTF_8), "m"))
                .hasMessageContaining("'a' has no chunk list in a manifest of format 3");
        assertThatThrownBy(() -> Manifest.parse(json(1, "a", "ABC").getBytes(StandardCharsets.UTF_8), "m"))
                .hasMessageContaining("SHA-256");
        String dup = json("a")
                .replace(
                        "}]}",
                        "}, {\"path\": \"a\", \"size\": 3, \"sha256\": \"" + SHA
                                + "\", \"versionId\": \"v2\", \"mtime\": \"2026-11-29T10:15:30Z\"}]}");
        assertThatThrownBy(() -> Manifest.parse(dup.getBytes(StandardCharsets.UTF_8), "m"))
                .hasMessageContaining("twice");
        assertThatThrownBy(() -> Manifest.parse("{not json".getBytes(StandardCharsets.UTF_8), "m"))
                .isInstanceOfSatisfying(
                        BackupException.class, f -> assertThat(f.kind()).isEqualTo(BackupException.Kind.INTEGRITY));
        assertThatThrownBy(() -> Manifest.parse(
                        json("a").replace("\"versionId\": \"v1\", ", "").getBytes(StandardCharsets.UTF_8), "m"))
                .isInstanceOf(BackupException.class);
    }

    /** A manifest exactly as ballast wrote it before modes, owners, directories and links were recorded. */
    static byte[] fixture() throws java.io.IOException {
        try (var in = ManifestTest.class.getResourceAsStream("/manifests/format1-before-metadata.json")) {
            return in.readAllBytes();
        }
    }

    @Test
    void aManifestWrittenBeforeMetadataWasRecordedStillReadsAndIsWrittenBackUnchanged() throws Exception {
        Manifest m = Manifest.parse(fixture(), "fixture");
        assertThat(m.files()).extracting(ManifestEntry::path).containsExactly("bin/run.sh", "notes/a.txt");
        assertThat(m.files()).allSatisfy(e -> assertThat(e.attrs()).isNull());
        assertThat(m.tree()).isEqualTo(ManifestTree.EMPTY);
        assertThat(new String(m.toJson(), StandardCharsets.UTF_8))
                .isEqualTo(new String(fixture(), StandardCharsets.UTF_8));
    }

    @Test
    void roundTripsModesOwnersDirectoriesSymlinksAndHardLinks() {
        PosixAttrs attrs = new PosixAttrs(04755, 1000, 100);
        Manifest m = new Manifest(
                1,
                "n",
                T,
                true,
                List.of(new ManifestEntry("bin/tool", 3, SHA, "v-1", T, T, 7L, attrs)),
                List.of(),
                new ManifestTree(
                        List.of(
                                new ManifestTree.Directory("bin", T, new PosixAttrs(0700, 0, 0)),
                                new ManifestTree.Directory("empty", T, null)),
                        List.of(new ManifestTree.Symlink("latest", "../bin/tool", T, new PosixAttrs(0777, 1000, 100))),
                        List.of(new ManifestTree.HardLink("bin/tool-again", "bin/tool"))));
        assertThat(Manifest.parse(m.toJson(), "test")).isEqualTo(m);
        assertThat(new String(m.toJson(), StandardCharsets.UTF_8))
                .contains(
                        "\"mode\":2541",
                        "\"uid\":1000",
                        "\"symlinks\":[{\"path\":\"latest\",\"target\":\"../bin/tool\"");
    }

    @Test
    void refusesAHardLinkToNoFileAndALinkOrDirectoryNamingDotDot() {
        String base = new String(
                new Manifest(1, "n", T, true, List.of(new ManifestEntry("a", 3, SHA, "v", T)), List.of()).toJson(),
                StandardCharsets.UTF_8);
        String orphan =
                base.replace("\"notStored\":[]", "\"notStored\":[],\"hardLinks\":[{\"path\":\"b\",\"target\":\"c\"}]");
        assertThatThrownBy(() -> Manifest.parse(orphan.getBytes(StandardCharsets.UTF_8), "test"))
                .isInstanceOfSatisfying(
                        BackupException.class, f -> assertThat(f.kind()).isEqualTo(BackupException.Kind.INTEGRITY))
                .hasMessageContaining("'b'")
                .hasMessageContaining("not a file of the manifest");
        String escape = base.replace(
                "\"notStored\":[]",
                "\"notStored\":[],\"symlinks\":[{\"path\":\"../x\",\"target\":\"/etc\",\"mtime\":\"2026-01-01T00:00:00Z\"}]");
        assertThatThrownBy(() -> Manifest.parse(escape.getBytes(StandardCharsets.UTF_8), "test"))
                .hasMessageContaining("'../x'");
        String twice = base.replace(
                "\"notStored\":[]",
                "\"notStored\":[],\"directories\":[{\"path\":\"a\",\"mtime\":\"2026-01-01T00:00:00Z\"}]");
        assertThatThrownBy(() -> Manifest.parse(twice.getBytes(StandardCharsets.UTF_8), "test"))
                .hasMessageContaining("twice");
    }

    @Test
    void aFileWhoseNameCannotBeItsOwnKeyIsStoredUnderTheHashOfItsBytes() {
        String notUtf8 = "x" + Names.decode(new byte[] {(byte) 0xFF});
        String longPath = "d".repeat(600) + "/" + "f".repeat(600);
        assertThat(Manifest.keyFor("n", "a b/ü+x.txt")).isEqualTo("n/a b/ü+x.txt");
        assertThat(Manifest.keyFor("n", ".ballastignore")).isEqualTo("n/.ballastignore");
        assertThat(Manifest.keyFor("n", "sub/.ballast-manifest.json")).isEqualTo("n/sub/.ballast-manifest.json");
        for (String path : new String[] {
            notUtf8,
            "nl\nname",
            "del\u007F",
            longPath,
            ".ballast-manifest.json",
            ".ballast-0123456789abcdef",
            ".ballast-names/x"
        }) {
            String key = Manifest.keyFor("n", path);
            assertThat(key).as(Names.printable(path)).matches("n/\\.ballast-names/[0-9a-f]{64}");
            assertThat(key).isNotEqualTo(Manifest.key("n"));
        }
        assertThat(Manifest.keyFor("n", "x" + Names.decode(new byte[] {(byte) 0xFE})))
                .isNotEqualTo(Manifest.keyFor("n", notUtf8));
        // The limit counts the key's bytes, the name's included.
        String fits = "é".repeat(511); // 1,022 bytes: with "n/" exactly 1,024
        assertThat(Manifest.keyFor("n", fits)).isEqualTo("n/" + fits);
        assertThat(Manifest.keyFor("n", fits + "x")).startsWith("n/.ballast-names/");
    }

    @Test
    void namesRoundTripThroughTheJsonByteForByteAndFormatOneKeepsItsKeys() {
        String notUtf8 = "d" + Names.decode(new byte[] {(byte) 0xC0}) + "/x" + Names.decode(new byte[] {(byte) 0xFF});
        Manifest m = new Manifest(
                Manifest.FORMAT_VERSION,
                "n",
                T,
                true,
                List.of(
                        new ManifestEntry(".ballast-manifest.json", 3, SHA, "v-1", T),
                        new ManifestEntry("café.txt", 3, SHA, "v-2", T),
                        new ManifestEntry(notUtf8, 3, SHA, "v-3", T),
                        new ManifestEntry("tab\there", 3, SHA, "v-4", T)),
                List.of("nl\nnot stored"));
        byte[] json = m.toJson();
        assertThat(Names.validUtf8(json)).as("the manifest is valid UTF-8 JSON").isTrue();
        Manifest back = Manifest.parse(json, "test");
        assertThat(back).isEqualTo(m);
        assertThat(back.files().get(2).path()).isEqualTo(notUtf8);
        assertThat(new String(json, StandardCharsets.UTF_8))
                .as("a byte that is not UTF-8 as the escape of its lone surrogate, valid JSON and UTF-8")
                .containsIgnoringCase("\\udcc0")
                .containsIgnoringCase("\\udcff")
                .contains("\"path\":\"café.txt\"", "\\t");
        assertThat(back.objectKeyOf(".ballast-manifest.json")).startsWith("n/.ballast-names/");

        // A manifest of format 1 stored every file under NAME/path: it reads, with those keys.
        Manifest old = Manifest.parse(json(1, ".ballast-x", SHA).getBytes(StandardCharsets.UTF_8), "old");
        assertThat(old.objectKeyOf(".ballast-x")).isEqualTo("n/.ballast-x");
        assertThat(old.filesWithCurrentKeys())
                .as("stored again under the current key")
                .isEmpty();
        Manifest oldPlain = Manifest.parse(json(1, "a.txt", SHA).getBytes(StandardCharsets.UTF_8), "old");
        assertThat(oldPlain.filesWithCurrentKeys()).hasSize(1);
    }
}
