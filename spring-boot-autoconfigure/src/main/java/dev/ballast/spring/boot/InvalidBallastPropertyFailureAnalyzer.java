package dev.ballast.spring.boot;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports an {@link InvalidBallastPropertyException} that stopped start-up as Spring Boot reports a
 * property it could not bind: the property, the builder's message, and what to change.
 */
final class InvalidBallastPropertyFailureAnalyzer extends AbstractFailureAnalyzer<InvalidBallastPropertyException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidBallastPropertyException cause) {
        return new FailureAnalysis(
                "Property '" + cause.property() + "' has a value Ballast does not accept: " + cause.reason() + ".",
                "Update '" + cause.property() + "' in the application's configuration (docs/spring-boot.md"
                        + " lists every ballast.* property with its range).",
                cause);
    }
}
