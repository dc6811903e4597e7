/**
 * Backups as a library: back up a directory into an object store, restore all of it or a
 * selection, list, verify, forget and prune, with progress and results as values. The sub-packages
 * are the engine's rooms; they are public so that the {@code ballast} command line can word its
 * output from them, but only this package is the API. Keys have no room yet: stores are not
 * encrypted, and the master key and its password-protected key files will be
 * {@code dev.ballast.backup.keys} (issue 22, item 2).
 */
@NullMarked
package dev.ballast.backup;

import org.jspecify.annotations.NullMarked;
