/**
 * Keys of an encrypted backup repository: the master key, the key files that seal it under each
 * password, and where passwords come from. Engine room, not API.
 */
@NullMarked
package dev.ballast.backup.keys;

import org.jspecify.annotations.NullMarked;
