package dev.ballast.http.idempotency;

import java.util.Objects;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * Which requests carry an idempotency key, in which header, and how keys are made. Immutable and
 * thread-safe.
 *
 * <p>An idempotency key lets the server recognise a retry of a request it already processed, which
 * makes an ambiguous failure (read timeout, connection reset after send) of a POST or PATCH safe to
 * retry. The retry layer adds one key per logical call and sends the same value on every attempt; a
 * key the caller set is kept as it is.
 */
public final class IdempotencyKeyConfig {

    /** Which requests get a key. */
    public enum Policy {
        /** Every request, idempotent methods included. */
        ALWAYS,
        /** Requests whose method is not idempotent per RFC 9110 §9.2.2 (POST, PATCH, ...); the default. */
        NON_IDEMPOTENT_METHODS,
        /** No request; ambiguous failures of non-idempotent requests are then never retried. */
        NEVER
    }

    /** The default header name, {@value}, as in the IETF draft "The Idempotency-Key HTTP Header Field". */
    public static final String DEFAULT_HEADER = "Idempotency-Key";
    /** The default policy, {@link Policy#NON_IDEMPOTENT_METHODS}. */
    public static final Policy DEFAULT_POLICY = Policy.NON_IDEMPOTENT_METHODS;
    /** The default key generator: a random (version 4) UUID in its 36-character text form. */
    public static final Supplier<String> DEFAULT_GENERATOR =
            () -> UUID.randomUUID().toString();

    /** RFC 9110 §9.2.2: the methods whose intended effect is the same however often they are sent. */

    /** RFC 9110 §5.6.2 {@code tchar}, the characters of a header field name. */
    private static final String TOKEN_SYMBOLS = "!#$%&'*+-.^_`|~";

    private static final IdempotencyKeyConfig DEFAULTS = new Builder().build();
    private static final IdempotencyKeyConfig DISABLED =
            new Builder().policy(Policy.NEVER).build();

    private final Policy policy;
    private final String headerName;
    private final Supplier<String> generator;

    private IdempotencyKeyConfig(Builder builder) {
        this.policy = builder.policy;
        this.headerName = builder.headerName;
        this.generator = builder.generator;
    }

    /**
     * Returns the defaults: policy {@link Policy#NON_IDEMPOTENT_METHODS}, header
     * {@value #DEFAULT_HEADER}, random UUID keys.
     *
     * @return the default configuration
     */
    public static IdempotencyKeyConfig ofDefaults() {
        return DEFAULTS;
    }

    /**
     * Returns the configuration of no idempotency keys: no request gets one (policy
     * {@link Policy#NEVER}); a key the caller set is still kept and still makes its request safe to
     * retry. Ambiguous failures (read timeout, reset after send, 504) of non-idempotent requests
     * without a key of their own are then never retried. The same as
     * {@code builder().policy(Policy.NEVER).build()}.
     *
     * @return the disabled configuration
     */
    public static IdempotencyKeyConfig disabled() {
        return DISABLED;
    }

    /**
     * Tells whether any request gets a key.
     *
     * @return {@code false} only for policy {@link Policy#NEVER} ({@link #disabled()})
     */
    public boolean enabled() {
        return policy != Policy.NEVER;
    }

    /**
     * Returns a builder starting from the defaults.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Returns a builder starting from this configuration.
     *
     * @return a new builder
     */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /**
     * Returns which requests get a key. Default {@link Policy#NON_IDEMPOTENT_METHODS}.
     *
     * @return the policy
     */
    public Policy policy() {
        return policy;
    }

    /**
     * Returns the header that carries the key. Default {@value #DEFAULT_HEADER}.
     *
     * @return the header name; a valid RFC 9110 field name
     */
    public String headerName() {
        return headerName;
    }

    /**
     * Makes a new key for one logical call.
     *
     * @return a new key; never blank
     * @throws IllegalStateException if the configured generator returned {@code null} or a blank key
     */
    public String newKey() {
        String key = generator.get();
        if (key == null || key.isBlank()) {
            throw new IllegalStateException("idempotency key generator must return a non-blank key but returned "
                    + (key == null ? "null" : "'" + key + "'"));
        }
        return key;
    }

