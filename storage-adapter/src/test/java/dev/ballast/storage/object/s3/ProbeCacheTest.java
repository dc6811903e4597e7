package dev.ballast.storage.object.s3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.storage.object.s3.S3StoreConfig.Capability;
import dev.ballast.testkit.FakeTime;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProbeCacheTest {
    private static final String ENDPOINT = "http://127.0.0.1:7480";

    private final FakeTime clock = new FakeTime(Instant.parse("2026-11-30T12:00:00Z"));

    @TempDir
    Path dir;

    private Path file() {
        return dir.resolve("s3-probe.properties");
    }

    private ProbeCache cache() {
        return new ProbeCache(file(), Duration.ofHours(24), clock);
    }

    @Test
    void findingsAreTrustedUntilTheyAgeOut() {
        cache().write(ENDPOINT, "bucket", EnumSet.of(Capability.CONTENT_MD5, Capability.SIGNED_PAYLOAD));

        clock.advance(Duration.ofHours(23));
        assertThat(cache().read(ENDPOINT, "bucket"))
                .containsExactlyInAnyOrder(Capability.CONTENT_MD5, Capability.SIGNED_PAYLOAD);
        assertThat(cache().read(ENDPOINT, "other")).isNull();

        clock.advance(Duration.ofHours(1));
        assertThat(cache().read(ENDPOINT, "bucket")).isNull();
    }

    @Test
    void findingsThatNoCapabilityWasFoundAreRememberedAsSuch() {
        cache().write(ENDPOINT, "bucket", EnumSet.noneOf(Capability.class));

        assertThat(cache().read(ENDPOINT, "bucket")).isEmpty();
    }

    @Test
    void findingsOfABuildWhoseProbeDidNotLookForSignedPayloadsAreProbedAgain() throws IOException {
        // Written by a build before SIGNED_PAYLOAD existed; Ceph RGW then kept being sent Content-MD5
        // (an MD5 of every byte) for 24 hours although it validates the signed payload hash.
        long now = clock.millis();
        Files.write(
                file(),
                List.of(
                        "http\\://127.0.0.1\\:7480\\ old-format=" + now + " CONTENT_MD5",
                        "http\\://127.0.0.1\\:7480\\ fewer-tested=" + now
                                + " CONTENT_MD5 tested=PUT_IF_ABSENT,PUT_IF_MATCH,ADDITIONAL_CHECKSUMS,CONTENT_MD5",
                        "http\\://127.0.0.1\\:7480\\ unknown-name=" + now + " CONTENT_MD5 tested=NOT_A_CAPABILITY"));

        assertThat(cache().read(ENDPOINT, "old-format")).isNull();
        assertThat(cache().read(ENDPOINT, "fewer-tested")).isNull();
        assertThat(cache().read(ENDPOINT, "unknown-name")).isNull();
    }

    @Test
    void aWriteDropsTheEntriesThatAreNoLongerTrustedSoTheFileStaysBounded() throws IOException {
        cache().write(ENDPOINT, "old", EnumSet.of(Capability.CONTENT_MD5));
        clock.advance(Duration.ofHours(12));
        cache().write(ENDPOINT, "recent", EnumSet.of(Capability.CONTENT_MD5));
        Files.writeString(
                file(),
                "http\\://127.0.0.1\\:7480\\ old-format=" + clock.millis() + " CONTENT_MD5\n",
                java.nio.file.StandardOpenOption.APPEND);
        clock.advance(Duration.ofHours(13));

        cache().write(ENDPOINT, "new", EnumSet.of(Capability.SIGNED_PAYLOAD));

        assertThat(Files.readAllLines(file()))
                .filteredOn(line -> !line.startsWith("#"))
                .extracting(line -> line.substring(0, line.indexOf('=')))
                .containsExactlyInAnyOrder("http\\://127.0.0.1\\:7480\\ recent", "http\\://127.0.0.1\\:7480\\ new");
        assertThat(cache().read(ENDPOINT, "recent")).containsExactly(Capability.CONTENT_MD5);
        assertThat(cache().read(ENDPOINT, "new")).containsExactly(Capability.SIGNED_PAYLOAD);
    }

    @Test
    void aFileLargerThanAMebibyteIsNotReadAndTheNextWriteReplacesIt() throws IOException {
        cache().write(ENDPOINT, "bucket", EnumSet.of(Capability.CONTENT_MD5));
        Files.write(file(), new byte[ProbeCache.MAX_BYTES + 1], java.nio.file.StandardOpenOption.APPEND);

        assertThat(cache().read(ENDPOINT, "bucket")).isNull();
        cache().write(ENDPOINT, "other", EnumSet.of(Capability.PUT_IF_ABSENT));
        assertThat(Files.size(file())).isLessThan(1000);
        assertThat(cache().read(ENDPOINT, "other")).containsExactly(Capability.PUT_IF_ABSENT);
    }

    @Test
    void somethingOtherThanARegularFileIsNeitherReadNorWaitedOn() throws Exception {
        // A link to /dev/zero would never end; a FIFO would block the read until someone writes to it.
        Path zero = Path.of("/dev/zero");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.exists(zero), "a /dev/zero to link to");
        Files.createSymbolicLink(file(), zero);
        assertThat(cache().read(ENDPOINT, "bucket")).isNull();
        cache().write(ENDPOINT, "bucket", EnumSet.of(Capability.PUT_IF_MATCH));
        assertThat(file()).isRegularFile();
        assertThat(cache().read(ENDPOINT, "bucket")).containsExactly(Capability.PUT_IF_MATCH);

        Files.delete(file());
        Process mkfifo =
                new ProcessBuilder("mkfifo", file().toString()).inheritIO().start();
        org.junit.jupiter.api.Assumptions.assumeTrue(mkfifo.waitFor() == 0, "mkfifo made a FIFO");
        assertThat(cache().read(ENDPOINT, "bucket")).isNull();
    }

    @Test
    void anUnreadableFileIsIgnoredAndReplacedByTheNextWrite() throws IOException {
        Files.write(file(), new byte[] {'\\', 'u', 'z', 'z'});

        assertThat(cache().read(ENDPOINT, "bucket")).isNull();
        cache().write(ENDPOINT, "bucket", EnumSet.of(Capability.PUT_IF_ABSENT));
        assertThat(cache().read(ENDPOINT, "bucket")).containsExactly(Capability.PUT_IF_ABSENT);
    }
}
