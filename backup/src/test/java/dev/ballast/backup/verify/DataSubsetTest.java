package dev.ballast.backup.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.backup.snapshot.ManifestEntry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DataSubsetTest {
    static List<ManifestEntry> files(int n) {
        List<ManifestEntry> list = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            list.add(new ManifestEntry("dir/file-" + i, 1000, "a".repeat(64), "v" + i, Instant.EPOCH));
        }
        return list;
    }

    @Test
    void theGroupsOfNOverTPartitionTheFiles() {
        List<ManifestEntry> all = files(200);
        Set<String> seen = new HashSet<>();
        int total = 0;
        for (int n = 1; n <= 5; n++) {
            List<ManifestEntry> group = DataSubset.parse(n + "/5").select(all, new Random());
            assertThat(group).isNotEmpty();
            group.forEach(e -> seen.add(e.path()));
            total += group.size();
            assertThat(DataSubset.parse(n + "/5").select(all, new Random(7))).isEqualTo(group);
        }
        assertThat(total).isEqualTo(200);
        assertThat(seen).hasSize(200);
    }

    @Test
    void aPercentageReadsThatShareRoundedUpAndASizeReadsUpToIt() {
        assertThat(DataSubset.parse("10%").select(files(95), new Random(1))).hasSize(10);
        assertThat(DataSubset.parse("0.5%").select(files(10), new Random(1))).hasSize(1);
        assertThat(DataSubset.parse("100%").select(files(10), new Random(1))).hasSize(10);
        assertThat(DataSubset.parse("3K").select(files(10), new Random(1))).hasSize(4); // 4 x 1000 >= 3072
    }

    @Test
    void badSubsetsAreRefusedNamingWhatIsAccepted() {
        for (String bad : List.of("0%", "101%", "0/3", "4/3", "x", "5", "-1%")) {
            assertThatThrownBy(() -> DataSubset.parse(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'" + bad + "'");
        }
        // numbers too large for their type: a tester's 99999999999999999999G said only "For input string"
        for (String huge : List.of("99999999999999999999G", "99999999999/99999999999", "1/99999999999")) {
            assertThatThrownBy(() -> DataSubset.parse(huge))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("'" + huge + "' holds a number too large to use; pass n/t (e.g. 1/7), a percentage"
                            + " (e.g. 10%) or a size (e.g. 500M, 2G)");
        }
    }
}
