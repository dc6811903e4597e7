package dev.ballast.http.opentelemetry;

/**
 * Who makes the HTTP client span of each attempt: {@link BallastTracing} or the OpenTelemetry Java
 * agent, which instruments the JDK's own {@code HttpClient} implementation (never
 * {@code ResilientHttpClient}, which is not the JDK's). Either way there is one client span per
 * attempt, under the call's span.
 */
public enum AttemptSpans {

    /**
     * {@link #AGENT} when the OpenTelemetry Java agent is running with its JDK HTTP client
     * instrumentation enabled (the agent's bootstrap class
     * {@code io.opentelemetry.javaagent.bootstrap.AgentInitializer} is loaded by the bootstrap class
     * loader, and neither {@code otel.instrumentation.java-http-client.enabled} nor
     * {@code OTEL_INSTRUMENTATION_JAVA_HTTP_CLIENT_ENABLED} is {@code false}); {@link #BALLAST}
     * otherwise. The default. It assumes the client wraps the JDK's own client, as it does unless
     * {@code ResilientHttpClient.Builder.delegate(...)} gave it another.
     */
    AUTO,
    /**
     * Ballast makes a client span per attempt and injects its trace context into the attempt's
     * request headers through the configured propagators.
     */
    BALLAST,
    /**
     * Ballast makes no attempt spans and injects nothing: the agent's instrumentation of the JDK client
     * makes them (and injects the headers), under the call's span, which Ballast makes current on the
     * thread that hands each attempt to the JDK client.
     */
    AGENT
}
