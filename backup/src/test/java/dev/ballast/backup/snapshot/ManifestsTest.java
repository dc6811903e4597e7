package dev.ballast.backup.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.backup.BackupException;
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
    void aPrefixOfSeveralOrOfFewerThanEightIsAUsageErrorAndAnUnknownOneIsNotFound() {
        assertThatThrownBy(() -> Manifests.byIdOrPrefix(versions, "n", "01a22d7f56a9"))
                .isInstanceOfSatisfying(
                        BackupException.class, f -> assertThat(f.kind()).isEqualTo(BackupException.Kind.INVALID_INPUT))
                .hasMessageContaining("matches 2 manifest versions")
                .hasMessageContaining("01a22d7f56a9aaaa0000000000000001 (short ID ")
                .hasMessageContaining("01a22d7f56a9bbbb0000000000000002 (short ID ")
                // Field input (new-user pass): each match's time was the store's, in another form than
                // list's ("2026-12-05T12:39:25.274Z" against "12:39:24 UTC" for the same snapshot).
                .message()
                .doesNotContainPattern("\\d{4}-\\d\\d-\\d\\d")
                .contains("(Backups.snapshots(name) lists its versions with their times)");
        // Field input (new-user pass): a 7-character prefix was "has no manifest version", as if none matched.
        assertThatThrownBy(() -> Manifests.byIdOrPrefix(versions, "n", "01a22e0"))
                .isInstanceOfSatisfying(
                        BackupException.class, f -> assertThat(f.kind()).isEqualTo(BackupException.Kind.INVALID_INPUT))
                .hasMessageContaining("Manifest version '01a22e0' is too short: give the 8-character short ID or at "
                        + "least 8 characters of the version ID")
                .message()
                .doesNotContain("has no manifest version");
        assertThatThrownBy(() -> Manifests.byIdOrPrefix(versions, "n", "01a22e01"))
                .isInstanceOfSatisfying(
                        BackupException.class, f -> assertThat(f.kind()).isEqualTo(BackupException.Kind.NOT_FOUND))
                .hasMessageContaining(
                        "a short ID as SnapshotInfo.shortId() gives it, a version ID or its first 8 or more "
                                + "characters, or 'latest'");
        assertThatThrownBy(() -> Manifests.byIdOrPrefix(versions, "n", "ffffffffff"))
                .isInstanceOfSatisfying(
                        BackupException.class, f -> assertThat(f.kind()).isEqualTo(BackupException.Kind.NOT_FOUND));
    }

    @Test
    void versionsWrittenTheSameHourHaveDistinctEightCharacterShortIdsThatSelectThem() {
        // Field input: time-ordered IDs needed about 12 characters to be unique, so restic's
        // 8-character habit matched several backups.
        List<VersionEntry> sameHour = new java.util.ArrayList<>();
        for (int i = 0; i < 50; i++) {
            sameHour.add(version(String.format("01a23354%04x0002ec1a66cad048ef%02x", i * 997, i)));
        }
        java.util.Set<String> shortIds = new java.util.HashSet<>();
        for (VersionEntry v : sameHour) {
            String s = Manifests.shortId(v.versionId());
            assertThat(s).hasSize(8).matches("[0-9a-f]{8}");
            shortIds.add(s);
            assertThat(Manifests.byIdOrPrefix(sameHour, "n", s)).isEqualTo(v);
        }
        assertThat(shortIds).hasSize(50);
        // The old habit is one sentence naming every match, not a wrong version.
        assertThatThrownBy(() -> Manifests.byIdOrPrefix(sameHour, "n", "01a23354"))
                .isInstanceOfSatisfying(
                        BackupException.class, f -> assertThat(f.kind()).isEqualTo(BackupException.Kind.INVALID_INPUT))
                .hasMessageContaining("matches 50 manifest versions");
        // A whole ID and a unique long prefix still select their version.
        VersionEntry third = sameHour.get(3);
        assertThat(Manifests.byIdOrPrefix(sameHour, "n", third.versionId())).isEqualTo(third);
        assertThat(Manifests.byIdOrPrefix(sameHour, "n", third.versionId().substring(0, 14)))
                .isEqualTo(third);
    }
}
