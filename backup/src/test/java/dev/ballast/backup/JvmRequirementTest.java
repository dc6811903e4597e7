package dev.ballast.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ballast.backup.tree.Names;
import dev.ballast.test.FakeObjectStore;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What the library says when the JVM does not open {@code sun.nio.fs} to it. Run by its own surefire
 * execution without {@code --add-opens} (backup/pom.xml), and left out of the default one.
 */
@ExtendWith(LeakCheck.class)
class JvmRequirementTest {

    @Test
    void withoutTheOpenedPackageTheLibrarySaysInOneSentenceWhatTheJvmNeeds() {
        assumeTrue(Path.of("/").getClass().getName().equals("sun.nio.fs.UnixPath"), "a Unix JDK");
        assumeFalse(Names.exact(), "sun.nio.fs opened to this JVM's tests: the without-add-opens execution runs this");
        FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime());

        assertThatThrownBy(() -> Backups.of(store))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("The backup library reads file names as the bytes the file system holds through the"
                        + " JDK's sun.nio.fs, which this JVM does not open to it; start the JVM with --add-opens"
                        + " java.base/sun.nio.fs=ALL-UNNAMED (as the ballast launcher does), or accept names as the"
                        + " locale decodes them (Backups.allowingInexactNames(store)).");
        // Accepting the JDK's own decoding is a choice the caller can make.
        assertThat(Backups.allowingInexactNames(store).names()).isEmpty();
    }
}
