/**
 * Manifests (snapshots): the JSON manifest of each backup run, its tree of directories and links,
 * selecting a manifest version, and the records of damaged and lost versions. Engine room, not API.
 */
@NullMarked
package dev.ballast.backup.snapshot;

import org.jspecify.annotations.NullMarked;
