/**
 * Micrometer meters of {@link dev.ballast.http.ResilientHttpClient}:
 * {@link dev.ballast.http.micrometer.HttpClientMetrics}, the client's listener and a Micrometer
 * {@code MeterBinder}, and {@link dev.ballast.http.micrometer.MetricNames}, the names and tags of
 * every meter it publishes. This module ({@code ballast-micrometer}, module name
 * {@code dev.ballast.http.micrometer}) is the only one that depends on Micrometer.
 *
 * <p>A null argument where the signature allows none throws {@link java.lang.NullPointerException}
 * naming the parameter.
 */
@NullMarked
package dev.ballast.http.micrometer;

import org.jspecify.annotations.NullMarked;
