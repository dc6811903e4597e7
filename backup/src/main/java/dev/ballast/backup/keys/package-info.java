/**
 * Keys: an empty room. Stores are not encrypted yet; the master key, its password-protected key
 * files and the key commands will live here (issue 22, item 2).
 */
@NullMarked
package dev.ballast.backup.keys;

import org.jspecify.annotations.NullMarked;
