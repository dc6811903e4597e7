/**
 * The call pipeline behind {@link dev.ballast.http.ResilientHttpClient}: Failsafe wiring, per-call
 * state, retry decisions, per-dependency isolation, request copying and body replayability, the
 * decision log and the reflective bridge to the JDK 21 lifecycle methods. Not an API: nothing here
 * is supported for use outside this module and it may change in any release. Parameters and return
 * values are non-null unless documented otherwise.
 */
package dev.ballast.http.internal;
