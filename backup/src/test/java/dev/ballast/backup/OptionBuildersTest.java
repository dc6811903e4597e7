package dev.ballast.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.backup.retention.RetentionPolicy;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The builders name what a caller sets and leave the rest at the defaults the records' factories give. */
class OptionBuildersTest {
    @Test
    void aRetentionPolicyBuilderSetsTheNamedRulesAndNoOthers() {
        RetentionPolicy policy =
                RetentionPolicy.builder().last(3).daily(7).within("30d").build();
        assertThat(policy).isEqualTo(new RetentionPolicy(3, 0, 7, 0, 0, 0, RetentionPolicy.Within.parse("30d")));
        assertThat(policy.toBuilder().daily(0).weekly(-1).build())
                .isEqualTo(new RetentionPolicy(3, 0, 0, -1, 0, 0, RetentionPolicy.Within.parse("30d")));
        assertThat(RetentionPolicy.builder().build().empty()).isTrue();
        assertThatThrownBy(() -> RetentionPolicy.builder().monthly(-2).build())
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aBackupOptionsBuilderStartsFromTheDefaults() {
        assertThat(BackupOptions.builder().build()).isEqualTo(BackupOptions.defaults());
        assertThat(BackupOptions.builder()
                        .excludes("*.tmp", "/build")
                        .excludeCaches(true)
                        .checksum(true)
                        .build())
                .isEqualTo(new BackupOptions(false, true, List.of("*.tmp", "/build"), true));
    }

    @Test
    void aRestoreOptionsBuilderStartsFromLatest() {
        assertThat(RestoreOptions.builder().build()).isEqualTo(RestoreOptions.latest());
        assertThat(RestoreOptions.builder()
                        .version("3dc7957f")
                        .paths("docs")
                        .excludes("*.tmp")
                        .overwrite(true)
                        .build())
                .isEqualTo(new RestoreOptions("3dc7957f", List.of("docs"), List.of(), List.of("*.tmp"), true));
        assertThat(RestoreOptions.latest().only("a").toBuilder().overwrite(true).build())
                .isEqualTo(RestoreOptions.latest().only("a").overwriting());
    }
}
