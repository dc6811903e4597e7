/**
 * The bulkhead's configuration: a per-dependency limit on concurrent calls, so that one slow
 * dependency cannot take every thread and connection of the client. The bulkhead itself (not API) is
 * a fair (FIFO) semaphore whose asynchronous waits hold no thread.
 *
 * <p>Null rule: no method in this package accepts or returns {@code null}; a {@code null} argument
 * throws {@link java.lang.NullPointerException} naming the parameter.
 */
package dev.ballast.http.bulkhead;
