/**
 * Retention: which manifest versions a policy keeps ({@link dev.ballast.backup.retention.RetentionPolicy}, API),
 * what forget removes, and pruning what no manifest references.
 * Engine room: the rest is not API.
 */
@NullMarked
package dev.ballast.backup.retention;

import org.jspecify.annotations.NullMarked;
