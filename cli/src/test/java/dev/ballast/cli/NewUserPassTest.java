package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.Manifests;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.local.LocalObjectStore;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What a restic user reading only the README met on a first pass (items F2, F4, F5, F7, F9): each
 * through the commands on the local store, asserting what the user reads.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
@ExtendWith(LeakCheck.class)
class NewUserPassTest extends InProcessCli {
    /** Backs up a one-file directory {@code src} and returns the version ID of its manifest. */
    String backUp(String content) throws IOException {
        return backUp(content.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** As {@link #backUp(String)}, with {@code content} as the file's bytes and {@code options} added. */
    String backUp(byte[] content, String... options) throws IOException {
        Path src = Files.createDirectories(home.resolve("src"));
        Files.write(src.resolve("f.txt"), content);
        List<String> args =
                new java.util.ArrayList<>(List.of("backup", src.toString(), "--data-dir", data().toString()));
        args.addAll(List.of(options));
        assertThat(run(args.toArray(String[]::new))).as(err()).isZero();
        return savedSnapshot();
    }

    /** Writes a manifest marked incomplete as the newest version of {@code src}, as an interrupted run leaves it. */
    String writeIncompleteManifest() throws IOException {
        Manifest cut = new Manifest(
                1, "src", Instant.now(), false, List.of(), List.of("f.txt"), List.of(), "it was interrupted");
        try (LocalObjectStore store = LocalObjectStore.open(data().resolve("ballast-backups"))) {
            return asCommandsSeeIt(store)
                    .put(Manifest.key("src"), ObjectContent.ofBytes(cut.toJson()))
                    .versionId();
        }
    }

    @Test
    void listMarksAsLatestTheVersionThatLatestSelectsNotAnIncompleteNewerOne() throws IOException {
        // Field input (F2): list marked an INCOMPLETE manifest "(latest)", while --manifest-version latest
        // selects the newest complete one.
        String complete = backUp("one");
        String incomplete = writeIncompleteManifest();

        assertThat(run("list", "--data-dir", data().toString())).isZero();
        String incompleteLine =
                out().lines().filter(l -> l.contains(incomplete)).findFirst().orElseThrow();
        String completeLine =
                out().lines().filter(l -> l.contains(complete)).findFirst().orElseThrow();
        assertThat(incompleteLine).contains("INCOMPLETE").doesNotContain("(latest)");
        assertThat(completeLine).endsWith("(latest)");

        assertThat(run("ls", "src", "--manifest-version", "latest", "--data-dir", data().toString()))
                .isZero();
        assertThat(out()).contains(Manifests.label(complete));
    }

    @Test
    void forgetTakesLatestAsTheOtherCommandsDoTheNewestCompleteVersion() throws IOException {
        // The shared help says every command takes 'latest'; forget used to look for a version called "latest".
        String older = backUp("one");
        String complete = backUp("two");
        assertThat(run("forget", "src", "--manifest-version", "latest", "--data-dir", data().toString()))
                .isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("Manifest version " + Manifests.label(complete) + " is the newest of 'src'");

        // Field input: with a run that did not finish as the newest version, 'forget --manifest-version latest'
        // removed the newest complete backup, and run again the one before it, until only the unfinished run
        // was left. The newest complete one is what a restore reads: never removed, by 'latest' or its ID.
        String incomplete = writeIncompleteManifest();
        for (String id : List.of("latest", complete)) {
            assertThat(run("forget", "src", "--manifest-version", id, "--data-dir", data().toString()))
                    .as(id)
                    .isEqualTo(ExitCodes.USAGE);
            assertThat(err())
                    .contains("Manifest version " + Manifests.label(complete) + " is the newest complete one of 'src'"
                            + " (the newer ones did not finish) and is never removed: a restore of 'src' reads it."
                            + " Back up again first, then forget it.");
        }
        assertThat(run("forget", "src", "--manifest-version", older, "--data-dir", data().toString()))
                .as(err())
                .isZero();
        assertThat(out()).contains("remove 1 backup of 'src'").contains(older).doesNotContain(incomplete);
        assertThat(run("ls", "src", "--data-dir", data().toString())).as(err()).isZero();
        assertThat(out()).contains(Manifests.label(complete));
    }

    @Test
    void everyCommandDescribesManifestVersionAsDocsCliMdDoes() {
        // Field input (F4): forget's help still said "its ID or a prefix of at least 8 characters", restore's
        // repeated itself.
        for (String command : List.of("restore", "ls", "verify", "forget")) {
            assertThat(run(command, "--help")).isZero();
            String help = out().replaceAll("\\s+", " ");
            assertThat(help)
                    .as(command)
                    .contains("the short ID 'ballast list' shows (8 hex digits), the version ID, its first 8 or more "
                            + "characters when no other version starts with them, or 'latest'")
                    .doesNotContain("prefix of at least 8")
                    .doesNotContain("its short ID or ID as");
            // Field input: forget's help said 'latest' is "as without the option", but without it forget
            // applies a policy, and it never removes the newest version, which 'latest' often is.
            if (command.equals("forget")) {
                assertThat(help)
                        .contains("or 'latest' (the newest complete one, which forget never removes, nor the newest"
                                + " version).")
                        .doesNotContain("as without the option");
            } else {
                assertThat(help).as(command).contains("or 'latest' (the newest complete one, as without the option).");
            }
        }
    }

    @Test
    void aRestoreThatWroteNothingSaysTheFilesPresentWereCheckedNotThatChunksMatched() throws IOException {
        // Field input: a restore onto a target already holding every file said "Every chunk matched its ID",
        // though it read no chunk.
        backUp("one");
        Path target = home.resolve("r");
        assertThat(run("restore", "src", target.toString(), "--data-dir", data().toString()))
                .as(err())
                .isZero();
        assertThat(out()).contains("1 file restored, 0 already present").contains("Every chunk matched its ID");
        assertThat(run("restore", "src", target.toString(), "--data-dir", data().toString()))
                .as(err())
                .isZero();
        assertThat(out())
                .contains("0 files restored, 1 already present")
                .contains(" No file needed writing: each was already there with the backup's size and SHA-256.")
                .doesNotContain("chunk");
    }

    @Test
    void versionsAreNamedWithTheirShortIdsWhereTheUserReadsThem() throws IOException {
        // Field input (F5): short IDs appeared only in list and forget.
        String first = backUp("one");
        String shortId = Manifests.shortId(first);
        assertThat(out()).contains("Snapshot " + shortId + " (" + first + ") saved.");

        assertThat(run("ls", "src", "--data-dir", data().toString())).isZero();
        assertThat(out()).contains("manifest version " + shortId + " (" + first + ")");
        assertThat(run("verify", "src", "--data-dir", data().toString())).isZero();
        assertThat(out()).contains("(manifest version " + shortId + " (" + first + ")) OK");
        assertThat(run("restore", "src", home.resolve("r").toString(), "--data-dir", data().toString()))
                .isZero();
        assertThat(out()).contains("(manifest version " + shortId + " (" + first + ") of ");

        String incomplete = writeIncompleteManifest();
        assertThat(run("restore", "src", home.resolve("r2").toString(), "--data-dir", data().toString()))
                .isZero();
        assertThat(err())
                .contains("Pass --manifest-version " + Manifests.shortId(incomplete) + " to use the partial one");

        // The short ID printed is accepted back.
        assertThat(run("ls", "src", "--manifest-version", shortId, "--data-dir", data().toString()))
                .isZero();
        // Fewer than 8 characters is too short, not "no such version".
        assertThat(run("ls", "src", "--manifest-version", shortId.substring(0, 5), "--data-dir", data().toString()))
                .isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .contains("is too short: give the 8-character short ID or at least 8 characters of the version ID")
                .doesNotContain("has no manifest version");
    }

    @Test
    void pruneMeasuresOnlyContentPackAndManifestFilesAndNeverClampsGrowthToZero() {
        // Field input (F7): "Space given back" counted the 4 MiB reserve and clamped a negative figure to 0.
        StoreSpace.Measure before = new StoreSpace.Measure(10_000, 5_000);
        assertThat(StoreSpace.report(before, new StoreSpace.Measure(4_000, 9_096), 6_000))
                .startsWith("Space given back: 5.9 KiB (6,000 bytes) (content, pack and manifest files: ")
                .contains("; the index and journal, which record the removals, grew by 4.0 KiB (4,096 bytes).");
        assertThat(StoreSpace.report(before, new StoreSpace.Measure(10_500, 5_000), 0))
                .isEqualTo("Space given back: none; the content, pack and manifest files grew by 500 bytes"
                        + " (content, pack and manifest files: 9.8 KiB (10,000 bytes) before, 10.3 KiB (10,500 bytes)"
                        + " after).");
    }

    @Test
    void theSpaceReportOfARealPruneLeavesOutTheReserveIndexAndJournal() throws IOException {
        // The local store's own figures (StoreSpace) are the earlier format's prune report; format 3's prune says what
        // its packs gave back (EncryptedRepositoryCliTest).
        backUp("a".repeat(100_000).getBytes(java.nio.charset.StandardCharsets.UTF_8), "--insecure-no-encryption");
        backUp("b".repeat(100_000));
        assertThat(run(
                        "forget",
                        "src",
                        "--keep-last",
                        "1",
                        "--prune",
                        "--grace",
                        "0s",
                        "--data-dir",
                        data().toString()))
                .as(err())
                .isZero();
        Path store = data().resolve("ballast-backups");
        assertThat(store.resolve("reserve")).exists();
        // The first backup's 100,000-byte content is given back; the 4 MiB reserve is no part of the figures.
        assertThat(out())
                .containsPattern(
                        "Space given back: 9\\d\\.\\d KiB \\(100,\\d{3} bytes\\) \\(content, pack and manifest "
                                + "files: 1\\d\\d\\.\\d KiB \\(")
                .doesNotContain("4.0 MiB");
    }

    /** The bytes of the store's index.db and journal/ between commands, as {@code du -b} counts them. */
    long indexAndJournalBytes() throws IOException {
        Path store = data().resolve("ballast-backups");
        try (var journal = Files.walk(store.resolve("journal"))) {
            long bytes = Files.size(store.resolve("index.db"));
            for (Path f : journal.filter(Files::isRegularFile).toList()) {
                bytes += Files.size(f);
            }
            return bytes;
        }
    }

    @Test
    void pruneSaysTheGrowthOfTheIndexAndJournalThatStays() throws IOException {
        // A tester's: "the index and journal ... grew by 0.5 MiB" where index.db and journal/ grew by 13 KB, SQLite's
        // write-ahead log counted as it stood while the store was open.
        Path src = Files.createDirectories(home.resolve("src"));
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 300; i++) {
                Files.writeString(src.resolve("f" + i + ".txt"), "round " + round + " file " + i);
            }
            assertThat(run("backup", src.toString(), "--data-dir", data().toString()))
                    .as(err())
                    .isZero();
        }
        assertThat(run("forget", "src", "--keep-last", "1", "--data-dir", data().toString()))
                .as(err())
                .isZero();
        long before = indexAndJournalBytes();
        assertThat(run("prune", "--grace", "0s", "--data-dir", data().toString()))
                .as(err())
                .isZero();
        long grown = indexAndJournalBytes() - before;
        java.util.regex.Matcher said = java.util.regex.Pattern.compile(
                        "the index and journal(?:, which record the removals,)? (grew|shrank) by [0-9.]+ MiB \\(([0-9,]+)"
                                + " bytes\\)")
                .matcher(out());
        long printed = 0;
        if (said.find()) {
            printed = Long.parseLong(said.group(2).replace(",", ""))
                    * (said.group(1).equals("grew") ? 1 : -1);
        }
        assertThat(printed).as(out()).isCloseTo(grown, org.assertj.core.data.Offset.offset(8_192L));
    }

    @Test
    void countsAreSingularForOneAndForgetSaysWhenThereIsNothingToRemove() throws IOException {
        // Field input (F9): "1 files restored", "keep 1 latest backups", "would remove 0 backups of 'src':".
        backUp("one");
        assertThat(run("restore", "src", home.resolve("r").toString(), "--data-dir", data().toString()))
                .isZero();
        assertThat(out()).contains(", 1 file, ").contains("1 file restored").doesNotContain("1 files");

        assertThat(run("forget", "src", "--keep-last", "1", "--dry-run", "--data-dir", data().toString()))
                .isZero();
        assertThat(out())
                .contains("Applying policy: keep 1 latest backup (")
                .contains("keep 1 backup of 'src':")
                .contains("nothing to remove of 'src'.")
                .doesNotContain("0 backups");
    }

    @Test
    void unknownCommandPointsAtTheCommandList() {
        assertThat(run("bakup")).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("'ballast --help' lists the accepted commands and options.");
    }

    @Test
    void unlockOfANameWithNoBackupsSaysSoAndEndsWithZeroAsResticsUnlockDoes() throws IOException {
        backUp("one");
        assertThat(run("unlock", "nosuch", "--data-dir", data().toString())).isZero();
        assertThat(out()).contains("'nosuch' has no backups and no run marker in ");
        assertThat(run("unlock", "src", "--data-dir", data().toString())).isZero();
        assertThat(out()).contains("'src' has no run marker: it is not locked.");
    }

    @Test
    void backupRefusesANameClashBeforeAnnouncingTheRun() throws IOException {
        backUp("one");
        Path other = Files.createDirectories(home.resolve("elsewhere/src"));
        Files.writeString(other.resolve("g.txt"), "other");
        assertThat(run("backup", other.toString(), "--data-dir", data().toString()))
                .isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("holds backups of");
        assertThat(out()).doesNotContain("Backing up");
    }

    @Test
    void eachCommandsHelpListsItsOwnExitCodes() {
        assertThat(run("repair", "index", "--help")).isZero();
        assertThat(out()).contains("  5    the local store not found").doesNotContain("restored/verified");
        assertThat(run("forget", "--help")).isZero();
        assertThat(out())
                .contains("  0    the manifest versions were removed")
                .doesNotContain("every file stored")
                .doesNotContain("  6 ");
        assertThat(run("prune", "--help")).isZero();
        assertThat(out())
                .contains("  1    some unreferenced objects could not be deleted")
                .doesNotContain("  7 ");
        assertThat(run("restore", "--help")).isZero();
        assertThat(out())
                .contains("  0    every file restored")
                .contains("  6 ")
                .contains("  7 ");
    }
}
