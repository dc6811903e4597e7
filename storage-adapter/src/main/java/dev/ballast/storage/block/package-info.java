/**
 * Local block volumes: byte-addressable files under a root directory with positional in-place
 * writes, durability by {@code fsync} of the file and its directory, one writer at a time (an
 * exclusive file lock across processes plus a registry inside the JVM), and names validated before
 * any disk access ({@link dev.ballast.storage.block.VolumeNames}).
 *
 * <p>A null argument where the signature allows none throws {@link java.lang.NullPointerException}
 * naming the parameter.
 */
@NullMarked
package dev.ballast.storage.block;

import org.jspecify.annotations.NullMarked;
