package dev.ballast.it.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.s3.S3Endpoint;
import dev.ballast.storage.object.s3.S3StoreConfig;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Uploads to {@code moto_server} (Werkzeug writes {@code 100 Continue} twice to a request carrying
 * {@code Expect: 100-continue}; every PUT over 1 MiB used to fail with "HTTP 100"): a single PUT of
 * 5 MiB and a multipart upload of 20 MiB (8 MiB parts), each read back byte for byte. Runs when a
 * {@code moto_server} executable is on the {@code PATH} (pip's {@code moto[server]}), on a free
 * loopback port; skipped with that reason otherwise.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class MotoServerIT {

    private static final int MIB = 1024 * 1024;

    private static Process moto;
    private static URI endpoint;

    @BeforeAll
    static void startMoto() throws IOException {
        Optional<Path> binary = onPath("moto_server");
        assumeTrue(binary.isPresent(), "moto_server is not on the PATH (pip install 'moto[server]' to run this test)");
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        moto = new ProcessBuilder(binary.get().toString(), "-H", "127.0.0.1", "-p", String.valueOf(port))
                .redirectErrorStream(true)
                .start();
        // Werkzeug prints " * Running on http://127.0.0.1:PORT" once it listens.
        BufferedReader output =
                new BufferedReader(new InputStreamReader(moto.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder seen = new StringBuilder();
        for (String line = output.readLine(); line != null; line = output.readLine()) {
            seen.append(line).append('\n');
            if (line.contains("Running on http://127.0.0.1:" + port)) {
                break;
            }
        }
        assertThat(moto.isAlive())
                .as("moto_server started; its output:\n%s", seen)
                .isTrue();
        Thread drain = new Thread(() -> output.lines().forEach(l -> {}), "moto-output");
        drain.setDaemon(true);
        drain.start();
        endpoint = URI.create("http://127.0.0.1:" + port);
    }

    @AfterAll
    static void stopMoto() throws InterruptedException {
        if (moto != null) {
            moto.destroy();
            moto.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static Optional<Path> onPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path candidate = Path.of(dir, name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    @Test
    void aPutAndAMultipartUploadAreStoredAndReadBackWhole() throws Exception {
        byte[] single = random(5 * MIB, 1);
        byte[] multipart = random(20 * MIB, 2);
        try (StorageFacade storage = StorageFacade.newBuilder()
                .s3(S3Endpoint.newBuilder()
                        .endpoint(endpoint)
                        .region("us-east-1")
                        .credentials("any-key", "any-secret")
                        .build())
                .bucket("moto-uploads")
                .s3Config(S3StoreConfig.builder()
                        .createBucket(true)
                        .enableVersioning(true)
                        .build())
                .build()) {
            ObjectStore objects = storage.objects();

            objects.put("five-mib", ObjectContent.ofBytes(single));
            objects.put("twenty-mib", ObjectContent.ofBytes(multipart));

            try (ObjectRead read = objects.get("five-mib")) {
                assertThat(read.readAllBytes()).isEqualTo(single);
            }
            try (ObjectRead read = objects.get("twenty-mib")) {
                assertThat(read.readAllBytes()).isEqualTo(multipart);
            }
        }
    }

    private static byte[] random(int length, long seed) {
        byte[] bytes = new byte[length];
        new SplittableRandom(seed).nextBytes(bytes);
        return bytes;
    }
}
