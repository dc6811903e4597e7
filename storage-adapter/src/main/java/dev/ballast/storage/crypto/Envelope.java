package dev.ballast.storage.crypto;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The envelope at the start of every object {@link EncryptedObjectStore} writes, before Tink's stream
 * ({@link StreamFormat}); its bytes are part of the stream's associated data, so none can be changed
 * without failing every segment:
 *
 * <pre>
 * magic      4 bytes  "BCE1" (Ballast client-side encryption, format 1)
 * scheme     1 byte length + ASCII   how the data key is wrapped ("AES-KW", "AWS-KMS")
 * key ID     2 bytes length + UTF-8  the wrapping key's ID
 * wrapped    2 bytes length + bytes  the wrapped data key
 * segment    4 bytes                 the stream's ciphertext segment size
 * </pre>
 *
 * All lengths are big-endian.
 *
 * @param scheme the wrapping scheme
 * @param keyId the wrapping key's ID
 * @param wrappedKey the wrapped data key
 * @param segmentSize the ciphertext segment size of the stream that follows
 */
record Envelope(String scheme, String keyId, byte[] wrappedKey, int segmentSize) {
    static final byte[] MAGIC = {'B', 'C', 'E', '1'};
    /** The longest envelope read: a larger one is damage, not an envelope. */
    static final int MAX_BYTES = 4 + 1 + 255 + 2 + 65_535 + 2 + 65_535 + 4;

    static void checkKeyId(String keyId) {
        int bytes = keyId.getBytes(StandardCharsets.UTF_8).length;
        if (bytes < 1 || bytes > 1000) {
            throw new IllegalArgumentException(
                    "keyId must be 1 to 1000 UTF-8 bytes but was " + bytes + " ('" + keyId + "')");
        }
    }

    /** The envelope's bytes. */
    byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + wrappedKey.length);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.write(MAGIC);
            byte[] s = scheme.getBytes(StandardCharsets.US_ASCII);
            out.writeByte(s.length);
            out.write(s);
            byte[] id = keyId.getBytes(StandardCharsets.UTF_8);
            out.writeShort(id.length);
            out.write(id);
            out.writeShort(wrappedKey.length);
            out.write(wrappedKey);
            out.writeInt(segmentSize);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /**
     * Reads an envelope from the start of {@code in}.
     *
     * @return the envelope and its bytes
     * @throws NotAnEnvelope if the bytes are not an envelope (no magic, an impossible field)
     * @throws IOException if {@code in} fails
     */
    static Read read(InputStream in) throws IOException {
        DataInputStream data = new DataInputStream(in);
        ByteArrayOutputStream raw = new ByteArrayOutputStream(128);
        try {
            byte[] magic = data.readNBytes(4);
            raw.write(magic);
            if (!java.util.Arrays.equals(magic, MAGIC)) {
                throw new NotAnEnvelope("it does not start with a Ballast client-side encryption envelope");
            }
            int schemeLength = data.readUnsignedByte();
            byte[] scheme = data.readNBytes(schemeLength);
            int idLength = data.readUnsignedShort();
            byte[] id = data.readNBytes(idLength);
            int wrappedLength = data.readUnsignedShort();
            byte[] wrapped = data.readNBytes(wrappedLength);
            int segmentSize = data.readInt();
            if (scheme.length != schemeLength || id.length != idLength || wrapped.length != wrappedLength) {
                throw new EOFException();
            }
            if (segmentSize < StreamFormat.MIN_SEGMENT_SIZE) {
                throw new NotAnEnvelope("its envelope records a segment size of " + segmentSize + " bytes");
            }
            Envelope envelope = new Envelope(
                    new String(scheme, StandardCharsets.US_ASCII),
                    new String(id, StandardCharsets.UTF_8),
                    wrapped,
                    segmentSize);
            return new Read(envelope, envelope.encode());
        } catch (EOFException e) {
            throw new NotAnEnvelope("it ends inside its envelope");
        }
    }

    /** An envelope and the bytes it was read from. */
    record Read(Envelope envelope, byte[] bytes) {}

    /** The bytes read are not an envelope. */
    static final class NotAnEnvelope extends IOException {
        private static final long serialVersionUID = 1L;

        NotAnEnvelope(String why) {
            super(why);
        }
    }
}
