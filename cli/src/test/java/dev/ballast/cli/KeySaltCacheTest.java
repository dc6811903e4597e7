package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.storage.object.local.LocalObjectStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The remembered KDF parameters and salt ({@link KeySaltCache}) with which a command starts deriving the
 * password's key while it opens the store: what the file holds, and that a stale, foreign or damaged entry
 * never changes what a command answers.
 */
class KeySaltCacheTest extends InProcessCli {
    private String[] at(String... args) {
        String[] all = java.util.Arrays.copyOf(args, args.length + 2);
        all[args.length] = "--data-dir";
        all[args.length + 1] = data().toString();
        return all;
    }

    private Path cacheFile() {
        return home.resolve(".cache/ballast").resolve(KeySaltCache.FILE);
    }

    private Path storeDir() {
        return data().resolve("ballast-backups");
    }

    /** The base64 salt of the repository's only key file, as the store holds it. */
    private String keyFileSalt() throws Exception {
        try (LocalObjectStore store = LocalObjectStore.open(storeDir())) {
            List<String> keys = store.list("keys/");
            assertThat(keys).hasSize(1);
            try (var r = store.get(keys.get(0))) {
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"salt\":\"([^\"]+)\"")
                        .matcher(new String(r.readAllBytes(), StandardCharsets.UTF_8));
                assertThat(m.find()).isTrue();
                return m.group(1);
            }
        }
    }

    private Path backedUp() throws Exception {
        Path src = Files.createDirectories(home.resolve("src"));
        Files.writeString(src.resolve("a.txt"), "alpha");
        assertThat(run(at("init"))).as(err()).isZero();
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        return src;
    }

    @Test
    void aCommandThatOpensTheRepositoryRemembersItsKeyFilesSaltAndNothingSecret() throws Exception {
        backedUp();

        assertThat(cacheFile()).isRegularFile();
        String cache = Files.readString(cacheFile(), StandardCharsets.ISO_8859_1);
        assertThat(new KeySaltCache(cacheFile().getParent()).read(storeDir().toString()))
                .isNotNull()
                .satisfies(s ->
                        assertThat(Base64.getEncoder().encodeToString(s.salt())).isEqualTo(keyFileSalt()));
        assertThat(cache).doesNotContain(TEST_PASSWORD);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(cacheFile())))
                .isEqualTo("rw-------");
    }

    @Test
    void aStaleRememberedSaltCostsNothingButItsDerivationAndIsReplaced() throws Exception {
        Path src = backedUp();
        byte[] other = new byte[16];
        new java.util.Random(3).nextBytes(other);
        String stale = "65536 1 4 " + Base64.getEncoder().encodeToString(other);
        Files.writeString(cacheFile(), KeySaltCacheTest.escaped(storeDir().toString()) + "=" + stale + "\n");

        assertThat(run(at("restore", "src", home.resolve("out").toString())))
                .as(err())
                .isZero();
        assertThat(home.resolve("out/a.txt")).hasContent("alpha");
        assertThat(Base64.getEncoder()
                        .encodeToString(new KeySaltCache(cacheFile().getParent())
                                .read(storeDir().toString())
                                .salt()))
                .isEqualTo(keyFileSalt());
        assertThat(src).isDirectory();
    }

    @Test
    void aWrongPasswordIsRefusedAsAlwaysWhenTheRememberedSaltIsRight() throws Exception {
        backedUp();
        String before = Files.readString(cacheFile(), StandardCharsets.ISO_8859_1);

        assertThat(run(Map.of("BALLAST_PASSWORD", "not-the-password"), at("list")))
                .isEqualTo(ExitCodes.WRONG_PASSWORD);
        assertThat(err()).contains("No key of the repository").contains("opens with the password given");
        assertThat(Files.readString(cacheFile(), StandardCharsets.ISO_8859_1)).isEqualTo(before);

        Path file = Files.writeString(home.resolve("pw"), TEST_PASSWORD + "\n");
        assertThat(run(Map.of("BALLAST_PASSWORD", ""), at("list", "--password-file", file.toString())))
                .as(err())
                .isZero();
    }

    @Test
    void aDamagedOrForeignCacheFileIsIgnored() throws Exception {
        backedUp();
        Files.write(cacheFile(), new byte[] {0, (byte) 0xff, '=', '\n', 'x'});
        assertThat(run(at("list"))).as(err()).isZero();
        assertThat(new KeySaltCache(cacheFile().getParent()).read(storeDir().toString()))
                .isNotNull();

        Files.delete(cacheFile());
        Files.createDirectory(cacheFile());
        assertThat(run(at("list"))).as(err()).isZero();
    }

    /** {@code key} as a properties file's key: ':', '=', ' ' and '\' escaped. */
    static String escaped(String key) {
        return key.replace("\\", "\\\\").replace(":", "\\:").replace("=", "\\=").replace(" ", "\\ ");
    }
}
