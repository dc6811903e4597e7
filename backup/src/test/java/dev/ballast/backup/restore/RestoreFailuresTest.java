package dev.ballast.backup.restore;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import org.junit.jupiter.api.Test;

/** How a restore words a failure: never with a name the user never saw. */
class RestoreFailuresTest {
    @Test
    void aDirectorysDescriptorPathIsNotShown() {
        // Field case (a fault tester, a restore by a user other than root into a directory root owns):
        // "Not restored: emptyd (its attributes or link could not be restored (/proc/self/fd/62/.:
        // Operation not permitted))".
        FileSystemException e = new FileSystemException("/proc/self/fd/62/.", null, "Operation not permitted");
        assertThat(RestoreFailures.attributesNotRestored("emptyd", e).reason())
                .isEqualTo("its attributes or link could not be restored (Operation not permitted)");
    }

    @Test
    void aUsersPathIsShown() {
        assertThat(RestoreFailures.attributesNotRestored("d/a", new AccessDeniedException("/t/d/a"))
                        .reason())
                .contains("/t/d/a");
    }
}
