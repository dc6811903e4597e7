package dev.ballast.it.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.cli.ExitCodes;
import dev.ballast.it.cli.CliHarness.Run;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * File metadata round-trips through backup and restore on the default local store and on S3Mock:
 * modes (755, 600, 700, set-group-ID), file and directory mtimes, empty directories, hard links,
 * symbolic links (relative, absolute, dangling: stored as links, never followed) and, as root,
 * owners and groups; and a manifest written before any of these were recorded still restores.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@ExtendWith(LeakCheck.class)
class CliMetadataIT {
    static final Instant OLD = Instant.parse("2024-02-03T04:05:06Z");

    @TempDir
    static Path base;

    static Run ballast(StoreKind store, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(store.args(base.resolve("data"), "cli-metadata-it"));
        return CliHarness.run(base.resolve("home"), p -> {}, all.toArray(String[]::new));
    }

    static boolean root() throws IOException {
        Path probe = Files.createTempFile(base, "probe", "");
        try {
            return (Integer) Files.getAttribute(probe, "unix:uid") == 0;
        } finally {
            Files.delete(probe);
        }
    }

    static Path tree(Path root) throws IOException {
        Files.createDirectories(root.resolve("bin"));
        Files.createDirectories(root.resolve("private"));
        Files.createDirectories(root.resolve("empty/nested-empty"));
        Files.createDirectories(root.resolve("shared"));
        write(root.resolve("bin/tool"), "#!/bin/sh\necho hi\n", "rwxr-xr-x");
        write(root.resolve("private/key"), "secret", "rw-------");
        write(root.resolve("readme.txt"), "plain", "rw-r--r--");
        write(root.resolve("shared/data"), "group data", "rw-rw-r--");
        Files.setAttribute(root.resolve("shared"), "unix:mode", 02775);
        Files.createLink(root.resolve("bin/tool-hardlink"), root.resolve("bin/tool"));
        Files.createSymbolicLink(root.resolve("tool-link"), Path.of("bin/tool"));
        Files.createSymbolicLink(root.resolve("absolute-link"), Path.of("/etc/hostname"));
        Files.createSymbolicLink(root.resolve("dangling-link"), Path.of("no/such/target"));
        Files.createSymbolicLink(root.resolve("dir-link"), Path.of("private"));
        if (root()) {
            Files.setAttribute(root.resolve("readme.txt"), "unix:uid", 1234);
            Files.setAttribute(root.resolve("readme.txt"), "unix:gid", 5678);
            Files.setAttribute(root.resolve("shared"), "unix:gid", 4321);
            Files.setAttribute(root.resolve("tool-link"), "unix:uid", 2345, LinkOption.NOFOLLOW_LINKS);
        }
        Files.setPosixFilePermissions(root.resolve("private"), PosixFilePermissions.fromString("rwx------"));
        // Times last, deepest first: creating an entry moves its directory's mtime.
        try (Stream<Path> all = Files.walk(root)) {
            List<Path> paths = all.filter(p -> !p.equals(root))
                    .sorted(Comparator.reverseOrder())
                    .toList();
            long n = 0;
            for (Path p : paths) {
                Files.getFileAttributeView(p, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                        .setTimes(FileTime.from(OLD.plusSeconds(n++ * 3600)), null, null);
            }
        }
        return root;
    }

    static void write(Path file, String content, String mode) throws IOException {
        Files.writeString(file, content, StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
    }

    /** Every entry under {@code root}, not following links: kind, mode, owner, mtime, link target, hard-link group. */
    static Map<String, String> metadata(Path root) throws IOException {
        Map<String, String> map = new TreeMap<>();
        Map<Object, String> inodes = new HashMap<>();
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : (Iterable<Path>) all.filter(p -> !p.equals(root)).sorted()::iterator) {
                Map<String, Object> a = Files.readAttributes(
                        p, "unix:mode,uid,gid,lastModifiedTime,ino,nlink", LinkOption.NOFOLLOW_LINKS);
                String rel = root.relativize(p).toString();
                boolean link = Files.isSymbolicLink(p);
                String kind = link
                        ? "link -> " + Files.readSymbolicLink(p)
                        : Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS) ? "dir" : "file " + CliHarness.sha256(p);
                String group = (Integer) a.get("nlink") > 1 && !Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)
                        ? " hardlinks-with " + inodes.computeIfAbsent(a.get("ino"), k -> rel)
                        : "";
                String mode = link ? "" : " mode " + Integer.toOctalString((Integer) a.get("mode") & 07777);
                map.put(
                        rel,
                        kind + mode + " owner " + a.get("uid") + ":" + a.get("gid") + " mtime "
                                + a.get("lastModifiedTime") + group);
            }
        }
        return map;
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void modesTimesDirectoriesLinksAndOwnersComeBackAsTheyWere(StoreKind store) throws IOException {
        Path source = tree(base.resolve("meta-" + store));
        Map<String, String> expected = metadata(source);
        assertThat(expected).containsKeys("empty/nested-empty", "tool-link", "dangling-link", "bin/tool-hardlink");

        Run backup = ballast(store, "backup", source.toString());
        assertThat(backup.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(backup.err()).doesNotContain("Skipped");

        Path target = base.resolve("meta-restored-" + store);
        Run restore = ballast(store, "restore", "meta-" + store, target.toString());
        assertThat(restore.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(metadata(target)).isEqualTo(expected);
        if (root()) {
            assertThat(expected.get("readme.txt")).contains("owner 1234:5678");
            assertThat(expected.get("tool-link")).contains("owner 2345:");
        }
        assertThat(expected.get("shared")).contains("mode 2775");

        Run again = ballast(store, "backup", source.toString());
        assertThat(again.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(again.out()).contains("0 files stored");
    }

    /**
     * A manifest as ballast wrote it before modes, owners, directories and links were recorded
     * (no such fields): it restores with contents and file mtimes, and the next backup records the
     * metadata without uploading the unchanged contents again.
     */
    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void aManifestWrittenBeforeMetadataWasRecordedStillRestores(StoreKind store) throws IOException {
        String name = "old-format-" + store;
        Path target = base.resolve("old-restored-" + store);
        try (StorageFacade facade = store.open(base.resolve("data"), "cli-metadata-it")) {
            ObjectStore objects = facade.objects();
            ObjectVersion a =
                    objects.put(name + "/bin/run.sh", ObjectContent.ofBytes("#!\n".getBytes(StandardCharsets.UTF_8)));
            ObjectVersion b =
                    objects.put(name + "/notes/a.txt", ObjectContent.ofBytes("hello".getBytes(StandardCharsets.UTF_8)));
            String manifest;
            try (var in = CliMetadataIT.class.getResourceAsStream("/cli/manifest-format1-before-metadata.json")) {
                manifest = new String(in.readAllBytes(), StandardCharsets.UTF_8)
                        .replace("${name}", name)
                        .replace("${sha-a}", a.sha256())
                        .replace("${version-a}", a.versionId())
                        .replace("${sha-b}", b.sha256())
                        .replace("${version-b}", b.versionId());
            }
            assertThat(manifest).doesNotContain("\"mode\"", "directories", "symlinks", "hardLinks");
            objects.put(
                    name + "/.ballast-manifest.json", ObjectContent.ofBytes(manifest.getBytes(StandardCharsets.UTF_8)));
        }
        Run restore = ballast(store, "restore", name, target.toString());
        assertThat(restore.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(target.resolve("bin/run.sh")).hasContent("#!");
        assertThat(target.resolve("notes/a.txt")).hasContent("hello");
        assertThat(Files.getLastModifiedTime(target.resolve("notes/a.txt")).toInstant())
                .isEqualTo(Instant.parse("2026-11-28T09:00:00Z"));
    }
}
