package dev.ballast.backup.restore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.Cancellation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RestoreDirectoriesTest {
    @TempDir
    Path dir;

    RestoreDirectories directories(Path target, Cancellation cancellation) throws IOException {
        Path t = Files.createDirectories(target).toAbsolutePath().normalize();
        return new RestoreDirectories(t, t.toRealPath(), false, cancellation);
    }

    @Test
    void aChainOfNestedDirectoriesIsExaminedOnceADirectoryWhateverTheOrder() throws IOException {
        Path target = dir.resolve("out");
        RestoreDirectories dirs = directories(target, new Cancellation());
        List<Path> chain = new ArrayList<>();
        Path p = target.toAbsolutePath().normalize();
        for (int i = 0; i < 300; i++) {
            p = p.resolve("d");
            chain.add(p);
        }
        Collections.shuffle(chain, new java.util.Random(7));

        for (Path d : chain) {
            assertThat(dirs.prepare(d)).isInstanceOf(RestoreDirectories.Usable.class);
        }

        // Walking from the target to each of them examined 300 * 301 / 2 = 45,150 directories.
        assertThat(dirs.examined()).isEqualTo(300);
        assertThat(p).isDirectory();
    }

    @Test
    void aNameTooLongFailsItsDirectoryAndWhatIsBelowItOnly() throws IOException {
        Path target = dir.resolve("out");
        RestoreDirectories dirs = directories(target, new Cancellation());
        Path root = target.toAbsolutePath().normalize();
        Path tooLong = root.resolve("n".repeat(300));

        assertThat(dirs.prepare(tooLong.resolve("below")))
                .isInstanceOfSatisfying(
                        RestoreDirectories.Failed.class,
                        f -> assertThat(f.reason()).contains("File name too long", "255 bytes a name"));
        assertThat(dirs.stateOf(tooLong)).isInstanceOf(RestoreDirectories.Failed.class);
        assertThat(dirs.prepare(root.resolve("fine/too"))).isInstanceOf(RestoreDirectories.Usable.class);
        assertThat(root.resolve("fine/too")).isDirectory();
    }

    @Test
    void aLinkLeadingOutsideTheTargetMakesEverythingBelowItUnsafeAndNothingIsCreatedThere() throws IOException {
        Path target = Files.createDirectories(dir.resolve("out"));
        Path outside = Files.createDirectories(dir.resolve("outside"));
        Files.createSymbolicLink(target.resolve("a"), outside);
        RestoreDirectories dirs = directories(target, new Cancellation());
        Path root = target.toAbsolutePath().normalize();

        assertThat(dirs.prepare(root.resolve("a/b/c"))).isInstanceOf(RestoreDirectories.Unsafe.class);
        assertThat(outside.resolve("b")).doesNotExist();
    }

    @Test
    void afterCancellationNoFurtherDirectoryIsCreated() throws IOException {
        Path target = dir.resolve("out");
        Cancellation cancellation = new Cancellation();
        RestoreDirectories dirs = directories(target, cancellation);
        Path root = target.toAbsolutePath().normalize();
        cancellation.cancel();

        assertThat(dirs.prepare(root.resolve("a/b"))).isInstanceOf(RestoreDirectories.Failed.class);
        assertThat(root.resolve("a")).doesNotExist();
    }
}
