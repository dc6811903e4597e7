/**
 * Retention: which manifest versions a policy keeps, and pruning what no manifest references.
 * Engine room, not API.
 */
@NullMarked
package dev.ballast.backup.retention;

import org.jspecify.annotations.NullMarked;
