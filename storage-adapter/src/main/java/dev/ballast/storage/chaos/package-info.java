/**
 * Chaos in production for object stores, off by default:
 * {@link dev.ballast.storage.chaos.ChaosObjectStore} injects a
 * {@link dev.ballast.http.chaos.ChaosPolicy}'s faults as the store's own failures.
 */
@NullMarked
package dev.ballast.storage.chaos;

import org.jspecify.annotations.NullMarked;