    /**
     * Tells whether a request with this method gets a key under {@link #policy()}.
     *
     * @param method the request method, for example {@code "POST"}
     * @return {@code true} if a key should be added (unless the request carries one already)
     * @throws NullPointerException if {@code method} is {@code null}
     */
    public boolean shouldAdd(String method) {
        Objects.requireNonNull(method, "method");
        return switch (policy) {
            case ALWAYS -> true;
            case NON_IDEMPOTENT_METHODS -> !isIdempotentMethod(method);
            case NEVER -> false;
        };
    }

    /**
     * Tells whether a method is idempotent per RFC 9110 §9.2.2: GET, HEAD, OPTIONS, TRACE, PUT and
     * DELETE. Method names are case-sensitive (RFC 9110 §9.1), so {@code "get"} is not idempotent.
     *
     * @param method the request method
     * @return {@code true} for the six idempotent methods
     * @throws NullPointerException if {@code method} is {@code null}
     */
    public static boolean isIdempotentMethod(String method) {
        Objects.requireNonNull(method, "method");
        // By length, then equals: no hash of the method's string, which a request often builds anew
        // (so its hash is not cached), on every call.
        return switch (method.length()) {
            case 3 -> method.equals("GET") || method.equals("PUT");
            case 4 -> method.equals("HEAD");
            case 5 -> method.equals("TRACE");
            case 6 -> method.equals("DELETE");
            case 7 -> method.equals("OPTIONS");
            default -> false;
        };
    }

    @Override
    public String toString() {
        return "IdempotencyKeyConfig[policy=" + policy + ", headerName=" + headerName + "]";
    }

    /** Builds {@link IdempotencyKeyConfig}. Not thread-safe; validated in {@link #build()}. */
    public static final class Builder {

        private Policy policy = DEFAULT_POLICY;
        private String headerName = DEFAULT_HEADER;
        private Supplier<String> generator = DEFAULT_GENERATOR;

        private Builder() {}

        private Builder(IdempotencyKeyConfig keys) {
            this.policy = keys.policy;
            this.headerName = keys.headerName;
            this.generator = keys.generator;
        }

        /**
         * Sets which requests get a key. Default {@link Policy#NON_IDEMPOTENT_METHODS}.
         *
         * @param policy the policy
         * @return this builder
         * @throws NullPointerException if {@code policy} is {@code null}
         */
        public Builder policy(Policy policy) {
            this.policy = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * Sets the header that carries the key. Default {@value IdempotencyKeyConfig#DEFAULT_HEADER}.
         *
         * @param headerName a field name per RFC 9110 §5.1 (checked by {@link #build()})
         * @return this builder
         * @throws NullPointerException if {@code headerName} is {@code null}
         */
        public Builder headerName(String headerName) {
            this.headerName = Objects.requireNonNull(headerName, "headerName");
            return this;
        }

        /**
         * Sets how keys are made. Default: random UUIDs. The supplier must be thread-safe and should
         * return keys unique across all clients of a dependency.
         *
         * @param generator the key generator
         * @return this builder
         * @throws NullPointerException if {@code generator} is {@code null}
         */
        public Builder generator(Supplier<String> generator) {
            this.generator = Objects.requireNonNull(generator, "generator");
            return this;
        }

        /**
         * Validates and builds the configuration.
         *
         * @return the configuration
         * @throws IllegalArgumentException if the header name is empty or holds a character other than
         *                                  an RFC 9110 §5.6.2 token character
         */
        public IdempotencyKeyConfig build() {
            if (headerName.isEmpty() || !headerName.chars().allMatch(Builder::isTokenChar)) {
                throw new IllegalArgumentException("headerName must be a non-empty RFC 9110 token "
                        + "(letters, digits and " + TOKEN_SYMBOLS + ") but was '" + headerName + "'");
            }
            return new IdempotencyKeyConfig(this);
        }

        private static boolean isTokenChar(int c) {
            return (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || TOKEN_SYMBOLS.indexOf(c) >= 0;
        }
    }
}
