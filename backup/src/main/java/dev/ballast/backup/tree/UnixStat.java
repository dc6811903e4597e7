package dev.ballast.backup.tree;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFileAttributes;
import org.jspecify.annotations.Nullable;

/**
 * One {@code stat(2)} of a file with every field a backup records, read from the object the JDK's
 * Unix file system fills ({@code sun.nio.fs.UnixFileAttributes}, which the POSIX attribute view
 * returns as it is) through method handles on its package-private accessors. The "unix" attribute
 * view reads the same fields but parses the attribute list and builds a map of boxed values for
 * each call: about 3 µs per file, a third of the main thread's time walking 20,000 small files
 * (async-profiler). Where {@code sun.nio.fs} is not opened to this code (the launcher opens it for
 * {@link Names}) or the JDK's attributes are not that class, {@link #read} returns null and the
 * caller uses the "unix" view. Thread-safe.
 */
final class UnixStat {
    private static final @Nullable Class<?> ATTRIBUTES;
    private static final @Nullable MethodHandle MODE;
    private static final @Nullable MethodHandle INO;
    private static final @Nullable MethodHandle NLINK;
    private static final @Nullable MethodHandle UID;
    private static final @Nullable MethodHandle GID;
    private static final @Nullable MethodHandle CTIME;
    private static final @Nullable MethodHandle DEV;

    static {
        Class<?> type = null;
        MethodHandle mode = null;
        MethodHandle ino = null;
        MethodHandle nlink = null;
        MethodHandle uid = null;
        MethodHandle gid = null;
        MethodHandle ctime = null;
        MethodHandle dev = null;
        try {
            type = Class.forName("sun.nio.fs.UnixFileAttributes");
            MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(type, MethodHandles.lookup());
            mode = getter(lookup, type, "mode", int.class);
            ino = getter(lookup, type, "ino", long.class);
            nlink = getter(lookup, type, "nlink", int.class);
            uid = getter(lookup, type, "uid", int.class);
            gid = getter(lookup, type, "gid", int.class);
            ctime = getter(lookup, type, "ctime", FileTime.class);
            dev = getter(lookup, type, "dev", long.class);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            type = null; // not opened (IllegalAccessException), or another JDK's classes
        }
        ATTRIBUTES = type;
        MODE = mode;
        INO = ino;
        NLINK = nlink;
        UID = uid;
        GID = gid;
        CTIME = ctime;
        DEV = dev;
    }

    private UnixStat() {}

    private static MethodHandle getter(MethodHandles.Lookup lookup, Class<?> type, String name, Class<?> returns)
            throws ReflectiveOperationException {
        return lookup.findVirtual(type, name, MethodType.methodType(returns))
                .asType(MethodType.methodType(returns, Object.class));
    }

    /** Whether {@link #read} reads the JDK's attributes directly. */
    static boolean available() {
        return ATTRIBUTES != null;
    }

    /**
     * The attributes of {@code file} (of a symbolic link itself with {@link LinkOption#NOFOLLOW_LINKS}),
     * or null where this class cannot read them directly.
     *
     * @throws IOException as {@link Files#readAttributes(Path, Class, LinkOption...)} throws
     */
    static TreeWalk.@Nullable Attributes read(Path file, LinkOption... options) throws IOException {
        if (ATTRIBUTES == null) {
            return null;
        }
        PosixFileAttributes a = Files.readAttributes(file, PosixFileAttributes.class, options);
        if (!ATTRIBUTES.isInstance(a)) {
            return null;
        }
        try {
            int mode = (int) MODE.invokeExact((Object) a);
            FileStat stat = new FileStat(
                    a.size(),
                    a.lastModifiedTime().toInstant(),
                    ((FileTime) CTIME.invokeExact((Object) a)).toInstant(),
                    (long) INO.invokeExact((Object) a),
                    new PosixAttrs(mode & PosixAttrs.MODE_BITS, (int) UID.invokeExact((Object) a), (int)
                            GID.invokeExact((Object) a)),
                    (int) NLINK.invokeExact((Object) a));
            return new TreeWalk.Attributes(mode, a.fileKey(), (long) DEV.invokeExact((Object) a), stat);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("reading the JDK's file attributes failed: " + e, e);
        }
    }
}
