package dev.ballast.backup.restore;

import dev.ballast.backup.Advice;
import dev.ballast.backup.BackupException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What stands in the way of a restore without {@code --overwrite}, each entry by kind, and the
 * refusal that names them all: a restore refused for conflicts lists every one (one line each)
 * and says, per kind, what {@code --overwrite} would do with it, because it does not replace a
 * directory. Not thread-safe.
 */
public final class RestoreConflicts {
    /** A kind of entry in the way, as the refusal words it. */
    public enum Kind {
        /** A regular file whose bytes differ from the backup's. */
        DIFFERENT_FILE("an existing file differs from the backup's", "files that differ", true),
        /** A regular file this user cannot read, so it cannot be compared with the backup's. */
        UNREADABLE_FILE(
                "an existing file cannot be read to compare it with the backup's",
                "files that cannot be read to compare",
                true),
        /** A directory where the backup has a file. */
        DIRECTORY_WHERE_FILE(
                "a directory stands where the backup has a file", "directories where the backup has a file", false),
        /** A symbolic link or special file where the backup has a regular file. */
        OTHER_WHERE_FILE(
                "a symbolic link or special file stands where the backup has a file",
                "links or special files where the backup has a file",
                true),
        /** A file, link or special file where the backup has a directory. */
        NOT_A_DIRECTORY(
                "a file or link stands where the backup has a directory",
                "files or links where the backup has a directory",
                true),
        /** A directory where the backup has a hard or symbolic link: never replaced, as where it has a file. */
        DIRECTORY_WHERE_LINK(
                "a directory stands where the backup has a link", "directories where the backup has a link", false),
        /** Something other than the recorded link where the backup has a hard or symbolic link. */
        DIFFERENT_LINK(
                "something other than the backup's link stands where it has a link",
                "entries where the backup has a link",
                true);

        public final String each;
        public final String plural;
        public final boolean overwriteReplaces;

        Kind(String each, String plural, boolean overwriteReplaces) {
            this.each = each;
            this.plural = plural;
            this.overwriteReplaces = overwriteReplaces;
        }
    }

    /** One entry in the way: its path in the backup and its kind. */
    public record Conflict(String path, Kind kind) {}

    private final List<Conflict> conflicts = new ArrayList<>();

    public void add(String path, Kind kind) {
        conflicts.add(new Conflict(path, kind));
    }

    public boolean isEmpty() {
        return conflicts.isEmpty();
    }

    public List<Conflict> all() {
        return List.copyOf(conflicts);
    }

    /**
     * The refusal: one line {@code In the way: PATH (kind)} per conflict, then one sentence with the
     * count by kind and what to do.
     */
    public BackupException refusal(Path target) {
        StringBuilder message = new StringBuilder();
        List<String> lines = new ArrayList<>();
        Map<Kind, Integer> counts = new EnumMap<>(Kind.class);
        for (Conflict c : conflicts) {
            lines.add("In the way: " + c.path() + " (" + c.kind().each + ")");
            counts.merge(c.kind(), 1, Integer::sum);
        }
        List<String> byKind = new ArrayList<>();
        counts.forEach((k, n) -> byKind.add(n + " " + (n == 1 ? singular(k) : k.plural)));
        boolean replaceable = counts.keySet().stream().anyMatch(k -> k.overwriteReplaces);
        boolean directories =
                counts.containsKey(Kind.DIRECTORY_WHERE_FILE) || counts.containsKey(Kind.DIRECTORY_WHERE_LINK);
        message.append("Restore into '")
                .append(target)
                .append("' refused: ")
                .append(conflicts.size())
                .append(conflicts.size() == 1 ? " existing entry is" : " existing entries are")
                .append(" in the way (")
                .append(String.join(", ", byKind))
                .append("); nothing was written. Restore into an empty directory");
        if (replaceable) {
            message.append(", or ")
                    .append(Advice.OVERWRITE_AGAIN.text())
                    .append(" to replace ")
                    .append(directories ? "the files and links" : "them");
        }
        if (directories) {
            message.append(replaceable ? " and " : ", or ")
                    .append("remove the directories listed yourself (")
                    .append(Advice.OVERWRITE.text())
                    .append(" never replaces a directory)");
        }
        message.append('.');
        return new BackupException(BackupException.Kind.CONFLICT, message.toString(), lines);
    }

    private static String singular(Kind k) {
        return switch (k) {
            case DIFFERENT_FILE -> "file that differs";
            case UNREADABLE_FILE -> "file that cannot be read to compare";
            case DIRECTORY_WHERE_FILE -> "directory where the backup has a file";
            case OTHER_WHERE_FILE -> "link or special file where the backup has a file";
            case NOT_A_DIRECTORY -> "file or link where the backup has a directory";
            case DIRECTORY_WHERE_LINK -> "directory where the backup has a link";
            case DIFFERENT_LINK -> "entry where the backup has a link";
        };
    }
}
