/**
 * The source tree: walking it, the {@code --exclude} filters and globs, file names as the bytes the
 * file system holds ({@link dev.ballast.backup.tree.Names}), stat and POSIX attributes, and the safety
 * of paths read back from a manifest. Engine room, not API.
 */
@NullMarked
package dev.ballast.backup.tree;

import org.jspecify.annotations.NullMarked;
