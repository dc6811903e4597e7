/**
 * OpenTelemetry traces of {@link dev.ballast.http.ResilientHttpClient}'s calls:
 * {@link dev.ballast.http.opentelemetry.BallastTracing}, a {@link dev.ballast.http.CallObserver} that
 * makes a span per logical call, its decisions as span events, and its attempts as HTTP client spans
 * (or leaves those to the OpenTelemetry Java agent, nested under the call's span). Only the
 * OpenTelemetry API is used; the SDK, exporters and sampling are the application's.
 */
@NullMarked
package dev.ballast.http.opentelemetry;

import org.jspecify.annotations.NullMarked;
