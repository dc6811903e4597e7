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
        try (DirectoryIdentities prepared = new DirectoryIdentities(List.of(c, kept));
                DirectoryIdentities.Lease lease = prepared.lease(c);
                DirectoryIdentities.Lease other = prepared.lease(kept)) {
            SecureDirectoryStream<Path> held = lease.stream();
            assertThat(held).isNotNull();
            assertThat(other.stream()).isNotNull();

            Files.move(c, dir.resolve("c.moved"));
            Files.createSymbolicLink(c, elsewhere);
            try (SeekableByteChannel ch = held.newByteChannel(
                    Path.of("f"), Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE))) {
                ch.write(ByteBuffer.wrap("x".getBytes(StandardCharsets.UTF_8)));
            }

            assertThat(dir.resolve("c.moved/f")).hasContent("x");
            assertThat(elsewhere).isEmptyDirectory();
            try (DirectoryIdentities.Lease again = prepared.lease(c)) {
                assertThat(again.stream()).as("held, not opened again by path").isSameAs(held);
            }
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

            assertThatThrownBy(() -> prepared.lease(c))
                    .isInstanceOf(DirectoryIdentities.DirectoryReplacedException.class);
            assertThatThrownBy(() -> prepared.lease(c))
                    .as("and at every later call")
                    .isInstanceOf(DirectoryIdentities.DirectoryReplacedException.class);
        }
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void pastTheMostHeldOpenTheOneIdleLongestIsClosedAndOpenedAgainWhenNeeded(@TempDir Path dir) throws Exception {
        List<Path> dirs = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            dirs.add(Files.createDirectories(dir.resolve("d" + i)));
        }
        try (DirectoryIdentities prepared = new DirectoryIdentities(dirs, 2)) {
            DirectoryIdentities.Lease d0 = prepared.lease(dirs.get(0));
            DirectoryIdentities.Lease d1 = prepared.lease(dirs.get(1));
            assertThat(d0.stream()).isNotNull();
            assertThat(d1.stream()).isNotNull();
            try (DirectoryIdentities.Lease busy = prepared.lease(dirs.get(2))) {
                assertThat(busy.stream()).as("both held ones in use: by path").isNull();
            }
            SecureDirectoryStream<Path> first = d0.stream();
            d0.close();
            try (DirectoryIdentities.Lease d2 = prepared.lease(dirs.get(2))) {
                assertThat(d2.stream()).as("d0, idle, closed for room").isNotNull();
            }
            assertThatThrownBy(() -> first.iterator()).as("d0's stream closed").isInstanceOf(RuntimeException.class);

            // d0 swapped while it was closed: refused when opened again
            Files.move(dirs.get(0), dir.resolve("d0.moved"));
            Files.createDirectories(dirs.get(0));
            d1.close();
            assertThatThrownBy(() -> prepared.lease(dirs.get(0)))
                    .isInstanceOf(DirectoryIdentities.DirectoryReplacedException.class);
            assertThat(prepared.movedAway()).containsExactly(dirs.get(0));
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

            try (DirectoryIdentities.Lease lease = prepared.lease(c)) {
                assertThat(lease.stream()).isNull();
            }
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
                DirectoryIdentities.Lease held = prepared.hold(c)) {
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
            Files.setPosixFilePermissions(held.itself(), PosixFilePermissions.fromString("rwx------"));
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
