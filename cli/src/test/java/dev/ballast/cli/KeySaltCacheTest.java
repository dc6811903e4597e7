package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.keys.KeyDerivationAhead;
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
        assertThat(new KeySaltCache(cacheFile().getParent(), java.time.Clock.systemUTC())
                        .read(storeDir().toString()))
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
        String stale = "65536 1 4 " + Base64.getEncoder().encodeToString(other) + " 1";
        Files.writeString(cacheFile(), KeySaltCacheTest.escaped(storeDir().toString()) + "=" + stale + "\n");

        assertThat(run(at("restore", "src", home.resolve("out").toString())))
                .as(err())
                .isZero();
        assertThat(home.resolve("out/a.txt")).hasContent("alpha");
        assertThat(Base64.getEncoder()
                        .encodeToString(new KeySaltCache(cacheFile().getParent(), java.time.Clock.systemUTC())
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
        assertThat(new KeySaltCache(cacheFile().getParent(), java.time.Clock.systemUTC())
                        .read(storeDir().toString()))
                .isNotNull();

        Files.delete(cacheFile());
        Files.createDirectory(cacheFile());
        assertThat(run(at("list"))).as(err()).isZero();
    }

    @Test
    void aLinkAtTheCacheFilesNameIsNeverFollowedNorItsTargetCopiedIn() throws Exception {
        backedUp();
        Path secret = Files.writeString(home.resolve("secret"), "my secret pass\nother=thing\n");
        Files.delete(cacheFile());
        Files.createSymbolicLink(cacheFile(), secret);

        assertThat(run(at("list"))).as(err()).isZero();
        assertThat(secret).hasContent("my secret pass\nother=thing");
        assertThat(Files.isSymbolicLink(cacheFile())).isFalse();
        assertThat(Files.readString(cacheFile(), StandardCharsets.ISO_8859_1))
                .doesNotContain("my secret pass")
                .doesNotContain("other");
        assertThat(new KeySaltCache(cacheFile().getParent(), java.time.Clock.systemUTC())
                        .read(storeDir().toString()))
                .isNotNull();
    }

    @Test
    void theCacheKeepsTheStoresWrittenMostRecentlyAndDropsWhatDoesNotParse() throws Exception {
        backedUp();
        StringBuilder many = new StringBuilder("junk line without a salt\n");
        for (int i = 0; i < KeySaltCache.MAX_ENTRIES + 40; i++) {
            many.append("/tmp/old-")
                    .append(i)
                    .append("=65536 1 4 AAAAAAAAAAAAAAAAAAAAAA\\=\\= ")
                    .append(i)
                    .append('\n');
        }
        Files.writeString(cacheFile(), many);

        assertThat(run(at("list"))).as(err()).isZero();
        KeySaltCache cache = new KeySaltCache(cacheFile().getParent(), java.time.Clock.systemUTC());
        assertThat(cache.read(storeDir().toString())).isNotNull();
        String kept = Files.readString(cacheFile(), StandardCharsets.ISO_8859_1);
        assertThat(kept.lines().filter(l -> !l.startsWith("#"))).hasSize(KeySaltCache.MAX_ENTRIES);
        assertThat(cache.read("/tmp/old-0")).as("the oldest is dropped first").isNull();
        assertThat(cache.read("/tmp/old-" + (KeySaltCache.MAX_ENTRIES + 39))).isNotNull();
        assertThat(kept).doesNotContain("junk");
    }

    @Test
    void aNewRepositoryReplacesTheEntryAndAStoreOfTheUnencryptedFormatForgetsIt() throws Exception {
        Path src = backedUp();
        KeySaltCache cache = new KeySaltCache(cacheFile().getParent(), java.time.Clock.systemUTC());
        assertThat(cache.read(storeDir().toString())).isNotNull();

        org.assertj.core.util.Files.delete(data().toFile());
        KeyDerivationAhead.Salt before = cache.read(storeDir().toString());
        assertThat(run(at("init"))).as(err()).isZero();
        assertThat(cache.read(storeDir().toString()))
                .as("init remembers the salt of the key it made, not the old repository's")
                .isNotNull()
                .isNotEqualTo(before)
                .satisfies(s ->
                        assertThat(Base64.getEncoder().encodeToString(s.salt())).isEqualTo(keyFileSalt()));
        assertThat(run(at("list"))).as(err()).isZero();

        org.assertj.core.util.Files.delete(data().toFile());
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        assertThat(cache.read(storeDir().toString()))
                .as("a first backup that makes the repository remembers its key's salt too")
                .satisfies(s ->
                        assertThat(Base64.getEncoder().encodeToString(s.salt())).isEqualTo(keyFileSalt()));

        org.assertj.core.util.Files.delete(data().toFile());
        assertThat(run(at("backup", src.toString(), "--insecure-no-encryption")))
                .as(err())
                .isZero();
        Files.writeString(cacheFile(), escaped(storeDir().toString()) + "=65536 1 4 AAAAAAAAAAAAAAAAAAAAAA\\=\\= 1\n");
        assertThat(run(at("list"))).as(err()).isZero();
        assertThat(cache.read(storeDir().toString())).isNull();
    }

    @Test
    @org.junit.jupiter.api.Timeout(120) // read ahead, the pipe gave the open nothing: it waited for ever
    void aPasswordFromAPipeIsReadOnceByTheOpenNotAhead() throws Exception {
        Path src = backedUp();
        org.assertj.core.util.Files.delete(data().toFile()); // the entry stays: stale
        Path fifo = home.resolve("pw.fifo");
        new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor();
        Thread writer = new Thread(() -> {
            try {
                Files.writeString(fifo, "fifo-password\n");
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        writer.setDaemon(true);
        writer.start();
        assertThat(run(
                        Map.of("BALLAST_PASSWORD", ""),
                        at("backup", src.toString(), "--password-file", fifo.toString())))
                .as(err())
                .isZero();
        writer.join(10_000);
        Path file = Files.writeString(home.resolve("pw"), "fifo-password\n");
        assertThat(run(Map.of("BALLAST_PASSWORD", ""), at("list", "--password-file", file.toString())))
                .as(err())
                .isZero();
    }

    /** {@code key} as a properties file's key: ':', '=', ' ' and '\' escaped. */
    static String escaped(String key) {
        return key.replace("\\", "\\\\").replace(":", "\\:").replace("=", "\\=").replace(" ", "\\ ");
    }
}
