package dev.ballast.backup.restore;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The directories above a restore's tree whose entries it made are synced too where each directory
 * is synced one by one (no {@code sync -f}): the target, and the directories the run created on the
 * way to it with the existing one it created them in (tester's finding: the target and its new
 * parents were not synced, so a power loss could take whole restored subtrees the run called complete).
 */
class RestoreEntriesAboveTest {
    @TempDir
    Path dir;

    @Test
    void aTargetTheRunCreatesBringsEachDirectoryItCreatedAndTheOneItCreatedThemIn() throws Exception {
        Path target = dir.resolve("x/y/target");
        Path existing = RestoreDirectories.nearestExisting(target);
        assertThat(existing).isEqualTo(dir.toAbsolutePath());
        Files.createDirectories(target);
        Path real = target.toRealPath();

        assertThat(RestoreDirectories.entriesAbove(real, existing))
                .containsExactly(real, real.getParent(), real.getParent().getParent(), dir.toRealPath());
    }

    @Test
    void anExistingTargetBringsItselfOnly() throws Exception {
        Path target = Files.createDirectories(dir.resolve("t"));
        assertThat(RestoreDirectories.entriesAbove(target.toRealPath(), RestoreDirectories.nearestExisting(target)))
                .containsExactly(target.toRealPath());
    }
}
