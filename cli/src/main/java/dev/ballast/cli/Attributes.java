package dev.ballast.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.FileTime;
import java.time.Instant;

/**
 * Applies recorded attributes to a restored file, directory or symbolic link, never following a
 * link: the owner first (only when asked, that is when running as root; {@code chown} clears the
 * set-ID bits), then the modification time, then the mode (last, so a mode without read permission
 * cannot stop the rest), through the JDK's {@code unix} attribute view ({@code lchown},
 * {@code utimensat}, {@code fchmod}).
 */
final class Attributes {
  private Attributes() {}

  /**
   * Gives {@code path} the recorded owner (when {@code ownership}), {@code mtime} and mode; only the
   * mtime when {@code attrs} is null (a manifest written before they were recorded).
   */
  static void apply(Path path, PosixAttrs attrs, Instant mtime, boolean ownership) throws IOException {
    boolean posix = attrs != null && FileStat.UNIX;
    if (posix && ownership) {
      chown(path, attrs);
    }
    setMtime(path, mtime);
    if (posix) {
      Files.setAttribute(path, "unix:mode", attrs.mode(), LinkOption.NOFOLLOW_LINKS);
    }
  }

  /** Gives {@code path} (a link itself, not its target) the recorded owner and group. */
  static void chown(Path path, PosixAttrs attrs) throws IOException {
    Files.setAttribute(path, "unix:uid", attrs.uid(), LinkOption.NOFOLLOW_LINKS);
    Files.setAttribute(path, "unix:gid", attrs.gid(), LinkOption.NOFOLLOW_LINKS);
  }

  /** Sets the modification time of {@code path} (of a link itself, where the platform can). */
  static void setMtime(Path path, Instant mtime) throws IOException {
    Files.getFileAttributeView(path, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
        .setTimes(FileTime.from(mtime), null, null);
  }
}
