package dev.ballast.backup.tree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AttributesTest {
    private static final Instant MTIME = Instant.parse("2021-03-04T05:06:07.123456789Z");

    private static void assumeRoot(Path dir) throws IOException {
        Path probe = Files.createFile(dir.resolve("probe"));
        assumeThat(Files.getAttribute(probe, "unix:uid"))
                .as("owners are restored only as root")
                .isEqualTo(0);
        Files.delete(probe);
    }

    @Test
    void aRestoredFileGetsItsOwnerGroupTimeAndModeAsRoot(@TempDir Path dir) throws IOException {
        assumeRoot(dir);
        Path file = Files.writeString(dir.resolve("f"), "x");

        Attributes.applyToOwnFile(file, new PosixAttrs(0640, 1234, 5678), MTIME, true);

        assertThat(Files.getAttribute(file, "unix:uid")).isEqualTo(1234);
        assertThat(Files.getAttribute(file, "unix:gid")).isEqualTo(5678);
        assertThat(Files.getAttribute(file, "unix:mode")).isEqualTo(0100640);
        assertThat(Files.getLastModifiedTime(file).toInstant()).isEqualTo(MTIME);
    }

    @Test
    void aLinksOwnerIsTheLinksNotItsTargets(@TempDir Path dir) throws IOException {
        assumeRoot(dir);
        Path target = Files.writeString(dir.resolve("target"), "x");
        Path link = Files.createSymbolicLink(dir.resolve("link"), target.getFileName());

        Attributes.chown(link, new PosixAttrs(0777, 4321, 8765));

        assertThat(Files.getAttribute(link, "unix:uid", LinkOption.NOFOLLOW_LINKS))
                .isEqualTo(4321);
        assertThat(Files.getAttribute(link, "unix:gid", LinkOption.NOFOLLOW_LINKS))
                .isEqualTo(8765);
        assertThat(Files.getAttribute(target, "unix:uid")).isEqualTo(0);
        assertThat(Files.getAttribute(target, "unix:gid")).isEqualTo(0);
    }

    @Test
    void withoutOwnershipOnlyTimeAndModeChange(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("f"), "x");
        Object uid = Files.getAttribute(file, "unix:uid");

        Attributes.applyToOwnFile(file, new PosixAttrs(0600, 1234, 5678), MTIME, false);

        assertThat(Files.getAttribute(file, "unix:uid")).isEqualTo(uid);
        assertThat(Files.getAttribute(file, "unix:mode")).isEqualTo(0100600);
        assertThat(Files.getLastModifiedTime(file).toInstant()).isEqualTo(MTIME);
    }
}
