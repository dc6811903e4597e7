/**
 * JMH benchmarks and side-by-side peer runs (Failsafe, resilience4j, the plain JDK client) for the
 * cost of {@link dev.ballast.http.ResilientHttpClient}'s wrapping, its open-circuit rejections and
 * its loopback throughput.
 */
@NullMarked
package dev.ballast.bench;

import org.jspecify.annotations.NullMarked;
