/**
 * The last-known-good fallback (RFC 5861 {@code stale-if-error}, applied per object):
 * {@link dev.ballast.storage.cache.LastKnownGoodStore} decorates an
 * {@link dev.ballast.storage.object.ObjectStore}, keeps verified copies of small objects read live,
 * and serves them marked {@code Source.CACHE}, with their age and the reason, while the store is
 * unavailable or has not answered within the read deadline;
 * {@link dev.ballast.storage.cache.LastKnownGoodConfig} bounds entries, bytes, staleness and that
 * deadline.
 *
 * <p>A null argument where the signature allows none throws {@link java.lang.NullPointerException}
 * naming the parameter.
 */
@NullMarked
package dev.ballast.storage.cache;

import org.jspecify.annotations.NullMarked;
