package dev.ballast.backup.tree;

import java.io.FileDescriptor;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.channels.FileChannel;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Gives a file a restore has just written its recorded owner, times and mode through the descriptor
 * it wrote it with: {@code fchown}, {@code futimens}, {@code fchmod}, three system calls that look
 * up no path. The JDK's public API sets them by path ({@code chown}, {@code chmod}) and the times
 * through a descriptor it opens and closes for that alone: five system calls, three of them path
 * lookups, for each restored file (restic makes three, by path; {@code strace -c} of a restore of
 * 20,000 small files).
 *
 * <p>The descriptor is read from the JDK's {@code sun.nio.ch.FileChannelImpl} and
 * {@code java.io.FileDescriptor}, and the calls are the JDK's {@code sun.nio.fs.UnixNativeDispatcher}
 * (JDK 17 to 25), through method handles; this works only where the JVM opens {@code sun.nio.ch},
 * {@code java.io} and {@code sun.nio.fs} to this code ({@code --add-opens java.base/sun.nio.ch=ALL-UNNAMED}
 * and likewise for the other two, as the {@code ./ballast} launcher passes them). Elsewhere, and whenever a call fails, {@link #apply} returns false and changes
 * nothing the caller's path-based {@link Attributes#applyToOwnFile} would not set again. Thread-safe.
 */
public final class OpenFileAttributes {
    private static final @Nullable Class<?> CHANNEL_TYPE;
    private static final @Nullable MethodHandle CHANNEL_FD;
    private static final @Nullable MethodHandle FD_INT;
    private static final @Nullable MethodHandle FCHOWN;
    private static final @Nullable MethodHandle FCHMOD;
    private static final @Nullable MethodHandle FUTIMENS;
    /** {@code fstat} into a new {@code UnixFileAttributes}, and its {@code st_mode}, {@code st_uid}, {@code st_gid}. */
    private static final @Nullable MethodHandle FSTAT;

    private static final @Nullable MethodHandle NEW_STAT;
    private static final @Nullable MethodHandle ST_MODE;
    private static final @Nullable MethodHandle ST_UID;
    private static final @Nullable MethodHandle ST_GID;

    static {
        Class<?> channelType = null;
        MethodHandle channelFd = null;
        MethodHandle fdInt = null;
        MethodHandle fchown = null;
        MethodHandle fchmod = null;
        MethodHandle futimens = null;
        MethodHandle fstat = null;
        MethodHandle newStat = null;
        MethodHandle stMode = null;
        MethodHandle stUid = null;
        MethodHandle stGid = null;
        try {
            channelType = Class.forName("sun.nio.ch.FileChannelImpl");
            MethodHandles.Lookup here = MethodHandles.lookup();
            channelFd = MethodHandles.privateLookupIn(channelType, here)
                    .findGetter(channelType, "fd", FileDescriptor.class)
                    .asType(MethodType.methodType(FileDescriptor.class, FileChannel.class));
            fdInt = MethodHandles.privateLookupIn(FileDescriptor.class, here)
                    .findGetter(FileDescriptor.class, "fd", int.class);
            Class<?> dispatcher = Class.forName("sun.nio.fs.UnixNativeDispatcher");
            MethodHandles.Lookup dispatch = MethodHandles.privateLookupIn(dispatcher, here);
            fchown = dispatch.findStatic(
                    dispatcher, "fchown", MethodType.methodType(void.class, int.class, int.class, int.class));
            fchmod = dispatch.findStatic(dispatcher, "fchmod", MethodType.methodType(void.class, int.class, int.class));
            futimens = dispatch.findStatic(
                    dispatcher, "futimens", MethodType.methodType(void.class, int.class, long.class, long.class));
            try {
                Class<?> stat = Class.forName("sun.nio.fs.UnixFileAttributes");
                MethodHandles.Lookup stats = MethodHandles.privateLookupIn(stat, here);
                MethodHandle f =
                        dispatch.findStatic(dispatcher, "fstat", MethodType.methodType(void.class, int.class, stat));
                newStat = stats.findConstructor(stat, MethodType.methodType(void.class))
                        .asType(MethodType.methodType(Object.class));
                fstat = f.asType(MethodType.methodType(void.class, int.class, Object.class));
                stMode = stats.findGetter(stat, "st_mode", int.class)
                        .asType(MethodType.methodType(int.class, Object.class));
                stUid = stats.findGetter(stat, "st_uid", int.class)
                        .asType(MethodType.methodType(int.class, Object.class));
                stGid = stats.findGetter(stat, "st_gid", int.class)
                        .asType(MethodType.methodType(int.class, Object.class));
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                fstat = null; // every attribute is then set, as it is whenever fstat fails
            }
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            channelType = null; // not opened (IllegalAccessException), not a Unix JDK, or other internals
        }
        CHANNEL_TYPE = channelType;
        CHANNEL_FD = channelFd;
        FD_INT = fdInt;
        FCHOWN = fchown;
        FCHMOD = fchmod;
        FUTIMENS = futimens;
        FSTAT = fstat;
        NEW_STAT = newStat;
        ST_MODE = stMode;
        ST_UID = stUid;
        ST_GID = stGid;
    }

    private OpenFileAttributes() {}

    /** Whether {@link #apply} can set attributes through a descriptor in this JVM. */
    public static boolean available() {
        return CHANNEL_TYPE != null && FileStat.UNIX;
    }

    /**
     * Whether {@link #apply} reads what the file has ({@code fstat}) and leaves out a {@code chown} or
     * {@code chmod} that would change nothing; without it every attribute is set.
     */
    static boolean readsWhatTheFileHas() {
        return available() && FSTAT != null;
    }

    /** The file's {@code fstat} ({@code sun.nio.fs.UnixFileAttributes}), or null when it cannot be had. */
    private static @Nullable Object stat(int fd) {
        if (FSTAT == null) {
            return null;
        }
        try {
            Object stat = (Object) NEW_STAT.invokeExact();
            FSTAT.invokeExact(fd, stat);
            return stat;
        } catch (Error e) {
            throw e;
        } catch (Throwable e) {
            return null; // every attribute is set then
        }
    }

    /**
     * Gives the regular file open as {@code channel} the owner and group of {@code attrs} (when
     * {@code ownership}), {@code mtime} as its modification time (before 1970 in whole seconds, as
     * {@link Attributes} sets it) and now as its access time, and the mode of {@code attrs}, in that order ({@code chown} clears the set-ID bits). Call it after the
     * last write: a write after it changes the modification time again.
     *
     * @param attrs the recorded owner, group and mode; null (a manifest written before they were
     *     recorded) gives the file only its times
     * @return true when every attribute was set; false when this JVM cannot set them through a
     *     descriptor or a call failed (as for a {@code chown} a user
     *     other than root may not make), so that the caller sets them by path, which says why in the
     *     JDK's words
     */
    public static boolean apply(FileChannel channel, @Nullable PosixAttrs attrs, Instant mtime, boolean ownership) {
        if (!available() || !CHANNEL_TYPE.isInstance(channel)) {
            return false;
        }
        try {
            int fd = (int) FD_INT.invokeExact((FileDescriptor) CHANNEL_FD.invokeExact(channel));
            if (fd < 0) {
                return false; // closed
            }
            long mtimeNanos = Attributes.settable(mtime).to(TimeUnit.NANOSECONDS);
            // What the new file already has (its creator's owner, the mode its creation gave it) is not set
            // again: a chown or chmod that changes nothing still journals the inode (ext4: about 3 us each, a
            // tenth of a second's system time in a restore of 20,000 small files as root), an fstat does not.
            Object stat = attrs == null ? null : stat(fd);
            boolean chowned = false;
            if (attrs != null
                    && ownership
                    && (stat == null
                            || (int) ST_UID.invokeExact(stat) != attrs.uid()
                            || (int) ST_GID.invokeExact(stat) != attrs.gid())) {
                FCHOWN.invokeExact(fd, attrs.uid(), attrs.gid());
                chowned = true; // which clears the set-ID bits: the mode is set after it
            }
            long now = TimeUnit.MILLISECONDS.toNanos(System.currentTimeMillis());
            FUTIMENS.invokeExact(fd, now, mtimeNanos);
            if (attrs != null
                    && (stat == null
                            || chowned
                            || ((int) ST_MODE.invokeExact(stat) & PosixAttrs.MODE_BITS) != attrs.mode())) {
                FCHMOD.invokeExact(fd, attrs.mode());
            }
            return true;
        } catch (Error e) {
            throw e;
        } catch (Throwable e) {
            return false; // sun.nio.fs.UnixException, or a time futimens cannot take: the path says why
        }
    }
}
