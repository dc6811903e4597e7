/**
 * The bulkhead's configuration: a per-dependency limit on concurrent calls, so that one slow
 * dependency cannot take every thread and connection of the client. The bulkhead itself (not API) is
 * a fair (FIFO) semaphore whose asynchronous waits hold no thread.
 *
 * <p>A null argument where the signature allows none throws {@link java.lang.NullPointerException}
 * naming the parameter.
 */
@NullMarked
package dev.ballast.http.bulkhead;

import org.jspecify.annotations.NullMarked;
