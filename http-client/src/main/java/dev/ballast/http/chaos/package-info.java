/**
 * Chaos in production, off by default: {@link dev.ballast.http.chaos.ChaosPolicy} (an injection
 * rate, the faults to inject, and a flag read on every call) and
 * {@link dev.ballast.http.chaos.ChaosHttpClient}, which injects them under
 * {@link dev.ballast.http.ResilientHttpClient} so that game days exercise the real retries, budgets
 * and breakers without a proxy, as Polly's chaos strategies do. The storage facade takes the same
 * policy ({@code StorageFacade.Builder.chaos}). For tests, {@code ballast-test}'s fault injection
 * scripts faults exactly; this is for a running service.
 */
@NullMarked
package dev.ballast.http.chaos;

import org.jspecify.annotations.NullMarked;
