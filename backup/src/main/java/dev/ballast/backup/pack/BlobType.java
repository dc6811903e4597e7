package dev.ballast.backup.pack;

/**
 * What a blob holds; its code is the type byte of a pack header entry and the first byte of the
 * blob's associated data (docs/backup-format.md).
 */
public enum BlobType {
    /** A chunk of a file's content. Code 0, written {@code "data"} in index files. */
    DATA(0, "data"),
    /** A tree (directory listing or manifest part), should the engine store one as a blob. Code 1, {@code "tree"}. */
    TREE(1, "tree");

    private final byte code;
    private final String label;

    BlobType(int code, String label) {
        this.code = (byte) code;
        this.label = label;
    }

    /** The byte stored in pack headers. */
    public byte code() {
        return code;
    }

    /** The word stored in index files: {@code "data"} or {@code "tree"}. */
    public String label() {
        return label;
    }

    /**
     * The type of a pack header's type byte.
     *
     * @throws IllegalArgumentException if the byte is no type's code
     */
    public static BlobType ofCode(byte code) {
        for (BlobType t : values()) {
            if (t.code == code) {
                return t;
            }
        }
        throw new IllegalArgumentException("blob type byte " + (code & 0xFF) + " is not 0 (data) or 1 (tree)");
    }

    /**
     * The type of an index file's word.
     *
     * @throws IllegalArgumentException if the word is not {@code "data"} or {@code "tree"}
     */
    public static BlobType ofLabel(String label) {
        for (BlobType t : values()) {
            if (t.label.equals(label)) {
                return t;
            }
        }
        throw new IllegalArgumentException("blob type '" + label + "' is not data or tree");
    }
}
