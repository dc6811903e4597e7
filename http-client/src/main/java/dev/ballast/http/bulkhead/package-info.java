/**
 * The bulkhead: a per-dependency limit on concurrent calls, so that one slow dependency cannot take
 * every thread and connection of the client. {@link dev.ballast.http.bulkhead.Bulkhead} is a fair
 * (FIFO) semaphore whose asynchronous waits hold no thread.
 *
 * <p>Null rule: no method in this package accepts or returns {@code null}; a {@code null} argument
 * throws {@link java.lang.NullPointerException} naming the parameter.
 */
package dev.ballast.http.bulkhead;
