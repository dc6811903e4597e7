package dev.ballast.backup.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HexFormat;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class Argon2idTest {
    private static byte[] filled(int length, int value) {
        byte[] bytes = new byte[length];
        java.util.Arrays.fill(bytes, (byte) value);
        return bytes;
    }

    @Test
    void rfc9106TestVectorForArgon2id() {
        // RFC 9106 section 5.3: m=32 KiB, t=3, p=4, 32-byte tag, P = 32 x 0x01, S = 16 x 0x02,
        // K = 8 x 0x03, X = 12 x 0x04.
        byte[] tag = Argon2id.hash(filled(32, 1), filled(16, 2), filled(8, 3), filled(12, 4), 32, 3, 4, 32);

        assertThat(HexFormat.of().formatHex(tag))
                .isEqualTo("0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659");
    }

    @Test
    void givesBouncyCastlesTagForManyParameterSets() {
        SplittableRandom random = new SplittableRandom(20261202);
        int[][] shapes = {
            {8, 1, 1, 32}, {64, 1, 4, 32}, {64, 3, 4, 32}, {1024, 1, 4, 32}, {1000, 2, 3, 16},
            {2048, 1, 8, 64}, {4096, 2, 2, 100}, {333, 1, 5, 4}, {65536, 1, 4, 32}, {512, 4, 1, 1024}
        };
        for (int[] shape : shapes) {
            byte[] password = new byte[random.nextInt(0, 40)];
            byte[] salt = new byte[random.nextInt(8, 33)];
            random.nextBytes(password);
            random.nextBytes(salt);

            byte[] ours = Argon2id.hash(password, salt, shape[0], shape[1], shape[2], shape[3]);

            assertThat(ours)
                    .as("m=%d t=%d p=%d T=%d", shape[0], shape[1], shape[2], shape[3])
                    .isEqualTo(bouncyCastle(password, salt, shape[0], shape[1], shape[2], shape[3]));
        }
    }

    @Test
    void memoryPreparedAheadIsTakenByTheFirstDerivationOnlyAndChangesNoTag() {
        byte[] password = "correct horse".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] salt = filled(16, 9);
        byte[] expected = bouncyCastle(password, salt, 1024, 1, 4, 32);
        Argon2id.forgetSpare();
        try {
            Argon2id.prepare(1024, 4);
            assertThat(Argon2id.hasSpare()).isTrue();

            assertThat(Argon2id.hash(password, salt, 1024, 1, 4, 32)).isEqualTo(expected);
            assertThat(Argon2id.hasSpare()).as("taken by the derivation").isFalse();

            Argon2id.prepare(1024, 4); // too late: a derivation began, so nothing is held for the process
            assertThat(Argon2id.hasSpare()).isFalse();
            assertThat(Argon2id.hash(password, salt, 1024, 1, 4, 32)).isEqualTo(expected);
        } finally {
            Argon2id.forgetSpare();
        }
    }

    @Test
    void memoryPreparedForOtherParametersIsDroppedNotUsed() {
        byte[] password = filled(5, 1);
        byte[] salt = filled(16, 2);
        Argon2id.forgetSpare();
        try {
            Argon2id.prepare(2048, 4);

            assertThat(Argon2id.hash(password, salt, 1024, 1, 4, 32))
                    .isEqualTo(bouncyCastle(password, salt, 1024, 1, 4, 32));
            assertThat(Argon2id.hasSpare()).isFalse();
        } finally {
            Argon2id.forgetSpare();
        }
    }

    @Test
    void memoryReleasedBeforeAnyDerivationIsNotHeldAndNotPreparedAgain() {
        Argon2id.forgetSpare();
        try {
            Argon2id.prepare(1024, 4);
            assertThat(Argon2id.hasSpare()).isTrue();

            Argon2id.release();

            assertThat(Argon2id.hasSpare()).isFalse();
            Argon2id.prepare(1024, 4);
            assertThat(Argon2id.hasSpare()).isFalse();
        } finally {
            Argon2id.forgetSpare();
        }
    }

    @Test
    void theFallbackForAHeapWithoutRoomForOneArrayGivesTheSameTag() {
        // RFC 9106 section 5.3's parameters, secret and associated data included, and the default's.
        assertThat(HexFormat.of()
                        .formatHex(Argon2id.inPieces(
                                filled(32, 1), filled(16, 2), filled(8, 3), filled(12, 4), 32, 3, 4, 32)))
                .isEqualTo("0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659");
        byte[] password = filled(9, 7);
        byte[] salt = filled(16, 8);
        assertThat(Argon2id.inPieces(password, salt, new byte[0], new byte[0], 65536, 1, 4, 32))
                .isEqualTo(Argon2id.hash(password, salt, 65536, 1, 4, 32));
    }

    @Test
    void refusesParametersOutsideTheRfcsRanges() {
        assertThatThrownBy(() -> Argon2id.hash(new byte[1], new byte[16], 31, 1, 4, 32))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("m=31 KiB");
        assertThatThrownBy(() -> Argon2id.hash(new byte[1], new byte[16], 64, 0, 4, 32))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Argon2id.hash(new byte[1], new byte[16], 64, 1, 4, 3))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** BouncyCastle's generator (through {@link Argon2id#inPieces}, a thin wrapper of it). */
    private static byte[] bouncyCastle(
            byte[] password, byte[] salt, int memoryKiB, int iterations, int lanes, int tagBytes) {
        return Argon2id.inPieces(password, salt, new byte[0], new byte[0], memoryKiB, iterations, lanes, tagBytes);
    }
}
