package dev.ballast.backup.pack;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class PackEndsTest {
    private static BlobLocation at(String pack, long offset, int length) {
        return new BlobLocation(
                BlobId.parse("%064x".formatted(offset)), BlobType.DATA, pack, offset, length, length, false);
    }

    @Test
    void aPacksEndIsWhereItsFurthestBlobEndsAndANewListOfItsBlobsIsWorkedOutAnew() {
        PackEnds ends = new PackEnds();
        List<BlobLocation> first = List.of(at("data/p", 0, 100), at("data/p", 300, 50), at("data/p", 100, 200));
        assertThat(ends.of("data/p", first)).isEqualTo(350);
        assertThat(ends.of("data/p", first)).isEqualTo(350);

        List<BlobLocation> repacked = List.of(at("data/p", 0, 100));
        assertThat(ends.of("data/p", repacked)).isEqualTo(100);
        assertThat(ends.of("data/q", List.of())).isZero();
    }
}
