package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.testkit.LeakCheck;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A tester's: on the local store, {@code prune} of an encrypted repository deleted a forgotten snapshot's
 * manifest part and said it gave its bytes back, but the part was in one of the local store's own pack
 * files, which nothing compacted: the pack file grew (66,201 to 66,462 bytes). Prune now rewrites the
 * local store's packs until they hold only referenced contents, and says what the store's files gave
 * back, measured.
 */
@ExtendWith(LeakCheck.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PackedPruneLocalSpaceTest extends EncryptedStoreCli {

    private static final Pattern GIVEN_BACK =
            Pattern.compile("Space given back: (?:[\\d.]+ [KMG]iB \\(([\\d,]+) bytes\\)|(\\d+) bytes)");

    long storedBytes() throws Exception {
        long total = 0;
        for (String sub : new String[] {"packs", "blobs"}) {
            try (Stream<Path> files =
                    Files.walk(data().resolve("ballast-backups").resolve(sub))) {
                for (Path f : files.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))
                        .toList()) {
                    total += Files.size(f);
                }
            }
        }
        return total;
    }

    @Test
    void pruneGivesBackTheLocalPacksBytesOfTheManifestPartsItDeletedAndSaysHowMany() throws Exception {
        Path src = withAForgottenManifestPart();
        long before = storedBytes();

        assertThat(run(at("prune", "--grace", "0s"))).as(err()).isZero();

        long after = storedBytes();
        assertThat(out()).contains("deleted 1 manifest part no snapshot uses");
        assertThat(after).as(out()).isLessThan(before);
        Matcher m = GIVEN_BACK.matcher(out());
        assertThat(m.find()).as(out()).isTrue();
        long said = Long.parseLong((m.group(1) != null ? m.group(1) : m.group(2)).replace(",", ""));
        assertThat(said).as(out()).isEqualTo(before - after);
        assertThat(run(at("check"))).as(out() + err()).isZero();
        assertThat(run(at("restore", "src", home.resolve("out").toString())))
                .as(err())
                .isZero();
        for (int i = 0; i < 3; i++) {
            assertThat(home.resolve("out/f" + i + ".bin")).hasSameBinaryContentAs(src.resolve("f" + i + ".bin"));
        }
    }
}
