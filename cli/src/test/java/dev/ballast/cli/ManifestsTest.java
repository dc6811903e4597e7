package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.storage.object.VersionEntry;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How {@code --manifest-version} names a version: its ID, a unique prefix of it, or {@code latest}. */
class ManifestsTest {
    static VersionEntry version(String id) {
        return new VersionEntry("n/.ballast-manifest.json", id, null, 10, Instant.EPOCH, false, false);
    }

    final List<VersionEntry> versions = List.of(
            version("01a22d7f56a9aaaa0000000000000001"),
            version("01a22d7f56a9bbbb0000000000000002"),
            version("01a22e0000000000000000000000000c"));

    @Test
    void aWholeIdOrAUniquePrefixOfEightOrMoreCharactersSelectsOneVersion() {
        assertThat(Manifests.byIdOrPrefix(versions, "n", "01a22d7f56a9bbbb0000000000000002")
                        .versionId())
                .endsWith("0002");
        assertThat(Manifests.byIdOrPrefix(versions, "n", "01a22e00").versionId())
                .endsWith("000c");
        assertThat(Manifests.byIdOrPrefix(versions, "n", "01a22d7f56a9a").versionId())
                .endsWith("0001");
    }

    @Test
    void aPrefixOfSeveralIsAUsageErrorAndATooShortOrUnknownOneIsNotFound() {
        assertThatThrownBy(() -> Manifests.byIdOrPrefix(versions, "n", "01a22d7f56a9"))
                .isInstanceOfSatisfying(
                        CliFailure.class, f -> assertThat(f.exitCode()).isEqualTo(ExitCodes.USAGE))
                .hasMessageContaining("is the start of 2 manifest versions");
        assertThatThrownBy(() -> Manifests.byIdOrPrefix(versions, "n", "01a22e0"))
                .isInstanceOfSatisfying(
                        CliFailure.class, f -> assertThat(f.exitCode()).isEqualTo(ExitCodes.NOT_FOUND))
                .hasMessageContaining("first 8 or more characters, or 'latest'");
        assertThatThrownBy(() -> Manifests.byIdOrPrefix(versions, "n", "ffffffffff"))
                .isInstanceOfSatisfying(
                        CliFailure.class, f -> assertThat(f.exitCode()).isEqualTo(ExitCodes.NOT_FOUND));
    }
}
