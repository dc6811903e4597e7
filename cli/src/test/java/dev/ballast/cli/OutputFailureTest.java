package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class OutputFailureTest {
    private static OutputStream failingWith(String message) {
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw new IOException(message);
            }
        };
    }

    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    private final PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);

    private int exitAfterPrinting(OutputStream sink, int code) {
        OutputFailure out = new OutputFailure(sink);
        PrintStream printed = new PrintStream(out, true, StandardCharsets.UTF_8);
        printed.println("  42  2026-12-03 17:49:47  a.txt");
        return OutputFailure.exitCode(code, printed, out.failure(), err);
    }

    /** Field input: {@code ballast ls NAME > /dev/full} exited 0 having printed nothing. */
    @Test
    void outputThatCouldNotBeWrittenIsExitOneAndOneSentence() {
        assertThat(exitAfterPrinting(failingWith("No space left on device"), ExitCodes.OK))
                .isEqualTo(ExitCodes.INCOMPLETE);
        assertThat(errBytes.toString(StandardCharsets.UTF_8))
                .isEqualTo("Error: the command's output could not be written (No space left on device); what it"
                        + " printed is incomplete.\n");
    }

    @Test
    void aCommandsOwnFailureKeepsItsExitCode() {
        assertThat(exitAfterPrinting(failingWith("No space left on device"), ExitCodes.INTEGRITY))
                .isEqualTo(ExitCodes.INTEGRITY);
    }

    @Test
    void aReaderThatStoppedReadingIsNoFailure() {
        assertThat(exitAfterPrinting(failingWith("Broken pipe"), ExitCodes.OK)).isEqualTo(ExitCodes.OK);
        assertThat(errBytes.size()).isZero();
    }

    @Test
    void outputWrittenInFullLeavesTheCodeAsItIs() {
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        assertThat(exitAfterPrinting(sink, ExitCodes.OK)).isEqualTo(ExitCodes.OK);
        assertThat(sink.toString(StandardCharsets.UTF_8)).contains("a.txt");
        assertThat(errBytes.size()).isZero();
    }
}
