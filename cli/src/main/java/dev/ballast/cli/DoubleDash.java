package dev.ballast.cli;

import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;

/**
 * What {@code --} does on a command line: it ends the options (POSIX utility syntax guideline 10), so
 * every word after it is an argument, a name or a path, even one spelled like an option or a command.
 * That lets a directory called {@code -x} be backed up, and it turns an option typed after {@code --}
 * into something else: {@code ballast prune -- --dry-run} pruned for real, with {@code --dry-run} taken
 * as a backup name. Such a line is refused before it runs.
 */
final class DoubleDash {
    private DoubleDash() {}

    /**
     * One sentence refusing {@code line} when a word after its {@code --} is spelled like a long option or a
     * subcommand of the command it runs (in {@code root}'s tree), or like a command where none comes
     * before the {@code --}; null when there is no {@code --} or nothing after it looks so.
     */
    static @Nullable String misplaced(CommandLine root, String[] line) {
        List<String> words = Arrays.asList(line);
        int dash = words.indexOf("--");
        if (dash < 0) {
            return null;
        }
        CommandLine command = root;
        for (String w : words.subList(0, dash)) {
            CommandLine sub = command.getSubcommands().get(w);
            if (sub != null) {
                command = sub;
            }
        }
        String name = command.getCommandSpec().qualifiedName();
        for (String w : words.subList(dash + 1, words.size())) {
            String option = w.split("=", 2)[0];
            // Long options only: a short one is also a plausible directory or backup name ('-x'), which is
            // what '--' is for; no new backup may be named with a leading '-', and a name must exist.
            if (w.startsWith("--") && w.length() > 2 && command.getCommandSpec().findOption(option) != null) {
                boolean takesPaths = command.getCommandSpec().positionalParameters().stream()
                        .anyMatch(p -> p.type() == java.nio.file.Path.class
                                || java.util.Arrays.asList(p.auxiliaryTypes()).contains(java.nio.file.Path.class));
                return "'--' ends the options, so '" + w + "' after it was taken as an argument, not as the"
                        + " option " + option + " of '" + name + "'; put the option before the '--'"
                        + (takesPaths ? " (a path that is spelled like an option can be written ./" + w + ")." : ".");
            }
            if (command.getSubcommands().containsKey(w)) {
                return "'--' ends the options, so '" + w + "' after it was taken as an argument, which '"
                        + name + "' does not take; leave out the '--' to run '" + name + " " + w + "' (its options"
                        + " may come before or after it).";
            }
        }
        return null;
    }
}
