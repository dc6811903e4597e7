package dev.ballast.backup.tree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NamesTest {
    @TempDir
    Path dir;

    @Test
    void everySequenceOfBytesDecodesToANameThatEncodesBackToTheSameBytes() {
        Random random = new Random(20);
        for (int i = 0; i < 20_000; i++) {
            byte[] b = new byte[random.nextInt(12)];
            random.nextBytes(b);
            assertThat(Names.encode(Names.decode(b)))
                    .as("%s", java.util.HexFormat.of().formatHex(b))
                    .isEqualTo(b);
            assertThat(Names.isUtf8(Names.decode(b))).isEqualTo(Names.validUtf8(b));
        }
        for (String s : new String[] {"café.txt", "a b/ü+x", "😀 emoji", "nl\nname", ""}) {
            assertThat(Names.decode(s.getBytes(StandardCharsets.UTF_8))).isEqualTo(s);
            assertThat(Names.encode(s)).isEqualTo(s.getBytes(StandardCharsets.UTF_8));
        }
        // Surrogates encoded as UTF-8 (CESU) are not valid UTF-8: each byte stands for itself.
        byte[] cesu = {(byte) 0xED, (byte) 0xB0, (byte) 0x80};
        assertThat(Names.decode(cesu)).isEqualTo("\uDCED\uDCB0\uDC80");
        assertThat(Names.encode(Names.decode(cesu))).isEqualTo(cesu);
    }

    @Test
    void aLoneSurrogateThatStandsForNoByteIsRefused() {
        assertThatThrownBy(() -> Names.encode("x\uD800y")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void noTwoNamesPrintAlikeAndEachPrintedNameReadsBack() {
        String byteFf = "bad" + Names.decode(new byte[] {(byte) 0xFF});
        String lettersXff = "bad\\xFF";
        String newline = "odd/new\nline.txt";

        assertThat(Names.printable(byteFf)).isEqualTo("bad\\xFF");
        assertThat(Names.printable(lettersXff)).isEqualTo("bad\\\\xFF");
        assertThat(Names.printable(newline)).isEqualTo("odd/new\\u000Aline.txt");
        for (String name : java.util.List.of(byteFf, lettersXff, newline, "a\\b", "x\u0007y")) {
            assertThat(Names.fromPrintable(Names.printable(name))).as(name).isEqualTo(name);
        }
        assertThat(Names.fromPrintable("plain")).isNull();
        assertThat(Names.fromPrintable("bad\\q")).isNull();
        assertThat(Names.fromPrintable("trailing\\")).isNull();
        assertThat(Names.fromPrintable("short\\xF")).isNull();
    }

    @Test
    void printableShowsControlCharactersAndBytesThatAreNotUtf8AsEscapes() {
        assertThat(Names.printable("x" + Names.decode(new byte[] {(byte) 0xFF}) + "\n😀"))
                .isEqualTo("x\\xFF\\u000A😀");
        assertThat(Names.printable("plain")).isEqualTo("plain");
    }

    @Test
    void pathsAreMadeAndReadAsTheirBytes() throws IOException {
        Assumptions.assumeTrue(Names.exact(), "names are read as bytes (--add-opens)");
        String name = "x" + Names.decode(new byte[] {(byte) 0xFF, (byte) 0xC3}) + "\u0001é";
        Path file = Names.resolve(dir, "sub/" + name);
        Files.createDirectories(file.getParent());
        Files.writeString(file, "bytes");
        try (var entries = Files.newDirectoryStream(dir.resolve("sub"))) {
            Path found = entries.iterator().next();
            assertThat(Names.bytes(found.getFileName())).isEqualTo(Names.encode(name));
            assertThat(Names.relative(dir, found)).isEqualTo("sub/" + name);
        }
        assertThat(Names.linkTarget("a//b/").toString()).isEqualTo("a//b/");
    }

    @Test
    void aVariableWithABytesItsLocaleCannotDecodeIsReadAgainByteForByte() {
        org.junit.jupiter.api.Assumptions.assumeTrue(Names.exact());
        byte[] environ = concat(
                "HOME=/root\0".getBytes(java.nio.charset.StandardCharsets.US_ASCII),
                new byte[] {'B', '=', '/', 't', 'm', 'p', '/', 'u', (byte) 0xff, '/', 's', 't', 0},
                "C=caf\u00e9\0".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        java.util.Map<String, String> seen =
                java.util.Map.of("HOME", "/root", "B", "/tmp/u\uFFFD/st", "C", "caf\u00e9");

        java.util.Map<String, String> read = Names.environment(seen, environ, java.nio.charset.StandardCharsets.UTF_8);

        assertThat(Names.bytes(Names.path(read.get("B"))))
                .isEqualTo(new byte[] {'/', 't', 'm', 'p', '/', 'u', (byte) 0xff, '/', 's', 't'});
        assertThat(read.get("HOME")).isEqualTo("/root");
        assertThat(read.get("C")).isEqualTo("caf\u00e9");
        // a variable set since the JVM started (its bytes no longer match) keeps the JVM's value
        java.util.Map<String, String> changed = java.util.Map.of("B", "/elsewhere\uFFFD");
        assertThat(Names.environment(changed, environ, java.nio.charset.StandardCharsets.UTF_8))
                .containsEntry("B", "/elsewhere\uFFFD");
    }

    private static byte[] concat(byte[]... parts) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
