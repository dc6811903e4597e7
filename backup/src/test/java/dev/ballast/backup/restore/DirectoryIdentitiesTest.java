package dev.ballast.backup.restore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

class DirectoryIdentitiesTest {
    @Test
    void aDirectoryMovedAwayAndReplacedByALinkToAnotherIsNoticed(@TempDir Path dir) throws Exception {
        Path target = Files.createDirectories(dir.resolve("t"));
        Path c = Files.createDirectories(target.resolve("c"));
        Path kept = Files.createDirectories(target.resolve("kept"));
        Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
        DirectoryIdentities prepared = new DirectoryIdentities(List.of(target, c, kept));

        Files.move(c, target.resolve("c.moved"));
        Files.createSymbolicLink(c, elsewhere);

        assertThatThrownBy(() -> prepared.check(c))
                .isInstanceOf(DirectoryIdentities.DirectoryReplacedException.class)
                .hasMessageContaining("nothing was written through it");
        assertThatCode(() -> prepared.check(kept)).doesNotThrowAnyException();
        assertThatCode(() -> prepared.check(target)).doesNotThrowAnyException();
    }

    @Test
    void aDirectoryReplacedByAnotherOfTheSameNameIsNoticedToo(@TempDir Path dir) throws Exception {
        Path c = Files.createDirectories(dir.resolve("c"));
        DirectoryIdentities prepared = new DirectoryIdentities(List.of(c));

        Files.move(c, dir.resolve("c.moved"));
        Files.createDirectories(c);

        assertThatThrownBy(() -> prepared.check(c)).isInstanceOf(DirectoryIdentities.DirectoryReplacedException.class);
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void aDirectoryHeldOpenIsWrittenRelativeToItselfWhateverStandsAtItsPathLater(@TempDir Path dir) throws Exception {
        Path c = Files.createDirectories(dir.resolve("c"));
        Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
        Path kept = Files.createDirectories(dir.resolve("kept"));
        try (DirectoryIdentities prepared = new DirectoryIdentities(List.of(c, kept))) {
            SecureDirectoryStream<Path> held = prepared.open(c);
            assertThat(held).isNotNull();
            assertThat(prepared.open(kept)).isNotNull();

            Files.move(c, dir.resolve("c.moved"));
            Files.createSymbolicLink(c, elsewhere);
            try (SeekableByteChannel ch = held.newByteChannel(
                    Path.of("f"), Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE))) {
                ch.write(ByteBuffer.wrap("x".getBytes(StandardCharsets.UTF_8)));
            }

            assertThat(dir.resolve("c.moved/f")).hasContent("x");
            assertThat(elsewhere).isEmptyDirectory();
            assertThat(prepared.open(c)).as("held, not opened again by path").isSameAs(held);
            assertThat(prepared.movedAway()).containsExactly(c);
        }
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void aDirectorySwappedBeforeItIsFirstOpenedIsRefused(@TempDir Path dir) throws Exception {
        Path c = Files.createDirectories(dir.resolve("c"));
        Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
        try (DirectoryIdentities prepared = new DirectoryIdentities(List.of(c))) {
            Files.move(c, dir.resolve("c.moved"));
            Files.createSymbolicLink(c, elsewhere);

            assertThatThrownBy(() -> prepared.open(c))
                    .isInstanceOf(DirectoryIdentities.DirectoryReplacedException.class);
            assertThatThrownBy(() -> prepared.open(c))
                    .as("and at every later call")
                    .isInstanceOf(DirectoryIdentities.DirectoryReplacedException.class);
        }
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void pastTheMostHeldOpenDirectoriesAreCheckedByPathInstead(@TempDir Path dir) throws Exception {
        List<Path> dirs = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            dirs.add(Files.createDirectories(dir.resolve("d" + i)));
        }
        try (DirectoryIdentities prepared = new DirectoryIdentities(dirs, 3)) {
            for (int i = 0; i < 3; i++) {
                assertThat(prepared.open(dirs.get(i))).isNotNull();
            }
            assertThat(prepared.open(dirs.get(3))).isNull();

            Path last = dirs.get(4);
            Files.move(last, dir.resolve("last.moved"));
            Files.createDirectories(last);
            assertThatThrownBy(() -> prepared.open(last))
                    .isInstanceOf(DirectoryIdentities.DirectoryReplacedException.class);
            assertThat(prepared.movedAway()).as("held or not").containsExactly(last);
        }
    }

    @Test
    void atMostAnEighthOfTheFilesTheProcessMayOpenAreDirectoriesHeldOpen() {
        assertThat(DirectoryIdentities.maxOpen()).isBetween(0, DirectoryIdentities.MAX_OPEN);
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void aDirectoryNobodyMayReadIsCheckedByPathInstead(@TempDir Path dir) throws Exception {
        Path c = Files.createDirectories(dir.resolve("c"));
        try (DirectoryIdentities prepared = new DirectoryIdentities(List.of(c))) {
            Files.setPosixFilePermissions(c, PosixFilePermissions.fromString("-wx------"));
            assumeThat(Files.isReadable(c))
                    .as("not root, who reads every directory")
                    .isFalse();

            assertThat(prepared.open(c)).isNull();
        } finally {
            Files.setPosixFilePermissions(c, PosixFilePermissions.fromString("rwx------"));
        }
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void linksAndAttributesMadeThroughAHeldDirectoryLandInItWhateverStandsAtItsPath(@TempDir Path dir)
            throws Exception {
        // A tester's root restore, the directory swapped for a link to theirs between the check and the
        // call (a system call held 4 s with strace): a symbolic link replaced their file, a hard link was
        // made to theirs, their directory got the backup's mode and mtime.
        Path c = Files.createDirectories(dir.resolve("c"));
        Files.writeString(c.resolve("first"), "ours");
        Path victim = Files.createDirectories(dir.resolve("victim"));
        Files.writeString(victim.resolve("first"), "theirs");
        Files.writeString(victim.resolve("sl"), "theirs too");
        Files.setPosixFilePermissions(victim, PosixFilePermissions.fromString("rwxr-xr-x"));
        try (DirectoryIdentities prepared = new DirectoryIdentities(List.of(c));
                DirectoryIdentities.Held held = prepared.hold(c)) {
            assumeThat(held.resolve(c.resolve("sl")))
                    .as("the descriptor within reach (java.base/sun.nio.fs opened)")
                    .isNotEqualTo(c.resolve("sl"));

            Files.move(c, dir.resolve("c.moved"));
            Files.createSymbolicLink(c, victim);
            Files.createSymbolicLink(held.resolve(c.resolve("sl.tmp")), Path.of("first"));
            Files.move(
                    held.resolve(c.resolve("sl.tmp")),
                    held.resolve(c.resolve("sl")),
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            Files.createLink(held.resolve(c.resolve("second")), held.resolve(c.resolve("first")));
            Files.setPosixFilePermissions(held.itself(c), PosixFilePermissions.fromString("rwx------"));
        }

        Path moved = dir.resolve("c.moved");
        assertThat(Files.readSymbolicLink(moved.resolve("sl"))).isEqualTo(Path.of("first"));
        assertThat(moved.resolve("second")).hasContent("ours");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(moved)))
                .isEqualTo("rwx------");
        assertThat(victim.resolve("sl")).hasContent("theirs too");
        assertThat(victim.resolve("second")).doesNotExist();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(victim)))
                .isEqualTo("rwxr-xr-x");
    }
}
