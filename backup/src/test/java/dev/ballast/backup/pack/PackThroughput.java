package dev.ballast.backup.pack;

import dev.ballast.backup.keys.MasterKey;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.test.FakeObjectStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Instant;
import java.util.SplittableRandom;

/**
 * A quick single-threaded measurement (not a test, not JMH): chunk boundary finding, the blob codec
 * and the whole add path into a store that drops what it is given. Run from the repository root:
 *
 * <pre>
 * mvn -B -q -o -pl backup -am test-compile -Dmaven.test.skip.exec
 * mvn -B -q -o -pl backup dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt -Dmdep.includeScope=test
 * java -cp backup/target/test-classes:backup/target/classes:$(cat /tmp/cp.txt) dev.ballast.backup.pack.PackThroughput
 * </pre>
 */
public final class PackThroughput {
    private PackThroughput() {}

    public static void main(String[] args) throws IOException {
        int mib = args.length > 0 ? Integer.parseInt(args[0]) : 256;
        byte[] random = new byte[mib << 20];
        new SplittableRandom(1).nextBytes(random);
        byte[] text = new byte[mib << 20];
        SplittableRandom r = new SplittableRandom(2);
        String[] words = {"the ", "backup ", "pack ", "index ", "blob ", "chunk ", "of ", "a ", "\n", "store "};
        for (int i = 0; i < text.length; ) {
            byte[] w = words[r.nextInt(words.length)].getBytes();
            int n = Math.min(w.length, text.length - i);
            System.arraycopy(w, 0, text, i, n);
            i += n;
        }
        MasterKey key = MasterKey.generate();
        for (int round = 0; round < 3; round++) {
            System.out.println("round " + (round + 1) + ", " + mib + " MiB each");
            Chunker chunker = new Chunker(key.chunkerSeed());
            long t0 = System.nanoTime();
            int[] chunks = {0};
            for (int pos = 0; pos < random.length; ) {
                int len = chunker.cut(random, pos, random.length - pos);
                pos += len;
                chunks[0]++;
            }
            report("chunker boundaries (cut over memory)", random.length, t0);
            t0 = System.nanoTime();
            chunker.chunk(new ByteArrayInputStream(random), (b, o, l) -> {});
            report("chunker over an InputStream", random.length, t0);
            System.out.printf("  %d chunks, mean %.0f KiB%n", chunks[0], random.length / 1024.0 / chunks[0]);
            parts(key, random);
            codec("codec, random (stored as is)", key, random);
            codec("codec, text (compressed)", key, text);
            add("BlobRepository.add + flush, random", key, random, chunker);
            add("BlobRepository.add + flush, text", key, text, chunker);
        }
    }

    private static void parts(MasterKey key, byte[] data) {
        long t0 = System.nanoTime();
        byte[] dst = new byte[(int) com.github.luben.zstd.Zstd.compressBound(1 << 20)];
        for (int pos = 0; pos < data.length; pos += 1 << 20) {
            com.github.luben.zstd.Zstd.compressByteArray(dst, 0, dst.length, data, pos, 1 << 20, 3);
        }
        report("zstd -3 alone, random", data.length, t0);
        t0 = System.nanoTime();
        for (int pos = 0; pos < data.length; pos += 1 << 20) {
            key.seal(data, pos, 1 << 20, new byte[1]);
        }
        report("MasterKey.seal alone (AES-256-GCM)", data.length, t0);
        t0 = System.nanoTime();
        for (int pos = 0; pos < data.length; pos += 1 << 20) {
            key.id(data, pos, 1 << 20);
        }
        report("MasterKey.id alone (HMAC-SHA256)", data.length, t0);
    }

    private static void codec(String what, MasterKey key, byte[] data) {
        long t0 = System.nanoTime();
        long stored = 0;
        BlobId id = BlobId.of(new byte[32]);
        for (int pos = 0; pos < data.length; pos += 1 << 20) {
            int len = Math.min(1 << 20, data.length - pos);
            stored +=
                    BlobCodec.encode(key, 3, BlobType.DATA, id, data, pos, len).bytes().length;
        }
        report(what, data.length, t0);
        System.out.printf("  stored %.1f %% of the plain bytes%n", 100.0 * stored / data.length);
    }

    private static void add(String what, MasterKey key, byte[] data, Chunker chunker) throws IOException {
        FakeObjectStore fake = new FakeObjectStore();
        ObjectStore dropping = (ObjectStore) Proxy.newProxyInstance(
                ObjectStore.class.getClassLoader(), new Class<?>[] {ObjectStore.class}, (proxy, method, args) -> {
                    if (method.getName().equals("put") && ((String) args[0]).startsWith("data/")) {
                        return new ObjectVersion((String) args[0], "v", "e", 0, "", 0, Instant.EPOCH);
                    }
                    try {
                        return method.invoke(fake, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        long t0 = System.nanoTime();
        try (BlobRepository repo = BlobRepository.open(dropping, key)) {
            chunker.chunk(
                    new ByteArrayInputStream(data), (b, o, l) -> repo.add(BlobType.DATA, repo.id(b, o, l), b, o, l));
            repo.flush();
        }
        report(what, data.length, t0);
    }

    private static void report(String what, long bytes, long t0) {
        double s = (System.nanoTime() - t0) / 1e9;
        System.out.printf("  %-40s %7.0f MiB/s%n", what, bytes / 1048576.0 / s);
    }
}
