package dev.ballast.backup;

import org.jspecify.annotations.Nullable;

/**
 * A file a job did not store, restore or verify, with the reason.
 *
 * @param path the file's path relative to the backed-up directory, {@code /}-separated, its name's
 *     bytes held as {@link dev.ballast.backup.tree.Names} describes
 * @param reason why, in words ("it could not be read (...: permission denied)"), or null when not known
 */
public record FileProblem(String path, @Nullable String reason) {}
