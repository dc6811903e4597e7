package dev.ballast.storage.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.storage.RequestRefusedException;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.object.ByteRange;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.Source;
import dev.ballast.test.FakeObjectStore;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Ranged reads through the last-known-good cache: live ranges pass through, degraded ones come from a whole copy. */
@ExtendWith(LeakCheck.class)
class LastKnownGoodRangeTest {
    private final FakeObjectStore store = new FakeObjectStore();
    private final FakeTime clock = new FakeTime(Instant.parse("2026-01-01T00:00:00Z"));
    private final LastKnownGoodStore objects = LastKnownGoodStore.wrap(
            store, LastKnownGoodConfig.builder().maxObjectBytes(8 * 1024 * 1024).build(), clock);
    private final byte[] video = new byte[3 * 1024 * 1024 + 10];

    {
        new SplittableRandom(1).nextBytes(video);
    }

    private static ReadOptions range(long offset, long length) {
        return ReadOptions.latest().withRange(ByteRange.of(offset, length));
    }

    @Test
    void aDegradedRangedReadIsServedFromTheCachedWholeCopyMarked() {
        objects.put("media/clip.mp4", ObjectContent.ofBytes(video));
        objects.get("media/clip.mp4").readAllBytes(); // the whole copy is kept
        clock.advance(Duration.ofMinutes(2));
        store.down(true);

        try (ObjectRead read = objects.get("media/clip.mp4", range(2_000_000, 500))) {
            assertThat(read.source()).isEqualTo(Source.CACHE);
            assertThat(read.age()).isEqualTo(Duration.ofMinutes(2));
            assertThat(read.range()).contains(ByteRange.of(2_000_000, 500));
            assertThat(read.verified()).isTrue();
            assertThat(read.readAllBytes()).isEqualTo(Arrays.copyOfRange(video, 2_000_000, 2_000_500));
        }
        try (ObjectRead tail =
                objects.get("media/clip.mp4", ReadOptions.latest().withRange(ByteRange.last(10)))) {
            assertThat(tail.readAllBytes()).isEqualTo(Arrays.copyOfRange(video, video.length - 10, video.length));
        }
        assertThatThrownBy(() ->
                        objects.get("media/clip.mp4", ReadOptions.latest().withRange(ByteRange.from(video.length))))
                .isInstanceOf(RequestRefusedException.class);
    }

    @Test
    void aLiveRangedReadPassesThroughMarkedAndKeepsNoCopy() {
        objects.put("media/clip.mp4", ObjectContent.ofBytes(video));

        try (ObjectRead live = objects.get("media/clip.mp4", range(10, 20))) {
            assertThat(live.source()).isEqualTo(Source.LIVE);
            assertThat(live.range()).contains(ByteRange.of(10, 20));
            assertThat(live.verified()).isTrue();
            assertThat(live.readAllBytes()).isEqualTo(Arrays.copyOfRange(video, 10, 30));
        }
        assertThat(objects.counters().cachedObjects()).isZero();
        store.down(true);
        assertThatThrownBy(() -> objects.get("media/clip.mp4", range(10, 20)))
                .isInstanceOf(StorageUnavailableException.class);
    }
}
