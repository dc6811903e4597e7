package dev.ballast.it.storage;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.VolumeInUseException;
import dev.ballast.storage.block.BlockVolume;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.S3MockServer;
import dev.ballast.storage.object.s3.S3Endpoint;
import dev.ballast.storage.object.s3.S3StoreConfig;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * One facade, both kinds of storage: byte-offset writes land in a local block volume and never in
 * S3; whole-object writes land in S3 as versions and never on the local disk.
 */
@Timeout(120)
@ExtendWith(LeakCheck.class)
class BlockVolumeFacadeIT {

    @TempDir
    Path localRoot;

    @Test
    void offsetWritesStayOnTheBlockVolumeAndObjectsAreReplacedWholeInS3() throws IOException {
        String bucket = "block-" + UUID.randomUUID().toString().substring(0, 13).toLowerCase(Locale.ROOT);
        S3Endpoint s3 = S3Endpoint.newBuilder()
                .endpoint(S3MockServer.endpoint())
                .credentials("ballast", "ballast-secret")
                .pathStyle(true)
                .build();
        try (StorageFacade facade = StorageFacade.newBuilder()
                .localRoot(localRoot)
                .s3(s3)
                .bucket(bucket)
                .s3Config(S3StoreConfig.builder()
                        .createBucket(true)
                        .enableVersioning(true)
                        .build())
                .build()) {
            try (BlockVolume disk = facade.block("disk.img")) {
                disk.write(0, ByteBuffer.wrap("ABCDEF".getBytes(US_ASCII)));
                disk.write(2, ByteBuffer.wrap("XX".getBytes(US_ASCII)));
                disk.force();
                assertThat(US_ASCII.decode(disk.read(0, 64)).toString()).isEqualTo("ABXXEF");
                assertThatThrownBy(() -> facade.block("disk.img")).isInstanceOf(VolumeInUseException.class);
            }
            assertThat(Files.readString(localRoot.resolve("disk.img"), US_ASCII))
                    .isEqualTo("ABXXEF");
            assertThat(facade.objects().list(""))
                    .as("block writes never reach S3")
                    .isEmpty();

            ObjectStore objects = facade.objects();
            objects.put("disk.img", ObjectContent.ofBytes("ABCDEF".getBytes(US_ASCII)));
            try (ObjectRead read = objects.get("disk.img")) {
                byte[] edited = read.readAllBytes();
                edited[2] = 'X';
                edited[3] = 'X';
                objects.putIfMatch("disk.img", read.version().eTag(), ObjectContent.ofBytes(edited));
            }
            assertThat(objects.versions("disk.img"))
                    .as("each whole-object write is a version")
                    .hasSize(2);
            try (ObjectRead latest = objects.get("disk.img")) {
                assertThat(latest.readAllBytes()).isEqualTo("ABXXEF".getBytes(US_ASCII));
            }
            try (Stream<Path> files = Files.list(localRoot)) {
                assertThat(files)
                        .as("object writes never touch the local root")
                        .containsExactly(localRoot.resolve("disk.img"));
            }
        }
    }

    @Test
    void theObjectApiHasNoWriteAtAnOffset() {
        for (Method method : ObjectStore.class.getMethods()) {
            assertThat(Arrays.asList(method.getParameterTypes()))
                    .as("%s takes no byte offset", method)
                    .doesNotContain(long.class);
        }
    }
}
