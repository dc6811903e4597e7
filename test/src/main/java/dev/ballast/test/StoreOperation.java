package dev.ballast.test;

import dev.ballast.storage.object.ObjectStore;

/**
 * The {@link ObjectStore} operations a {@link FaultInjectingObjectStore} rule can match. {@code putAsync}
 * counts as {@link #PUT}; {@code capabilities}, {@code confirmsWrites} and {@code prepareWrites} are
 * never faulted.
 */
public enum StoreOperation {
    /** {@link ObjectStore#put} and {@link ObjectStore#putAsync}. */
    PUT,
    /** {@link ObjectStore#putIfAbsent}. */
    PUT_IF_ABSENT,
    /** {@link ObjectStore#putIfMatch}. */
    PUT_IF_MATCH,
    /** {@link ObjectStore#get(String)} and {@link ObjectStore#get(String, dev.ballast.storage.object.ReadOptions)}. */
    GET,
    /** {@link ObjectStore#versions}. */
    VERSIONS,
    /** {@link ObjectStore#delete}. */
    DELETE,
    /** {@link ObjectStore#deleteVersion}. */
    DELETE_VERSION,
    /** {@link ObjectStore#list}. */
    LIST,
    /** {@link ObjectStore#listVersions}. */
    LIST_VERSIONS;

    /** Whether this operation writes (a put of any kind or a delete). */
    public boolean writes() {
        return this == PUT || this == PUT_IF_ABSENT || this == PUT_IF_MATCH || this == DELETE || this == DELETE_VERSION;
    }
}
