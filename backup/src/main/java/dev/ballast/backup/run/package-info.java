/**
 * Taking a backup: the run itself, its marker in the store (which a prune respects), what killed
 * runs left behind, and the check that a name's history stays one directory. Engine room, not API.
 */
@NullMarked
package dev.ballast.backup.run;

import org.jspecify.annotations.NullMarked;
