package dev.ballast.storage.object.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A listing of 10 million keys iterates in a heap that cannot hold them: {@link GeneratedListing} runs in
 * a JVM of its own with {@value #HEAP} of heap, through the S3 store's paged listing and the local store's
 * and fake's key-ordered one. The same heap fails with {@link OutOfMemoryError} when the keys are collected
 * into a list, which shows it is small enough to catch a listing that materialises them.
 */
class TenMillionKeyListingTest {

    private static final String HEAP = "-Xmx32m";
    private static final long KEYS = 10_000_000;

    @Test
    void tenMillionKeysStreamThroughTheS3ListingInAHeapThatCannotHoldThem() throws Exception {
        Run run = run("s3", KEYS);

        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(run.output().strip()).isEqualTo(Long.toString(KEYS));
    }

    @Test
    void tenMillionKeysStreamThroughTheKeyOrderedListingInAHeapThatCannotHoldThem() throws Exception {
        Run run = run("keys", KEYS);

        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(run.output().strip()).isEqualTo(Long.toString(KEYS));
    }

    @Test
    void theSameHeapCannotHoldTheKeysCollectedIntoAList() throws Exception {
        Run run = run("materialise", KEYS);

        assertThat(run.exit()).isNotZero();
        assertThat(run.output()).contains("OutOfMemoryError");
    }

    private record Run(int exit, String output) {}

    private static Run run(String mode, long keys) throws IOException, InterruptedException {
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        Process p = new ProcessBuilder(List.of(
                        java,
                        HEAP,
                        "-XX:+UseSerialGC",
                        "-cp",
                        System.getProperty("java.class.path"),
                        GeneratedListing.class.getName(),
                        mode,
                        Long.toString(keys)))
                .redirectErrorStream(true)
                .start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError("the listing JVM did not finish within 5 minutes");
        }
        return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }
}
