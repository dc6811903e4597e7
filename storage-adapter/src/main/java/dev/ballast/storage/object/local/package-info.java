/**
 * Versioned objects in a local directory, in this process:
 * {@link dev.ballast.storage.object.local.LocalObjectStore} (content files named by their SHA-256,
 * a SQLite version index, one writer process and any number of readers) and its
 * {@link dev.ballast.storage.object.local.LocalStoreConfig}. Select it with
 * {@code StorageFacade.newBuilder().localObjects(directory)}.
 *
 * <p>A null argument where the signature allows none throws {@link java.lang.NullPointerException}
 * naming the parameter.
 */
@NullMarked
package dev.ballast.storage.object.local;

import org.jspecify.annotations.NullMarked;
