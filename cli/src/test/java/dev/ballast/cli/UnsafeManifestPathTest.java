package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.Manifests;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.local.LocalObjectStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * A manifest naming a path a restore refuses ({@code ../x}, as a crafted manifest would): what the
 * refusal advises works in the store's format. The advice named 'ballast versions', which an encrypted
 * repository refuses (its manifests are sealed, and no command shows one as stored).
 */
class UnsafeManifestPathTest extends InProcessCli {
    /** Backs up one file as 'src', then stores a newer manifest of it naming '../x'; returns that version's ID. */
    private String craftedVersion(String... backupOptions) throws Exception {
        Path src = Files.createDirectories(home.resolve("src"));
        Files.writeString(src.resolve("a.txt"), "a");
        String[] backup = new String[backupOptions.length + 2];
        backup[0] = "backup";
        backup[1] = src.toString();
        System.arraycopy(backupOptions, 0, backup, 2, backupOptions.length);
        assertThat(run(at(backup))).as(err()).isZero();
        try (LocalObjectStore raw = LocalObjectStore.open(data().resolve("ballast-backups"))) {
            ObjectStore store = asCommandsSeeIt(raw);
            String json;
            try (ObjectRead r = store.get(Manifest.key("src"), ReadOptions.latest())) {
                json = new String(r.readAllBytes(), StandardCharsets.UTF_8);
            }
            byte[] crafted = json.replace("\"a.txt\"", "\"../x\"").getBytes(StandardCharsets.UTF_8);
            return store.put(Manifest.key("src"), ObjectContent.ofBytes(crafted))
                    .versionId();
        }
    }

    @Test
    void inAnEncryptedRepositoryTheAdviceIsAnotherVersionAsListShowsThem() throws Exception {
        String crafted = craftedVersion();

        assertThat(run(at("restore", "src", home.resolve("r").toString(), "--manifest-version", crafted)))
                .isEqualTo(ExitCodes.INTEGRITY);
        assertThat(err())
                .contains("names the path '../x', which is refused because it contains '..'; nothing was restored."
                        + " Restore another --manifest-version ('ballast list' shows its versions).\n")
                .doesNotContain("ballast versions");
        assertThat(home.resolve("r/a.txt")).doesNotExist();

        // the advice works: list shows the other version, and it restores
        run(at("list"));
        String other = out().lines()
                .filter(l -> l.contains("(latest)"))
                .findFirst()
                .orElseThrow()
                .trim()
                .split(" ")[0];
        assertThat(other).isNotEqualTo(Manifests.shortId(crafted));
        assertThat(run(at("restore", "src", home.resolve("r").toString(), "--manifest-version", other)))
                .as(err())
                .isZero();
        assertThat(home.resolve("r/a.txt")).hasContent("a");
    }

    @Test
    void inAStoreOfTheEarlierFormatTheAdviceStillNamesVersionsWhichShowsTheManifest() throws Exception {
        String crafted = craftedVersion("--insecure-no-encryption");

        assertThat(run(at("restore", "src", home.resolve("r").toString(), "--manifest-version", crafted)))
                .isEqualTo(ExitCodes.INTEGRITY);
        assertThat(err())
                .contains("names the path '../x', which is refused because it contains '..'; nothing was restored."
                        + " Restore another --manifest-version or inspect it with 'ballast versions"
                        + " NAME/.ballast-manifest.json'.\n");

        assertThat(run(at("versions", "src/.ballast-manifest.json"))).as(err()).isZero();
        assertThat(out()).contains(crafted);
    }
}
