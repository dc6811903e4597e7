package dev.ballast.storage.block;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Validation of block volume names. A name is one path segment below the volume root, checked as a
 * string before any file system call, so a rejected name never touches the disk.
 *
 * <p>Accepted: 1 to {@value #MAX_NAME_BYTES} bytes of well-formed UTF-8; not {@code .} or
 * {@code ..}; no {@code /} or {@code \} (so no absolute paths and no nesting); no control
 * characters (C0, DEL, C1); none of the characters Windows reserves in file names
 * ({@code < > : " | ? *}); no leading or trailing space and no trailing dot (Windows strips them,
 * so two different names would map to one file). Names are otherwise used byte-exactly.
 */
public final class VolumeNames {

    /** Longest accepted name in UTF-8 bytes, the usual {@code NAME_MAX} of Linux, macOS and NTFS. */
    public static final int MAX_NAME_BYTES = 255;

    private static final String WINDOWS_RESERVED = "<>:\"|?*";

    private VolumeNames() {}

    /**
     * Checks {@code name} and returns it unchanged.
     *
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException naming the rule the name breaks
     */
    public static String validate(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty()) {
            throw invalid(name, "it is empty");
        }
        if (name.equals(".") || name.equals("..")) {
            throw invalid(name, "'.' and '..' refer to directories");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == '/' || c == '\\') {
                throw invalid(
                        name,
                        "it contains a path separator at index " + i + " (absolute paths and nesting are refused)");
            }
            if (Character.isISOControl(c)) {
                throw invalid(name, String.format("it contains the control character U+%04X at index %d", (int) c, i));
            }
            if (WINDOWS_RESERVED.indexOf(c) >= 0) {
                throw invalid(name, "it contains '" + c + "', which Windows reserves in file names");
            }
        }
        if (name.startsWith(" ") || name.endsWith(" ") || name.endsWith(".")) {
            throw invalid(name, "it starts or ends with a space or ends with a dot");
        }
        int bytes = utf8Length(name);
        if (bytes > MAX_NAME_BYTES) {
            throw invalid(name, "it is " + bytes + " UTF-8 bytes long; at most " + MAX_NAME_BYTES + " are accepted");
        }
        return name;
    }

    private static int utf8Length(String name) {
        try {
            ByteBuffer encoded = StandardCharsets.UTF_8
                    .newEncoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .encode(CharBuffer.wrap(name));
            return encoded.remaining();
        } catch (CharacterCodingException e) {
            throw invalid(name, "it is not well-formed Unicode (unpaired surrogate)");
        }
    }

    private static IllegalArgumentException invalid(String name, String why) {
        return new IllegalArgumentException("Invalid block volume name '" + printable(name) + "': " + why
                + "; a name is one path segment of 1 to " + MAX_NAME_BYTES + " UTF-8 bytes without '/', '\\', "
                + "control characters or any of <>:\"|?*");
    }

    private static String printable(String name) {
        StringBuilder out = new StringBuilder();
        int shown = Math.min(name.length(), 80);
        for (int i = 0; i < shown; i++) {
            char c = name.charAt(i);
            out.append(Character.isISOControl(c) ? String.format("\\u%04x", (int) c) : String.valueOf(c));
        }
        return name.length() > shown ? out + "..." : out.toString();
    }
}
