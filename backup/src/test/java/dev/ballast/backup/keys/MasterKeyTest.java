package dev.ballast.backup.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class MasterKeyTest {
    private static final byte[] BLOB = "blob".getBytes(StandardCharsets.US_ASCII);

    @Test
    void sealedBytesOpenWithTheSameKeyAndAssociatedData() throws Exception {
        MasterKey key = MasterKey.generate();
        byte[] plain = "a file's content".getBytes(StandardCharsets.UTF_8);
        byte[] sealed = key.seal(plain, BLOB);
        assertThat(sealed).hasSize(plain.length + MasterKey.OVERHEAD);
        assertThat(new String(sealed, StandardCharsets.ISO_8859_1)).doesNotContain("content");
        assertThat(key.open(sealed, BLOB)).isEqualTo(plain);
        assertThat(MasterKey.decode(key.encoded()).open(sealed, BLOB)).isEqualTo(plain);
    }

    @Test
    void aChunkOfSeveralSlicesOpensWholeAndItsLastByteIsAuthenticated() throws Exception {
        MasterKey key = MasterKey.generate();
        byte[] plain = new byte[3 * 64 * 1024 + 17];
        new java.util.SplittableRandom(3).nextBytes(plain);
        byte[] sealed = key.seal(plain, 5, plain.length - 5, BLOB);
        assertThat(key.open(sealed, BLOB)).isEqualTo(Arrays.copyOfRange(plain, 5, plain.length));
        sealed[sealed.length - 17] ^= 1; // the last ciphertext byte
        assertThatThrownBy(() -> key.open(sealed, BLOB)).isInstanceOf(MasterKey.TamperedException.class);
    }

    @Test
    void sealingIntoAndOpeningIntoABufferGiveTheSameBytesAsTheArrayForms() throws Exception {
        MasterKey key = MasterKey.generate();
        byte[] plain = new byte[2 * 64 * 1024 + 9];
        new java.util.SplittableRandom(4).nextBytes(plain);
        byte[] out = new byte[7 + plain.length + MasterKey.OVERHEAD + 3];
        int n = key.seal(plain, 0, plain.length, BLOB, out, 7);
        assertThat(n).isEqualTo(plain.length + MasterKey.OVERHEAD);
        byte[] sealed = Arrays.copyOfRange(out, 7, 7 + n);
        assertThat(key.open(sealed, BLOB)).isEqualTo(plain); // what the other form reads

        byte[] opened = new byte[plain.length + 5];
        assertThat(key.open(out, 7, n, BLOB, opened, 5)).isEqualTo(plain.length);
        assertThat(Arrays.copyOfRange(opened, 5, opened.length)).isEqualTo(plain);

        out[7 + n - 1] ^= 1; // the tag
        assertThatThrownBy(() -> key.open(out, 7, n, BLOB, new byte[plain.length], 0))
                .isInstanceOf(MasterKey.TamperedException.class);
        assertThatThrownBy(() -> key.seal(plain, 0, plain.length, BLOB, new byte[plain.length], 0))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void twoKeysUsedInTurnOnManyThreadsAndAFailedOpenBetweenThemKeepEachKeysResults() throws Exception {
        MasterKey a = MasterKey.generate();
        MasterKey b = MasterKey.generate();
        byte[] plain = "a file's content".getBytes(StandardCharsets.UTF_8);
        byte[] idA = a.id(plain, 0, plain.length);
        byte[] idB = b.id(plain, 0, plain.length);
        assertThat(idA).isNotEqualTo(idB);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            java.util.List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 200; i++) {
                        byte[] sealedA = a.seal(plain, BLOB);
                        byte[] sealedB = b.seal(plain, BLOB);
                        assertThat(a.id(plain, 0, plain.length)).isEqualTo(idA);
                        assertThatThrownBy(() -> a.open(sealedB, BLOB)).isInstanceOf(MasterKey.TamperedException.class);
                        assertThat(b.id(plain, 0, plain.length)).isEqualTo(idB);
                        assertThat(a.open(sealedA, BLOB)).isEqualTo(plain);
                        assertThat(b.open(sealedB, BLOB)).isEqualTo(plain);
                        assertThatThrownBy(() -> a.id(plain, 5, plain.length))
                                .isInstanceOf(IndexOutOfBoundsException.class);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        // The ID of bytes fed in parts through idMac is the same as in one call.
        javax.crypto.Mac mac = a.idMac();
        mac.update(plain, 0, 3);
        mac.update(plain, 3, plain.length - 3);
        assertThat(mac.doFinal()).isEqualTo(idA);
    }

    @Test
    void twoSealsOfTheSameBytesDiffer() {
        MasterKey key = MasterKey.generate();
        byte[] plain = new byte[64];
        assertThat(key.seal(plain, BLOB)).isNotEqualTo(key.seal(plain, BLOB));
    }

    @Test
    void everySealOnEveryThreadHasASaltAndNonceOfItsOwnAcrossRefillsOfTheRandomBytes() throws Exception {
        MasterKey key = MasterKey.generate();
        byte[] plain = new byte[16];
        Set<String> seen = ConcurrentHashMap.newKeySet();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                runs.add(pool.submit(() -> {
                    for (int i = 0; i < 1_000; i++) { // several refills of each thread's 64 messages' worth
                        byte[] sealed = key.seal(plain, BLOB);
                        byte[] saltAndNonce = Arrays.copyOf(sealed, 28);
                        assertThat(Arrays.equals(saltAndNonce, new byte[28])).isFalse();
                        seen.add(HexFormat.of().formatHex(saltAndNonce));
                    }
                }));
            }
            for (Future<?> run : runs) {
                run.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(seen).hasSize(4_000);
    }

    @Test
    void aFlippedByteAnotherKeyOtherAssociatedDataOrACutAreRefused() {
        MasterKey key = MasterKey.generate();
        byte[] sealed = key.seal(new byte[100], BLOB);
        for (int i = 0; i < sealed.length; i++) {
            byte[] flipped = sealed.clone();
            flipped[i] ^= 1;
            assertThatThrownBy(() -> key.open(flipped, BLOB)).isInstanceOf(MasterKey.TamperedException.class);
        }
        assertThatThrownBy(() -> MasterKey.generate().open(sealed, BLOB))
                .isInstanceOf(MasterKey.TamperedException.class);
        assertThatThrownBy(() -> key.open(sealed, "tree".getBytes(StandardCharsets.US_ASCII)))
                .isInstanceOf(MasterKey.TamperedException.class);
        assertThatThrownBy(() -> key.open(sealed, 0, 20, BLOB))
                .isInstanceOf(MasterKey.TamperedException.class)
                .hasMessageContaining("shorter");
    }

    @Test
    void idsAreKeyedSoTwoRepositoriesGiveTheSameContentDifferentIds() {
        byte[] data = "known file".getBytes(StandardCharsets.UTF_8);
        MasterKey a = MasterKey.generate();
        assertThat(a.idHex(data)).hasSize(64).isEqualTo(a.idHex(data));
        assertThat(a.idHex(data)).isNotEqualTo(MasterKey.generate().idHex(data));
        assertThat(MasterKey.decode(a.encoded()).chunkerSeed()).isEqualTo(a.chunkerSeed());
    }
}
