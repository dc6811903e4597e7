package dev.ballast.storage.object;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.test.FakeObjectStore;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The in-memory store enrols in the running test's leak check (through {@link LeakCheckEnrolment}),
 * which fails on a read stream left open.
 */
class FakeObjectStoreLeakCheckTest {

    @Test
    void aReadStreamLeftOpenFailsTheTestThatMadeTheStore() throws IOException {
        LeakCheck check = new LeakCheck(Duration.ofMillis(50));
        check.begin();
        FakeObjectStore store = new FakeObjectStore();
        store.put("k", ObjectContent.ofBytes("v".getBytes(StandardCharsets.UTF_8)));
        ObjectRead read = store.get("k");
        assertThat(read.stream().read()).isEqualTo((int) 'v');

        assertThatThrownBy(check::verify)
                .hasMessageContaining("1 read stream(s)")
                .hasMessageContaining("not closed");

        read.close();
        assertThat(store.openReads()).isZero();
        check.begin();
        check.watch(store::leaks);
        check.verify();
    }
}
