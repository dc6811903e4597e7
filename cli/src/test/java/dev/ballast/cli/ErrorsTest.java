package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/** What an error line adds beside its sentence: the --verbose pointer, a server's empty refusal. */
class ErrorsTest {

    @Test
    void aCauseWhoseReasonTheSentenceQuotesNeedsNoVerbosePointer() {
        // A README user's: "The password command 'x' could not be started (error=2, No such file or
        // directory)" went on "(run with --verbose to see the cause)", which showed only the same reason.
        IOException started = new IOException("Cannot run program \"x\": error=2, No such file or directory");
        assertThat(Errors.causeAddsTo(
                        "The password command 'x' could not be started (error=2, No such file or directory).", started))
                .isFalse();
        assertThat(Errors.causeAddsTo("The password command 'x' could not be started.", started))
                .isTrue();
        assertThat(Errors.causeAddsTo("Could not read it (Permission denied).", new IOException("Permission denied")))
                .isFalse();
    }

    @Test
    void aRefusalWithoutTextOfItsOwnSaysSoBeforeTheDetails() {
        // Ceph RGW's 403 to a wrong secret: "refused the credentials: (Service: S3, Status Code: 403, ...)"
        assertThat(Errors.serverReason(" (Service: S3, Status Code: 403, Request ID: tx1)"))
                .isEqualTo("it gave no reason (Service: S3, Status Code: 403, Request ID: tx1)");
        assertThat(Errors.serverReason(" The request signature we calculated does not match (Service: S3)"))
                .isEqualTo("The request signature we calculated does not match (Service: S3)");
    }

    @Test
    void tooManyOpenFilesNamesTheLimitNotTheStoresPermissionsOrSpace() {
        // A tester's restore under ulimit -n 64: "...: Too many open files; check that its directory and
        // files can be read and written and that its disk has space".
        dev.ballast.storage.StorageUnavailableException e = new dev.ballast.storage.StorageUnavailableException(
                "index.db",
                "Opening the index failed",
                new java.nio.file.FileSystemException("/st/index.db", null, "Too many open files"),
                false);

        CliFailure f = Errors.toFailure(e, "the local store /st", null);

        assertThat(f.exitCode()).isEqualTo(ExitCodes.UNAVAILABLE);
        assertThat(f.getMessage())
                .contains("Too many open files")
                .contains("raise its limit (ulimit -n")
                .doesNotContain("disk has space");
    }
}
