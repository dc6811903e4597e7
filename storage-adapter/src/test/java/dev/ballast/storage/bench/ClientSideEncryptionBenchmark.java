package dev.ballast.storage.bench;

import dev.ballast.storage.crypto.ClientSideEncryption;
import dev.ballast.storage.crypto.EncryptedObjectStore;
import dev.ballast.storage.crypto.KeyWrapper;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.local.LocalObjectStore;
import dev.ballast.storage.object.local.LocalStoreConfig;
import dev.ballast.test.FakeObjectStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import javax.crypto.spec.SecretKeySpec;

/**
 * The cost of client-side encryption ({@link EncryptedObjectStore}): put and whole-object get
 * throughput of the same objects on the same store with and without it, on the in-memory store (where
 * the encryption is nearly all the work) and on the local object store, and a 64 KiB ranged read of a
 * 16 MiB object.
 *
 * <p>Not a test: run it by hand (see docs/storage.md, "Client-side encryption"). Argument: a directory
 * for the local store (default {@code java.io.tmpdir}). Prints a Markdown table.
 */
public final class ClientSideEncryptionBenchmark {

    private static final int MIB = 1024 * 1024;
    /** The local stores' directories, deleted at the end. */
    private static final java.util.List<Path> CREATED = new java.util.ArrayList<>();

    private ClientSideEncryptionBenchmark() {}

    public static void main(String[] args) throws Exception {
        Path base = Path.of(args.length > 0 ? args[0] : System.getProperty("java.io.tmpdir"));
        byte[] keyBytes = new byte[32];
        new SplittableRandom(1).nextBytes(keyBytes);
        ClientSideEncryption encryption = ClientSideEncryption.builder(
                        KeyWrapper.aesKeyWrap("bench", new SecretKeySpec(keyBytes, "AES")))
                .build();
        System.out.println("| store | object | put, plain | put, encrypted | get, plain | get, encrypted |");
        System.out.println("| --- | ---: | ---: | ---: | ---: | ---: |");
        for (int size : new int[] {4 * 1024, 16 * MIB}) {
            int count = size < MIB ? 4000 : 12;
            row("in-memory (FakeObjectStore)", size, count, FakeObjectStore::new, encryption);
            row("local (LocalObjectStore)", size, count, () -> local(base), encryption);
        }
        ranged(encryption);
        for (Path dir : CREATED) {
            deleteTree(dir);
        }
    }

    private static ObjectStore local(Path base) {
        try {
            return LocalObjectStore.open(
                    Files.createTempDirectory(base, "crypt-bench-"), LocalStoreConfig.ofDefaults());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void row(
            String name,
            int size,
            int count,
            java.util.function.Supplier<ObjectStore> stores,
            ClientSideEncryption encryption)
            throws Exception {
        byte[] data = new byte[size];
        new SplittableRandom(size).nextBytes(data);
        double[] plain = measure(stores.get(), data, count);
        double[] encrypted = measure(EncryptedObjectStore.wrap(stores.get(), encryption), data, count);
        System.out.printf(
                Locale.ROOT,
                "| %s | %s | %s | %s | %s | %s |%n",
                name,
                size < MIB ? (size / 1024) + " KiB" : (size / MIB) + " MiB",
                rate(plain[0], size),
                rate(encrypted[0], size),
                rate(plain[1], size),
                rate(encrypted[1], size));
    }

    /** Put then get throughput in MiB/s, after a warm-up round of the same size. */
    private static double[] measure(ObjectStore store, byte[] data, int count) throws Exception {
        try {
            double[] result = new double[2];
            for (int round = 0; round < 2; round++) {
                long start = System.nanoTime();
                for (int i = 0; i < count; i++) {
                    store.put("k" + (i % 64), ObjectContent.ofBytes(data));
                }
                long put = System.nanoTime() - start;
                start = System.nanoTime();
                for (int i = 0; i < count; i++) {
                    try (ObjectRead read = store.get("k" + (i % Math.min(count, 64)))) {
                        read.stream().transferTo(java.io.OutputStream.nullOutputStream());
                    }
                }
                long get = System.nanoTime() - start;
                result[0] = mibPerSecond((long) data.length * count, put);
                result[1] = mibPerSecond((long) data.length * count, get);
            }
            return result;
        } finally {
            ObjectStore inner = store instanceof EncryptedObjectStore e ? e.delegate() : store;
            if (inner instanceof AutoCloseable c) {
                c.close();
            }
        }
    }

    private static void ranged(ClientSideEncryption encryption) throws Exception {
        byte[] data = new byte[16 * MIB];
        new SplittableRandom(7).nextBytes(data);
        EncryptedObjectStore store = EncryptedObjectStore.wrap(new FakeObjectStore(), encryption);
        store.put("big", ObjectContent.ofBytes(data));
        int reads = 200;
        long start = System.nanoTime();
        for (int i = 0; i < reads; i++) {
            long offset = (long) (i * 7919L * 4096) % (data.length - 65536);
            try (ObjectRead read = store.getRange("big", ReadOptions.latest(), offset, 65536)) {
                read.stream().transferTo(java.io.OutputStream.nullOutputStream());
            }
        }
        double perRead = (System.nanoTime() - start) / 1e6 / reads;
        System.out.printf(
                Locale.ROOT,
                "%nRanged read of 64 KiB at spread offsets of a 16 MiB encrypted object (in-memory store): %.2f ms"
                        + " per read%n",
                perRead);
    }

    /** MiB/s, and objects/s for small objects. */
    private static String rate(double mibPerSecond, int size) {
        return size < MIB
                ? String.format(Locale.ROOT, "%.0f objects/s", mibPerSecond * MIB / size)
                : String.format(Locale.ROOT, "%.0f MiB/s", mibPerSecond);
    }

    private static double mibPerSecond(long bytes, long nanos) {
        return bytes / (double) MIB / (nanos / 1e9);
    }

    static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
