/**
 * Restoring a backup: selecting what to restore, conflicts with what is already there,
 * temporaries, directories and links. Engine room, not API.
 */
@NullMarked
package dev.ballast.backup.restore;

import org.jspecify.annotations.NullMarked;
