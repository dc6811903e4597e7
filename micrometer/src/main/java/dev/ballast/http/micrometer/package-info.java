/**
 * Micrometer meters of {@link dev.ballast.http.ResilientHttpClient}:
 * {@link dev.ballast.http.micrometer.HttpClientMetrics}, the client's listener and a Micrometer
 * {@code MeterBinder}, and {@link dev.ballast.http.micrometer.MetricNames}, the names and tags of
 * every meter it publishes. This module ({@code ballast-micrometer}, module name
 * {@code dev.ballast.http.micrometer}) is the only one that depends on Micrometer.
 *
 * <p>Null rule: no parameter of a public method in this package accepts {@code null}; passing one
 * throws {@link java.lang.NullPointerException} whose message names the parameter. No public method
 * returns {@code null}.
 */
package dev.ballast.http.micrometer;
