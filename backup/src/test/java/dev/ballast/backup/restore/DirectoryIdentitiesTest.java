package dev.ballast.backup.restore;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
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
}
