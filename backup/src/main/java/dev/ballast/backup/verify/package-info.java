/**
 * Verifying stored contents against their recorded SHA-256, all of them or a subset ({@code --read-data-subset}).
 * Engine room, not API.
 */
@NullMarked
package dev.ballast.backup.verify;

import org.jspecify.annotations.NullMarked;
