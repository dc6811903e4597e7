/**
 * File contents in the store: today one object per file, with its SHA-256, moved by a bounded
 * pool of transfer threads. Chunking and pack files would live here. Engine room, not API.
 */
@NullMarked
package dev.ballast.backup.content;

import org.jspecify.annotations.NullMarked;
