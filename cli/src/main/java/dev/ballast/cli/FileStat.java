package dev.ballast.cli;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Map;

/**
 * What a backup compares to decide, without reading a file, that it is unchanged since the previous
 * backup, as restic and git do: size, modification time, and where the platform has them the
 * status-change time (ctime, which also moves when a file is rewritten with its old mtime put back)
 * and the inode number (which moves when a file is replaced by another).
 *
 * @param size bytes
 * @param mtime last modification
 * @param ctime last status change, or null where the platform has none
 * @param inode the inode number, or null where the platform has none
 */
record FileStat(long size, Instant mtime, Instant ctime, Long inode) {

  private static final boolean UNIX = FileSystems.getDefault().supportedFileAttributeViews().contains("unix");

  /** The stat of {@code file}, completing {@code attrs} (one {@code stat} already made) with ctime and inode. */
  static FileStat of(Path file, BasicFileAttributes attrs, LinkOption... options) throws IOException {
    Instant mtime = attrs.lastModifiedTime().toInstant();
    if (!UNIX) {
      return new FileStat(attrs.size(), mtime, null, null);
    }
    Map<String, Object> unix = Files.readAttributes(file, "unix:ctime,ino", options);
    return new FileStat(attrs.size(), mtime, ((FileTime) unix.get("ctime")).toInstant(), (Long) unix.get("ino"));
  }

  /**
   * Whether a file with this stat can be taken as unchanged from one recorded with {@code recorded}:
   * every field this platform has must be equal, and a recorded entry without ctime (written by an
   * earlier version, on another platform, or too close to its backup to be trusted) never matches.
   */
  boolean sameAs(ManifestEntry recorded) {
    if (recorded == null || recorded.size() != size || !recorded.mtime().equals(mtime)) {
      return false;
    }
    if (ctime == null) {
      return true;
    }
    return ctime.equals(recorded.ctime()) && inode.equals(recorded.inode());
  }
}
