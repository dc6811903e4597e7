package dev.ballast.backup.tree;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * File names as the bytes the file system holds, whatever the locale the JVM started in.
 *
 * <p>On Linux and other Unix systems a file name is a sequence of bytes (anything but {@code /} and
 * NUL); the JDK decodes it to a {@code String} with {@code sun.jnu.encoding}, which it takes from the
 * locale when the JVM starts (US-ASCII under {@code env -i}, as cron and systemd run jobs) and which
 * {@code -D} cannot change on JDK 17+. A name that does not decode in it comes back with U+FFFD in
 * place of its bytes, and a {@code String} with a character the encoding lacks cannot become a
 * {@code Path} at all ("Malformed input or input contains unmappable characters"). The JDK's
 * {@code sun.nio.fs.UnixPath} keeps the bytes read from a directory, though: only its
 * {@code toString()} decodes them. This class reads and makes such paths from bytes (the package
 * {@code sun.nio.fs} opened to this code with {@code --add-opens java.base/sun.nio.fs=ALL-UNNAMED},
 * which the {@code ballast} launcher passes), so every name is kept byte for byte.
 *
 * <p>In Ballast a name is a {@code String} holding its bytes decoded as UTF-8, each byte that is not
 * part of valid UTF-8 held as the lone surrogate {@code U+DC80 + (byte - 0x80)}: Python's
 * "surrogateescape" (PEP 383). Valid UTF-8 (all but a handful of real names) reads as itself, and
 * {@link #encode} gives back exactly the bytes {@link #decode} was given. A manifest's JSON writes a
 * lone surrogate as a {@code \}{@code uDCxx} escape (Jackson's generator escapes every surrogate),
 * so the bytes survive the manifest too.
 *
 * <p>Where the JDK's paths are not {@code UnixPath} (Windows) or the package is not opened, paths are
 * converted with the JDK's own encoding, and {@link #exact()} is false: a name that encoding cannot
 * hold is then reported by the backup rather than stored under a wrong name. Thread-safe.
 */
public final class Names {
    /** Bytes 0x80 to 0xFF that are not valid UTF-8 are held as U+DC80 to U+DCFF. */
    private static final char ESCAPE_BASE = '\uDC00';

    private static final @Nullable Method AS_BYTES;
    private static final @Nullable Constructor<?> FROM_BYTES;
    private static final @Nullable Class<?> UNIX_PATH;
    private static final @Nullable Object FILE_SYSTEM;

    static {
        Method asBytes = null;
        Constructor<?> fromBytes = null;
        Class<?> unixPath = null;
        Object fs = null;
        try {
            unixPath = Class.forName("sun.nio.fs.UnixPath");
            Class<?> unixFs = Class.forName("sun.nio.fs.UnixFileSystem");
            Object defaultFs = FileSystems.getDefault();
            if (unixFs.isInstance(defaultFs) && unixPath.isInstance(Path.of("/"))) {
                Method m = unixPath.getDeclaredMethod("asByteArray");
                Constructor<?> c = unixPath.getDeclaredConstructor(unixFs, byte[].class);
                m.setAccessible(true); // InaccessibleObjectException without --add-opens
                c.setAccessible(true);
                asBytes = m;
                fromBytes = c;
                fs = defaultFs;
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            asBytes = null;
            fromBytes = null;
        }
        AS_BYTES = asBytes;
        FROM_BYTES = fromBytes;
        UNIX_PATH = fromBytes == null ? null : unixPath;
        FILE_SYSTEM = fromBytes == null ? null : fs;
    }

    private Names() {}

    /** The JVM option that lets this class read and make names as bytes. */
    public static final String JVM_OPTION = "--add-opens java.base/sun.nio.fs=ALL-UNNAMED";

    /**
     * Null when names are read and made as bytes, or cannot be on this JDK (not a Unix one); otherwise
     * the one sentence that says what the JVM lacks: a Unix JDK that has not opened {@code sun.nio.fs}
     * to this code ({@link #JVM_OPTION}).
     */
    public static @Nullable String missingJvmOption() {
        if (exact()) {
            return null;
        }
        try {
            Class<?> unixPath = Class.forName("sun.nio.fs.UnixPath");
            if (!unixPath.isInstance(Path.of("/"))) {
                return null;
            }
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
        return "The backup library reads file names as the bytes the file system holds through the JDK's"
                + " sun.nio.fs, which this JVM does not open to it; start the JVM with " + JVM_OPTION
                + " (as the ballast launcher does), or accept names as the locale decodes them"
                + " (Backups.allowingInexactNames(store)).";
    }

    /**
     * Whether paths are read and made from their bytes (a Unix JDK with {@code sun.nio.fs} opened),
     * so that every name the file system allows is kept exactly.
     */
    public static boolean exact() {
        return FROM_BYTES != null;
    }

    /** {@code bytes} as UTF-8, each byte that is not part of valid UTF-8 as U+DC80 + (byte - 0x80). */
    public static String decode(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        boolean ascii = true;
        for (byte b : bytes) {
            if (b < 0) {
                ascii = false;
                break;
            }
        }
        if (ascii) {
            return new String(bytes, StandardCharsets.US_ASCII);
        }
        CharsetDecoder decoder = StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(bytes.length);
        while (true) {
            CoderResult r = decoder.decode(in, out, true);
            if (r.isUnderflow()) {
                break;
            }
            if (r.isError()) {
                // Each byte of the malformed sequence on its own, then decoding goes on after it.
                for (int i = 0; i < r.length(); i++) {
                    out.put((char) (ESCAPE_BASE + (in.get() & 0xFF)));
                }
            } else {
                throw new IllegalStateException(r.toString()); // overflow: cannot happen, one char per byte at most
            }
        }
        out.flip();
        return out.toString();
    }

    /**
     * The bytes {@code name} stands for: the inverse of {@link #decode}.
     *
     * @throws IllegalArgumentException if {@code name} holds a lone surrogate that is not an escaped
     *     byte (U+DC80 to U+DCFF), which no file name decodes to
     */
    public static byte[] encode(String name) {
        Objects.requireNonNull(name, "name");
        int n = name.length();
        boolean simple = true;
        for (int i = 0; i < n; i++) {
            if (Character.isSurrogate(name.charAt(i))) {
                simple = false;
                break;
            }
        }
        if (simple) {
            return name.getBytes(StandardCharsets.UTF_8);
        }
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(n * 3);
        int start = 0;
        for (int i = 0; i < n; i++) {
            char c = name.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(name.charAt(i + 1))) {
                i++;
                continue;
            }
            if (Character.isSurrogate(c)) {
                if (c < '\uDC80' || c > '\uDCFF') {
                    throw new IllegalArgumentException("the name '" + printable(name)
                            + "' holds the lone surrogate U+"
                            + Integer.toHexString(c).toUpperCase(java.util.Locale.ROOT)
                            + ", which stands for no byte");
                }
                out.writeBytes(name.substring(start, i).getBytes(StandardCharsets.UTF_8));
                out.write(c - ESCAPE_BASE);
                start = i + 1;
            }
        }
        out.writeBytes(name.substring(start).getBytes(StandardCharsets.UTF_8));
        return out.toByteArray();
    }

    /** Whether {@code name}'s bytes are valid UTF-8 (it holds no escaped byte). */
    public static boolean isUtf8(String name) {
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c >= '\uDC80' && c <= '\uDCFF' && (i == 0 || !Character.isHighSurrogate(name.charAt(i - 1)))) {
                return false;
            }
        }
        return true;
    }

    /** The number of bytes of {@code name}. */
    public static int byteLength(String name) {
        return encode(name).length;
    }

    /**
     * The bytes of {@code path} as the file system holds them ({@link #exact()}), else its
     * {@code toString()} encoded with the JDK's file name encoding.
     */
    public static byte[] bytes(Path path) {
        if (AS_BYTES != null && UNIX_PATH.isInstance(path)) {
            try {
                return ((byte[]) AS_BYTES.invoke(path)).clone();
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }
        return path.toString().getBytes(jnuCharset());
    }

    /** {@code path} as a name (see the class comment). */
    public static String name(Path path) {
        if (AS_BYTES != null && UNIX_PATH.isInstance(path)) {
            return decode(bytes(path));
        }
        return path.toString();
    }

    /**
     * The path {@code name} stands for: made from its bytes ({@link #exact()}), else with
     * {@link Path#of(String, String...)}.
     *
     * @throws java.nio.file.InvalidPathException if the name holds a NUL, or (not exact) a character
     *     the JDK's file name encoding lacks
     */
    public static Path path(String name) {
        if (FROM_BYTES == null) {
            return Path.of(name);
        }
        byte[] b = encode(name);
        for (byte x : b) {
            if (x == 0) {
                throw new java.nio.file.InvalidPathException(printable(name), "Nul character not allowed");
            }
        }
        try {
            return (Path) FROM_BYTES.newInstance(FILE_SYSTEM, normalise(b));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The target of a symbolic link, {@code target} (a name), as the path to create the link with: its
     * bytes exactly as {@code readlink} returned them at backup, a doubled or trailing slash included
     * ({@link #exact()}), else {@link Path#of(String, String...)}.
     */
    public static Path linkTarget(String target) {
        if (FROM_BYTES == null) {
            return Path.of(target);
        }
        path(target); // refuses a NUL
        try {
            return (Path) FROM_BYTES.newInstance(FILE_SYSTEM, encode(target));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code relative} (a name, {@code /}-separated) resolved against {@code base}, byte for byte. */
    public static Path resolve(Path base, String relative) {
        return FROM_BYTES == null || !UNIX_PATH.isInstance(base)
                ? base.resolve(relative)
                : base.resolve(path(relative));
    }

    /**
     * The name of {@code file} relative to {@code dir} (an ancestor of it), {@code /}-separated: from
     * their bytes when {@link #exact()}.
     */
    public static String relative(Path dir, Path file) {
        if (AS_BYTES != null && UNIX_PATH.isInstance(dir) && UNIX_PATH.isInstance(file)) {
            byte[] d = bytes(dir);
            byte[] f = bytes(file);
            int skip = d.length == 1 && d[0] == '/' ? 1 : d.length + 1;
            if (f.length > skip && startsWith(f, d) && (d.length == 1 || f[d.length] == '/')) {
                return decode(java.util.Arrays.copyOfRange(f, skip, f.length));
            }
            return decode(bytes(dir.relativize(file)));
        }
        Path rel = dir.relativize(file);
        StringBuilder sb = new StringBuilder();
        for (Path part : rel) {
            if (sb.length() > 0) {
                sb.append('/');
            }
            sb.append(part);
        }
        return sb.toString();
    }

    /**
     * {@code name} as one line a terminal shows as it is: each control character as a Java escape of
     * its four hex digits (BEL as {@code \}{@code u0007}), each byte that is not valid UTF-8 as
     * {@code \x} and its two upper-case hex digits (0xFF as {@code \}{@code xFF}), and a backslash as
     * two, so that no two names print alike (the four characters {@code \xFF} of a name print as
     * {@code \\xFF}). {@link #fromPrintable} reads it back.
     */
    public static String printable(@Nullable String name) {
        if (name == null) {
            return "null";
        }
        StringBuilder sb = null;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean escapedByte =
                    c >= '\uDC80' && c <= '\uDCFF' && (i == 0 || !Character.isHighSurrogate(name.charAt(i - 1)));
            if (Character.isISOControl(c) || escapedByte || c == '\\') {
                if (sb == null) {
                    sb = new StringBuilder(name.length() + 8).append(name, 0, i);
                }
                sb.append(
                        c == '\\'
                                ? "\\\\"
                                : escapedByte
                                        ? String.format("\\x%02X", c - ESCAPE_BASE)
                                        : String.format("\\u%04X", (int) c));
            } else if (sb != null) {
                sb.append(c);
            }
        }
        return sb == null ? name : sb.toString();
    }

    /**
     * The name {@link #printable} printed as {@code printed}, or null when {@code printed} holds no
     * escape or one {@link #printable} does not write (two backslashes, {@code \x} with two hex
     * digits, a backslash, {@code u} and four hex digits): what a user copies from a listing back onto the command line.
     */
    public static @Nullable String fromPrintable(String printed) {
        if (printed.indexOf('\\') < 0) {
            return null;
        }
        StringBuilder sb = new StringBuilder(printed.length());
        for (int i = 0; i < printed.length(); i++) {
            char c = printed.charAt(i);
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            if (i + 1 >= printed.length()) {
                return null;
            }
            char kind = printed.charAt(i + 1);
            int digits = kind == 'x' ? 2 : kind == 'u' ? 4 : 0;
            if (kind == '\\') {
                sb.append('\\');
                i++;
            } else if (digits > 0 && i + 2 + digits <= printed.length()) {
                int value;
                try {
                    value = Integer.parseInt(printed.substring(i + 2, i + 2 + digits), 16);
                } catch (NumberFormatException e) {
                    return null;
                }
                sb.append(kind == 'x' ? (char) (ESCAPE_BASE + value) : (char) value);
                i += 1 + digits;
            } else {
                return null;
            }
        }
        return sb.toString();
    }

    /**
     * The command line's arguments as names (their bytes, see the class comment): the JVM decodes them
     * with the locale's character set, which loses every byte that is not ASCII when there is no
     * {@code LANG} (cron, systemd). On Linux, when names are {@link #exact()}, they are read again from
     * {@code /proc/self/cmdline}, whose last entries are {@code args}' bytes; they replace {@code args}
     * only when each decodes, as the JVM decoded it, to the same string (a byte it could not decode
     * counted as any), else {@code args} is returned as it is.
     */
    public static String[] arguments(String[] args) {
        if (!exact() || args.length == 0) {
            return args;
        }
        byte[] cmdline;
        try {
            cmdline = java.nio.file.Files.readAllBytes(Path.of("/proc/self/cmdline"));
        } catch (java.io.IOException | RuntimeException e) {
            return args;
        }
        java.util.List<byte[]> parts = new java.util.ArrayList<>();
        int start = 0;
        for (int i = 0; i < cmdline.length; i++) {
            if (cmdline[i] == 0) {
                parts.add(java.util.Arrays.copyOfRange(cmdline, start, i));
                start = i + 1;
            }
        }
        if (parts.size() < args.length) {
            return args;
        }
        java.nio.charset.Charset jnu = jnuCharset();
        String[] exact = new String[args.length];
        boolean changed = false;
        for (int i = 0; i < args.length; i++) {
            byte[] raw = parts.get(parts.size() - args.length + i);
            if (!sameUpToUndecodable(new String(raw, jnu), args[i])) {
                return args;
            }
            exact[i] = decode(raw);
            changed |= !exact[i].equals(args[i]);
        }
        return changed ? exact : args;
    }

    /**
     * {@code env} (the JVM's environment) with the value of each variable that holds bytes the JVM could
     * not decode read again from {@code /proc/self/environ} as {@link #decode} makes names of bytes, so
     * that {@link #path} gives those bytes back: a directory named with a byte that is not UTF-8 in
     * {@code $BALLAST_REPOSITORY} was a new directory named with U+FFFD (a tester's store went to
     * {@code /tmp/hf-u\xEF\xBF\xBD/st}). As {@link #arguments}: where the bytes cannot be read, or
     * the names paths are made from cannot be bytes, {@code env} as it is. Unmodifiable.
     */
    public static java.util.Map<String, String> environment(java.util.Map<String, String> env) {
        if (!exact() || env.values().stream().noneMatch(v -> v.indexOf('\uFFFD') >= 0 || v.indexOf('?') >= 0)) {
            return env;
        }
        byte[] environ;
        try {
            environ = java.nio.file.Files.readAllBytes(Path.of("/proc/self/environ"));
        } catch (java.io.IOException | RuntimeException e) {
            return env;
        }
        return environment(env, environ, jnuCharset());
    }

    /** {@link #environment(java.util.Map)} with the bytes of {@code /proc/self/environ} given, for tests. */
    static java.util.Map<String, String> environment(
            java.util.Map<String, String> env, byte[] environ, java.nio.charset.Charset jnu) {
        java.util.Map<String, String> out = new java.util.HashMap<>(env);
        int start = 0;
        for (int i = 0; i <= environ.length; i++) {
            if (i < environ.length && environ[i] != 0) {
                continue;
            }
            int eq = -1;
            for (int j = start; j < i; j++) {
                if (environ[j] == '=') {
                    eq = j;
                    break;
                }
            }
            if (eq > start) {
                String name = new String(environ, start, eq - start, java.nio.charset.StandardCharsets.ISO_8859_1);
                byte[] raw = java.util.Arrays.copyOfRange(environ, eq + 1, i);
                String seen = env.get(name);
                if (seen != null && sameUpToUndecodable(new String(raw, jnu), seen)) {
                    out.put(name, decode(raw));
                }
            }
            start = i + 1;
        }
        return java.util.Collections.unmodifiableMap(out);
    }

    /** Equal but where either has U+FFFD or '?' (how the JVM shows a byte its encoding cannot decode). */
    private static boolean sameUpToUndecodable(String a, String b) {
        if (a.length() != b.length()) {
            return false;
        }
        for (int i = 0; i < a.length(); i++) {
            char x = a.charAt(i);
            char y = b.charAt(i);
            boolean wildcard = x == '\uFFFD' || x == '?' || y == '\uFFFD' || y == '?';
            if (x != y && !wildcard) {
                return false;
            }
        }
        return true;
    }

    private static boolean startsWith(byte[] a, byte[] prefix) {
        return a.length >= prefix.length && java.util.Arrays.equals(a, 0, prefix.length, prefix, 0, prefix.length);
    }

    /** Without empty segments or a trailing slash, as UnixPath's own parsing leaves a path. */
    private static byte[] normalise(byte[] b) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(b.length);
        byte prev = 0;
        for (byte x : b) {
            if (x == '/' && prev == '/') {
                continue;
            }
            out.write(x);
            prev = x;
        }
        byte[] r = out.toByteArray();
        return r.length > 1 && r[r.length - 1] == '/' ? java.util.Arrays.copyOf(r, r.length - 1) : r;
    }

    private static java.nio.charset.Charset jnuCharset() {
        try {
            return java.nio.charset.Charset.forName(System.getProperty("sun.jnu.encoding", "UTF-8"));
        } catch (RuntimeException e) {
            return StandardCharsets.UTF_8;
        }
    }

    /** Whether {@code bytes} are valid UTF-8 (for tests). */
    public static boolean validUtf8(byte[] bytes) {
        try {
            StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }
}
