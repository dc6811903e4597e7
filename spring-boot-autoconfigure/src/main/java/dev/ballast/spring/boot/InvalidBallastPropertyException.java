package dev.ballast.spring.boot;

/**
 * A {@code ballast.*} property whose value the Ballast builders refuse. Stops start-up; Spring Boot's
 * failure report names the property and quotes the builder's one-sentence message.
 */
public final class InvalidBallastPropertyException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String property;
    private final String reason;

    /**
     * Creates the exception.
     *
     * @param property the property's full name, e.g. {@code ballast.http.retry.max-attempts}
     * @param reason the builder's message, e.g. {@code maxAttempts must be >= 1 but was 0}
     * @param cause the builder's exception
     */
    public InvalidBallastPropertyException(String property, String reason, Throwable cause) {
        super("Invalid value of property '" + property + "': " + reason, cause);
        this.property = property;
        this.reason = reason;
    }

    /**
     * Returns the full name of the property at fault.
     *
     * @return the property name, as written in {@code application.yml} (kebab case)
     */
    public String property() {
        return property;
    }

    /**
     * Returns what the builder said about the value.
     *
     * @return the builder's message
     */
    public String reason() {
        return reason;
    }
}
