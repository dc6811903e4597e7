package dev.ballast.backup.keys;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Objects;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * One key file, {@code keys/<SHA-256 of its bytes, 64 hex>}: plain UTF-8 JSON
 * {@code {"created":"2026-12-02T03:00:00Z","host":"h","username":"u","kdf":"argon2id","memoryKiB":65536,
 * "iterations":1,"parallelism":4,"salt":"<base64 16 B>","data":"<base64>"}}. {@code data} is
 * {@link MasterKey#encoded()} (72 bytes) sealed with the password's key (Argon2id of the password and
 * {@code salt} with the recorded parameters, {@link KdfParameters#derive}): AES-256-GCM with a random
 * 12-byte nonce and the associated data {@value #AAD}, stored as {@code nonce (12) || ciphertext (72)
 * || tag (16)}, 100 bytes. The tag is what tells a wrong password from the right one.
 *
 * <p>The JSON carries no secret: host, user name and date say who made the key, as restic's key files
 * do. Immutable; the byte arrays are not copied (package-private use only).
 *
 * @param created when the key was added
 * @param host the host name of the machine it was added on
 * @param username the user who added it
 * @param kdf the Argon2id parameters of its password
 * @param salt the 16-byte salt of its password
 * @param data the sealed master key
 */
record KeyFile(Instant created, String host, String username, KdfParameters kdf, byte[] salt, byte[] data) {
    /** The associated data of the sealed master key in {@code data}. */
    static final String AAD = "ballast key v1";

    private static final JsonFactory JSON = new JsonFactory();
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int NONCE_BYTES = 12;

    KeyFile {
        Objects.requireNonNull(created, "created");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(username, "username");
        Objects.requireNonNull(kdf, "kdf");
        Objects.requireNonNull(salt, "salt");
        Objects.requireNonNull(data, "data");
    }

    /** A key file sealing {@code master} under {@code passwordKey} (32 bytes, from {@code kdf} and {@code salt}). */
    static KeyFile seal(
            MasterKey master,
            byte[] passwordKey,
            KdfParameters kdf,
            byte[] salt,
            Instant created,
            String host,
            String username) {
        byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        byte[] plain = master.encoded();
        try {
            Cipher gcm = cipher(Cipher.ENCRYPT_MODE, passwordKey, nonce);
            byte[] sealed = gcm.doFinal(plain);
            byte[] data = new byte[NONCE_BYTES + sealed.length];
            System.arraycopy(nonce, 0, data, 0, NONCE_BYTES);
            System.arraycopy(sealed, 0, data, NONCE_BYTES, sealed.length);
            return new KeyFile(created, host, username, kdf, salt, data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-256-GCM failed to seal a key file: " + e.getMessage(), e);
        } finally {
            Arrays.fill(plain, (byte) 0);
        }
    }

    /**
     * The master key in {@code data}, or null when {@code passwordKey} does not open it (a wrong
     * password, or a changed {@code data}: GCM cannot tell the two apart).
     */
    @Nullable
    MasterKey open(byte[] passwordKey) {
        if (data.length < NONCE_BYTES + 16) {
            return null;
        }
        byte[] plain = null;
        try {
            Cipher gcm = cipher(Cipher.DECRYPT_MODE, passwordKey, Arrays.copyOf(data, NONCE_BYTES));
            plain = gcm.doFinal(data, NONCE_BYTES, data.length - NONCE_BYTES);
            return MasterKey.decode(plain);
        } catch (AEADBadTagException e) {
            return null;
        } catch (IllegalArgumentException e) {
            // authentic but not 72 bytes: sealed by a writer of another layout
            return null;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-256-GCM failed to open a key file: " + e.getMessage(), e);
        } finally {
            if (plain != null) {
                Arrays.fill(plain, (byte) 0);
            }
        }
    }

    private static Cipher cipher(int mode, byte[] key, byte[] nonce) throws GeneralSecurityException {
        Cipher gcm = Cipher.getInstance("AES/GCM/NoPadding");
        gcm.init(mode, new SecretKeySpec(key, "AES"), new GCMParameterSpec(128, nonce));
        gcm.updateAAD(AAD.getBytes(StandardCharsets.US_ASCII));
        return gcm;
    }

    /** The JSON bytes stored as the key file. */
    byte[] toJson() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("created", created.toString());
            g.writeStringField("host", host);
            g.writeStringField("username", username);
            g.writeStringField("kdf", KdfParameters.ARGON2ID);
            g.writeNumberField("memoryKiB", kdf.memoryKiB());
            g.writeNumberField("iterations", kdf.iterations());
            g.writeNumberField("parallelism", kdf.parallelism());
            g.writeStringField("salt", Base64.getEncoder().encodeToString(salt));
            g.writeStringField("data", Base64.getEncoder().encodeToString(data));
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /**
     * The key file of {@code json}. Unknown fields are skipped (a later version may add some).
     *
     * @throws IllegalArgumentException with a clause saying what is wrong (not JSON, a field missing
     *     or of the wrong type, a KDF other than argon2id, parameters out of range)
     */
    static KeyFile parse(byte[] json) {
        String created = null;
        String host = "";
        String username = "";
        String kdf = null;
        Integer memory = null;
        Integer iterations = null;
        Integer parallelism = null;
        String salt = null;
        String data = null;
        try (JsonParser p = JSON.createParser(json)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IllegalArgumentException("it is not a JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                switch (field) {
                    case "created" -> created = text(p, value, field);
                    case "host" -> host = text(p, value, field);
                    case "username" -> username = text(p, value, field);
                    case "kdf" -> kdf = text(p, value, field);
                    case "memoryKiB" -> memory = number(p, value, field);
                    case "iterations" -> iterations = number(p, value, field);
                    case "parallelism" -> parallelism = number(p, value, field);
                    case "salt" -> salt = text(p, value, field);
                    case "data" -> data = text(p, value, field);
                    default -> p.skipChildren();
                }
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("it is not valid JSON ("
                    + (e instanceof com.fasterxml.jackson.core.JsonProcessingException j
                            ? j.getOriginalMessage()
                            : e.getMessage())
                    + ")");
        }
        if (kdf == null || !kdf.equals(KdfParameters.ARGON2ID)) {
            throw new IllegalArgumentException(
                    kdf == null ? "it has no \"kdf\"" : "its KDF is '" + kdf + "', not argon2id");
        }
        if (created == null
                || memory == null
                || iterations == null
                || parallelism == null
                || salt == null
                || data == null) {
            throw new IllegalArgumentException(
                    "it lacks one of created, memoryKiB, iterations, parallelism, salt" + " and data");
        }
        byte[] saltBytes;
        byte[] dataBytes;
        try {
            saltBytes = Base64.getDecoder().decode(salt);
            dataBytes = Base64.getDecoder().decode(data);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("its salt or data is not base64");
        }
        if (saltBytes.length < 8) {
            throw new IllegalArgumentException("its salt is " + saltBytes.length + " bytes, fewer than Argon2's 8");
        }
        try {
            return new KeyFile(
                    Instant.parse(created),
                    host,
                    username,
                    new KdfParameters(memory, iterations, parallelism),
                    saltBytes,
                    dataBytes);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("its \"created\" is not an ISO-8601 instant");
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("its KDF parameters are refused (" + e.getMessage() + ")");
        }
    }

    private static String text(JsonParser p, JsonToken value, String field) throws IOException {
        if (value != JsonToken.VALUE_STRING) {
            throw new IllegalArgumentException("its \"" + field + "\" is not a string");
        }
        return p.getText();
    }

    private static int number(JsonParser p, JsonToken value, String field) throws IOException {
        if (value != JsonToken.VALUE_NUMBER_INT) {
            throw new IllegalArgumentException("its \"" + field + "\" is not an integer");
        }
        long v = p.getLongValue();
        if (v < 0 || v > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("its \"" + field + "\" is out of range");
        }
        return (int) v;
    }

    /** The object key of a key file of {@code bytes}: {@code keys/} and their SHA-256 in hex. */
    static String objectKey(byte[] bytes) {
        return KeyFiles.KEYS_PREFIX + sha256Hex(bytes);
    }

    static String sha256Hex(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }
}
