/**
 * Ballast's test kit, for a service's tests (test scope): {@link dev.ballast.test.FakeTime} (a
 * settable {@link java.time.Clock} and {@link dev.ballast.http.Ticker}),
 * {@link dev.ballast.test.FakeObjectStore} (an in-memory store that passes the object store contract),
 * {@link dev.ballast.test.ObjectStoreContract} (that contract as an abstract JUnit 5 suite to run
 * against any store), {@link dev.ballast.test.FaultInjectingObjectStore} (faults around any store)
 * and {@link dev.ballast.test.FaultInjectingHttpClient} (faults under the resilient HTTP client).
 * See docs/testing.md.
 */
@NullMarked
package dev.ballast.test;

import org.jspecify.annotations.NullMarked;
