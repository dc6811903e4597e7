package dev.ballast.it.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.it.support.S3Backends;
import dev.ballast.storage.object.ByteRange;
import dev.ballast.storage.object.FaultInjectingHttpClient;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.S3TestBackend;
import dev.ballast.storage.object.s3.S3ObjectStore;
import dev.ballast.storage.object.s3.S3StoreConfig;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A ranged read whose caller authenticates the bytes itself ({@link ReadOptions#withVerifyRange}
 * false, as the backup library reads its packs) costs one GET of exactly the range: no block table,
 * no widening to whole blocks. The default read widens and checks.
 */
class UnverifiedRangeIT {
    private static final int MIB = 1024 * 1024;

    @Test
    void aRangeReadAsStoredIsOneGetOfExactlyThatRangeMarkedUnverified() throws Exception {
        S3TestBackend backend = S3Backends.s3Mock();
        String bucket = "ballast-ranges-" + Long.toHexString(new SplittableRandom().nextLong() & Long.MAX_VALUE);
        S3StoreConfig config = S3StoreConfig.builder()
                .createBucket(true)
                .enableVersioning(true)
                .build();
        byte[] content = new byte[5 * MIB];
        new SplittableRandom(11).nextBytes(content);
        FaultInjectingHttpClient http = backend.newHttpClient();
        try (S3ObjectStore store = S3ObjectStore.open(backend.endpoint(http), bucket, config)) {
            store.put("pack", ObjectContent.ofBytes(content));
            int at = 2 * MIB + 100;

            http.clearExchanges();
            try (ObjectRead r = store.get(
                    "pack",
                    ReadOptions.latest().withRange(ByteRange.of(at, 1000)).withVerifyRange(false))) {
                assertThat(r.stream().readAllBytes()).isEqualTo(Arrays.copyOfRange(content, at, at + 1000));
                assertThat(r.verified()).isFalse();
            }
            List<FaultInjectingHttpClient.Exchange> asStored = http.exchanges();
            assertThat(asStored).singleElement().satisfies(e -> {
                assertThat(e.method()).isEqualTo("GET");
                assertThat(e.uri().getRawPath()).endsWith("/pack");
                assertThat(e.headers().firstValue("Range")).hasValue("bytes=" + at + "-" + (at + 999));
            });

            http.clearExchanges();
            try (ObjectRead r = store.get("pack", ReadOptions.latest().withRange(ByteRange.of(at, 1000)))) {
                assertThat(r.stream().readAllBytes()).isEqualTo(Arrays.copyOfRange(content, at, at + 1000));
                assertThat(r.verified()).isTrue();
            }
            assertThat(http.exchanges())
                    .anySatisfy(e -> assertThat(e.headers().firstValue("Range"))
                            .hasValue("bytes=" + 2 * MIB + "-" + (3 * MIB - 1)));
        }
    }
}
