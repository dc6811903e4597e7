/**
 * OpenTelemetry traces of a {@link dev.ballast.storage.StorageFacade}'s operations:
 * {@link dev.ballast.storage.opentelemetry.StorageTracing}, a {@link dev.ballast.storage.StorageListener}
 * that makes a span per object-store and block-volume operation, with degraded, unavailable and stale
 * reads, integrity failures and conditional-write refusals as span events. Only the OpenTelemetry API
 * is used; the SDK, exporters and sampling are the application's. Needs {@code ballast-storage-adapter}
 * on the class path (an optional dependency of this module).
 */
@NullMarked
package dev.ballast.storage.opentelemetry;

import org.jspecify.annotations.NullMarked;
