package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Which command lines get the S3 start-up work done ahead ({@code StartUp.prepareS3}): every way of
 * naming an S3 endpoint, and none of naming a local store (a restore given {@code -r s3:...} did that
 * work on its main thread).
 */
class S3PreloadTest {
    private static boolean s3(String variable, String... args) {
        return StartUp.namesS3Endpoint(args, variable);
    }

    @Test
    void everyWayOfNamingAnS3EndpointCounts() {
        assertThat(s3(null, "list", "--endpoint", "http://127.0.0.1:7480")).isTrue();
        assertThat(s3(null, "list", "--endpoint=http://127.0.0.1:7480")).isTrue();
        assertThat(s3(null, "-r", "s3:http://127.0.0.1:7480/b", "restore", "b", "out"))
                .isTrue();
        assertThat(s3(null, "restore", "b", "out", "--repo", "S3:https://s3.example.com/b"))
                .isTrue();
        assertThat(s3(null, "restore", "b", "out", "--repo=s3:host/b")).isTrue();
        assertThat(s3("s3:http://127.0.0.1:7480/b", "list")).isTrue();
    }

    @Test
    void aLocalStoreDoesNot() {
        assertThat(s3(null, "list")).isFalse();
        assertThat(s3(null, "list", "-r", "/srv/backups")).isFalse();
        assertThat(s3("/srv/backups", "list")).isFalse();
        // --repo and --data-dir win over the variable
        assertThat(s3("s3:http://127.0.0.1:7480/b", "list", "-r", "/srv/backups"))
                .isFalse();
        assertThat(s3("s3:http://127.0.0.1:7480/b", "list", "--data-dir", "/srv"))
                .isFalse();
        // a value of another option is not a command line's -r
        assertThat(s3(null, "backup", "dir", "--name", "s3:x")).isFalse();
    }

    @Test
    void onlyAnHttpEndpointSkipsTheTlsContext() {
        assertThat(plain(null, "list", "--endpoint", "http://127.0.0.1:7480")).isTrue();
        assertThat(plain(null, "list", "--endpoint=HTTP://127.0.0.1:7480")).isTrue();
        assertThat(plain(null, "-r", "s3:http://127.0.0.1:7480/b", "list")).isTrue();
        assertThat(plain("s3:http://127.0.0.1:7480/b", "list")).isTrue();
        assertThat(plain(null, "list", "--endpoint", "https://s3.example.com")).isFalse();
        // restic's s3:host/bucket is HTTPS
        assertThat(plain(null, "list", "--repo=s3:host/b")).isFalse();
        assertThat(plain(null, "list", "--endpoint")).isFalse();
    }

    private static boolean plain(String variable, String... args) {
        String endpoint = StartUp.s3Endpoint(args, variable);
        assertThat(endpoint).isNotNull();
        return StartUp.isPlainHttp(endpoint);
    }
}
