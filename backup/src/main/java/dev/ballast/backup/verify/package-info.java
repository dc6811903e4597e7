/**
 * Verifying stored contents against their recorded SHA-256 (a subset with {@code --read-data-subset}).
 * Engine room, not API.
 */
@NullMarked
package dev.ballast.backup.verify;

import org.jspecify.annotations.NullMarked;
