package dev.ballast.backup.tree;

/**
 * The POSIX attributes a manifest records for a file, directory or symbolic link, as {@code stat(2)}
 * reports them: the permission bits (with set-user-ID, set-group-ID and sticky, {@code 07777}) and
 * the numeric owner and group. Restore applies the permission bits always and the owner and group
 * when it runs as root (as tar and restic do); user and group names are not recorded.
 *
 * @param mode the permission bits, {@code 0} to {@code 07777}
 * @param uid the numeric owner
 * @param gid the numeric group
 */
public record PosixAttrs(int mode, int uid, int gid) {
    /** The bits of {@code st_mode} a manifest keeps (permissions, set-ID and sticky; not the file type). */
    public static final int MODE_BITS = 07777;

    public PosixAttrs {
        if ((mode & ~MODE_BITS) != 0) {
            throw new IllegalArgumentException("mode must be within 07777 but was 0" + Integer.toOctalString(mode));
        }
    }

    // Written out: a record's own equals links an ObjectMethods call site on first use (about 10 ms of an
    // unchanged backup's start, which compares every file's attributes with the earlier snapshot's).
    @Override
    public boolean equals(Object o) {
        return o instanceof PosixAttrs p && p.mode == mode && p.uid == uid && p.gid == gid;
    }

    @Override
    public int hashCode() {
        return (mode * 31 + uid) * 31 + gid;
    }
}
