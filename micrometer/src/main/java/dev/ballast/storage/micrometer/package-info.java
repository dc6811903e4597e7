/**
 * Micrometer meters of {@link dev.ballast.storage.StorageFacade}:
 * {@link dev.ballast.storage.micrometer.StorageMetrics}, the facade's
 * {@link dev.ballast.storage.StorageListener} and a Micrometer {@code MeterBinder}, and
 * {@link dev.ballast.storage.micrometer.StorageMetricNames}, the names and tags of every meter it
 * publishes. Needs {@code ballast-storage-adapter}, an optional dependency of this module.
 *
 * <p>A null argument where the signature allows none throws {@link java.lang.NullPointerException}
 * naming the parameter.
 */
@NullMarked
package dev.ballast.storage.micrometer;

import org.jspecify.annotations.NullMarked;
