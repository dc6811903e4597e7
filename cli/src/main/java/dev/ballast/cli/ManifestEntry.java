package dev.ballast.cli;

import java.time.Instant;
import java.util.Objects;

/**
 * One file of a backup.
 *
 * @param path the path relative to the backed-up directory, {@code /}-separated
 * @param size the size in bytes
 * @param sha256 lowercase hex SHA-256 of the content
 * @param versionId the S3 version ID of the object {@code NAME/path} holding the content
 * @param mtime the file's modification time when it was backed up
 */
record ManifestEntry(String path, long size, String sha256, String versionId, Instant mtime) {
  ManifestEntry {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(sha256, "sha256");
    Objects.requireNonNull(versionId, "versionId");
    Objects.requireNonNull(mtime, "mtime");
    if (size < 0) {
      throw new IllegalArgumentException("size must be >= 0 but was " + size);
    }
  }
}
