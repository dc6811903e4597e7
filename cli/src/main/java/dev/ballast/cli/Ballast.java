package dev.ballast.cli;

import dev.ballast.backup.BackupException;
import dev.ballast.backup.Cancellation;
import dev.ballast.backup.tree.Names;
import dev.ballast.storage.StorageException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IFactory;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code ballast} command: back up a directory to versioned object storage and restore it,
 * verified.
 *
 * <p>Without {@code --endpoint} every command works on a local object store under
 * {@code ~/.ballast/} (no server); with it, on an S3 bucket. Exit codes are listed in
 * {@link ExitCodes} and at the end of {@code --help}.
 */
@Command(
        name = "ballast",
        mixinStandardHelpOptions = true,
        version = "ballast 0.1.0",
        description = {
            "Back up directories to versioned object storage and restore them byte-identical, through Ballast's "
                    + "storage facade. Without --endpoint the backups live in a local object store under ~/.ballast "
                    + "(or --data-dir), so they need no setup and no server; with --endpoint, in any S3 bucket, through "
                    + "Ballast's resilient HTTP client.",
            "",
            "  ballast backup ~/photos",
            "  ballast restore photos /tmp/photos-restored",
            ""
        })
public final class Ballast implements Callable<Integer> {
    private static final long SHUTDOWN_WAIT_SECONDS = 30;
    /** The subcommands, by name, in the order {@code --help} lists them. */
    private static final Map<String, Class<? extends BallastCommand>> COMMANDS = commands();

    private static final String LOG_PREFIX = "org.slf4j.simpleLogger.";

    @Spec
    CommandSpec spec;

    private Ballast() {}

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        err.println("Missing command: pass one of " + String.join(", ", COMMANDS.keySet()) + ".");
        spec.commandLine().usage(err);
        return ExitCodes.USAGE;
    }

    /** Runs the command and exits with its exit code; Ctrl-C stops it cleanly (see {@link ExitCodes}). */
    public static void main(String[] args) {
        // Output is UTF-8 whatever the locale (under cron or systemd, env -i, the JVM's default is ASCII on JDK 17).
        OutputFailure stdout = new OutputFailure(new java.io.FileOutputStream(java.io.FileDescriptor.out));
        System.setOut(utf8(stdout));
        System.setErr(utf8(new java.io.FileOutputStream(java.io.FileDescriptor.err)));
        quietLogs();
        quietOutOfMemoryOnOtherThreads();
        StartUp.begin(args, System.getenv(RepositoryOption.VARIABLE));
        Cancellation cancellation = new Cancellation();
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            cancellation.cancel();
                            try {
                                // Let the command stop its files in progress, report and write no complete-looking
                                // manifest.
                                cancellation.awaitFinished(SHUTDOWN_WAIT_SECONDS, TimeUnit.SECONDS);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        },
                        "ballast-shutdown"));
        int code;
        try {
            code = run(Names.arguments(args), CliContext.system(cancellation));
            code = OutputFailure.exitCode(code, System.out, stdout.failure(), System.err);
        } finally {
            cancellation.finished();
        }
        System.exit(code);
    }

    /**
     * The sentence for a heap that ran out while a command ran: the JVM's maximum heap, {@code maxHeap}
     * bytes, and what to give it instead (at least {@code -Xmx128m}, docs/cli.md).
     */
    static String heapRanOut(long maxHeap) {
        long mib = maxHeap >> 20;
        return "The Java heap ran out of memory (at most " + mib + " MiB): give the JVM a larger heap, "
                + (mib < 128 ? "at least -Xmx128m" : "more than -Xmx" + mib + "m")
                + " (in BALLAST_JAVA_OPTS), and run the command again.";
    }

    /**
     * Keeps an {@link OutOfMemoryError} on a thread of the command's own (the cipher warm-up's, a reader's)
     * from printing a Java error beside the command's own sentence: the thread's work is the command's
     * to report (a task's failure reaches it through its future; a warm-up's loss costs only time), and
     * a heap too small is reported once, by the main thread, by {@link #run}. Any other throwable is
     * printed as the JVM prints it.
     */
    private static void quietOutOfMemoryOnOtherThreads() {
        Thread.setDefaultUncaughtExceptionHandler((thread, e) -> {
            if (e instanceof OutOfMemoryError) {
                return;
            }
            System.err.print("Exception in thread \"" + thread.getName() + "\" ");
            e.printStackTrace(System.err);
        });
    }

    private static java.io.PrintStream utf8(java.io.OutputStream stream) {
        return new java.io.PrintStream(
                new java.io.BufferedOutputStream(stream, 8192), true, java.nio.charset.StandardCharsets.UTF_8);
    }

    /**
     * Runs one command in this JVM with {@code ctx}'s streams and services, as {@code ballast} would.
     *
     * @return the exit code, one of {@link ExitCodes}
     */
    public static int run(String[] args, CliContext ctx) {
        String[] line = commonOptionsAfterCommand(args);
        QuietOutput quiet = QuietOutput.asked(line, ctx);
        CommandLine cl = commandLine(quiet == null ? ctx : quiet.context(), line.length > 0 ? line[0] : null);
        String afterDash = DoubleDash.misplaced(cl, line);
        if (afterDash != null) {
            // before picocli, which would take it as a name or a path: 'prune -- --dry-run' pruned
            cl.getErr().println("Error: " + Errors.printable(afterDash));
            cl.getErr().flush();
            if (quiet != null) {
                quiet.finish(ExitCodes.USAGE);
            }
            return ExitCodes.USAGE;
        }
        int code;
        try {
            code = cl.execute(line);
        } catch (OutOfMemoryError e) {
            // picocli hands the command's exceptions to the handler below, not its errors: without this the
            // JVM printed "Exception in thread "main" java.lang.OutOfMemoryError" and exited 1
            cl.getErr().println("Error: " + heapRanOut(Runtime.getRuntime().maxMemory()));
            cl.getErr().flush();
            code = ExitCodes.USAGE;
        }
        if (quiet != null) {
            quiet.finish(code);
        }
        return code;
    }

    /** The options every command takes ({@link CommonOptions}) that take a value. */
    private static final java.util.Set<String> COMMON_WITH_VALUE = java.util.Set.of(
            "-r",
            "--repo",
            "--data-dir",
            "--endpoint",
            "--bucket",
            "--region",
            "--access-key",
            "--secret-key",
            "--profile",
            "--timeout",
            "--password-file",
            "--password-command");

    /** The options every command takes that take none. */
    private static final java.util.Set<String> COMMON_FLAGS =
            java.util.Set.of("-v", "--verbose", "-q", "--quiet", "--path-style", "--no-path-style");

    /**
     * {@code args} with the options every command takes moved after the command when they come before
     * it, as restic takes its global options ({@code restic -r REPO snapshots}): {@code ballast -r REPO
     * list} is {@code ballast list -r REPO}. For {@code key}, whose subcommands each read the options
     * themselves, they go after the subcommand, from before {@code key} and from between it and the
     * subcommand: {@code ballast -r REPO key add} and {@code ballast key -r REPO add} are {@code ballast
     * key add -r REPO} (both acted on the default store before). Anything else before the command is left
     * where it is (and refused as before); a word that names no command is moved to the front as a command
     * would be, so that it is the one refused.
     */
    static String[] commonOptionsAfterCommand(String[] args) {
        List<String> moved = new java.util.ArrayList<>();
        int i = commonOptions(args, 0, moved);
        if (i >= args.length && !moved.isEmpty()) {
            return new String[0]; // options and no command ('ballast -r REPO'): "Missing command", not unknown options
        }
        // a word that is no command ('snapshots') goes first too, so that it is the one refused, with
        // the restic hint it may have
        if (i >= args.length || args[i].startsWith("-")) {
            return args;
        }
        int command = i;
        if (args[command].equals("help")) {
            // 'ballast -r REPO help key' is help on key: the options name no store for it
            return java.util.Arrays.copyOfRange(args, command, args.length);
        }
        if (args[command].equals("key")) {
            List<String> between = new java.util.ArrayList<>();
            int sub = commonOptions(args, command + 1, between);
            if (sub < args.length && KEY_SUBCOMMANDS.contains(args[sub])) {
                moved.addAll(between);
                i = sub;
            }
        }
        if (moved.isEmpty()) {
            return args;
        }
        List<String> line = new java.util.ArrayList<>();
        line.add(args[command]);
        if (i > command) {
            line.add(args[i]); // key's subcommand
        }
        line.addAll(moved);
        line.addAll(java.util.Arrays.asList(args).subList(i + 1, args.length));
        return line.toArray(String[]::new);
    }

    /** {@code key}'s subcommands ({@link KeyCommand}). */
    private static final java.util.Set<String> KEY_SUBCOMMANDS = java.util.Set.of("list", "add", "remove", "passwd");

    /**
     * Adds the options every command takes found from {@code args[from]} on to {@code moved}, and returns
     * the index of the first argument that is none of them.
     */
    private static int commonOptions(String[] args, int from, List<String> moved) {
        int i = from;
        while (i < args.length) {
            String a = args[i];
            String name = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
            if (COMMON_FLAGS.contains(a) || (a.contains("=") && COMMON_WITH_VALUE.contains(name))) {
                moved.add(a);
                i++;
            } else if (COMMON_WITH_VALUE.contains(a) && i + 1 < args.length) {
                moved.add(a);
                moved.add(args[i + 1]);
                i += 2;
            } else {
                break;
            }
        }
        return i;
    }

    private static Map<String, Class<? extends BallastCommand>> commands() {
        Map<String, Class<? extends BallastCommand>> commands = new LinkedHashMap<>();
        commands.put("init", InitCommand.class);
        commands.put("backup", BackupCommand.class);
        commands.put("restore", RestoreCommand.class);
        commands.put("list", ListCommand.class);
        commands.put("ls", LsCommand.class);
        commands.put("verify", VerifyCommand.class);
        commands.put("check", CheckCommand.class);
        commands.put("versions", VersionsCommand.class);
        commands.put("forget", ForgetCommand.class);
        commands.put("prune", PruneCommand.class);
        commands.put("unlock", UnlockCommand.class);
        commands.put("repair", RepairCommand.class);
        commands.put("key", KeyCommand.class);
        return commands;
    }

    /**
     * The command line; when {@code first} names a subcommand, only that one is built: picocli reads
     * each command's annotations by reflection, which costs a noticeable part of a short command's
     * start-up, and a command line holds one subcommand.
     */
    static CommandLine commandLine(CliContext given, @Nullable String first) {
        // The engine names its remedies in the library's terms; the command prints its own (CliWording).
        CliContext ctx = CliWording.context(given);
        ContextFactory factory = new ContextFactory(ctx);
        CommandLine cl = new CommandLine(new Ballast(), factory);
        Class<? extends BallastCommand> only = first == null ? null : COMMANDS.get(first);
        for (Map.Entry<String, Class<? extends BallastCommand>> c : COMMANDS.entrySet()) {
            if (only == null || only == c.getValue()) {
                cl.addSubcommand(c.getKey(), new CommandLine(c.getValue(), factory));
            }
        }
        if (only == null) {
            cl.addSubcommand("help", new CommandLine.HelpCommand());
        }
        // 'ballast list --version' printed nothing: every command's --version is the root's
        versionEverywhere(cl, cl.getCommandSpec().version());
        // A path argument made from its bytes (Names), whatever the locale; after the subcommands, which it reaches.
        cl.registerConverter(java.nio.file.Path.class, Names::path);
        // UTF-8 as the streams are (CliContext), never the default charset of the locale.
        cl.setOut(new PrintWriter(
                new java.io.OutputStreamWriter(ctx.out(), java.nio.charset.StandardCharsets.UTF_8), true));
        cl.setErr(new PrintWriter(
                new java.io.OutputStreamWriter(ctx.err(), java.nio.charset.StandardCharsets.UTF_8), true));
        cl.getCommandSpec().usageMessage().footer(ExitCodes.HELP_LINES);
        footers(cl);
        cl.setExecutionStrategy(parseResult -> {
            for (CommandLine.ParseResult r = parseResult; r != null; r = r.subcommand()) {
                // picocli lets --help and --version pass over what it cannot match ('ballast key --help bogus'
                // printed the help, exit 0): refused as without them
                if ((r.isUsageHelpRequested() || r.isVersionHelpRequested())
                        && !r.unmatched().isEmpty()) {
                    throw new CommandLine.UnmatchedArgumentException(
                            r.commandSpec().commandLine(), r.unmatched());
                }
            }
            CommandLine.ParseResult leaf = parseResult;
            while (leaf.subcommand() != null) {
                leaf = leaf.subcommand();
            }
            if (leaf.commandSpec().userObject() instanceof BallastCommand bc) {
                if (bc.common().verbose) {
                    System.setProperty(LOG_PREFIX + "log.dev.ballast", "info");
                }
                CommandLine.ParseResult options = leaf;
                try {
                    RepositoryOption.apply(bc.common(), ctx.env(), options::hasMatchedOption);
                } catch (CliFailure f) {
                    // as a failure of the command itself: one sentence and its exit code (the handler below)
                    throw new CommandLine.ExecutionException(
                            options.commandSpec().commandLine(), f.getMessage(), f);
                }
                S3Credentials.warnIfSecretIsAnArgument(bc.common(), ctx.err());
                RepositoryOption.noteResticVariable(bc.common(), ctx.env(), options::hasMatchedOption, ctx.err());
            }
            return new CommandLine.RunLast().execute(parseResult);
        });
        cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            boolean verbose =
                    commandLine.getCommand() instanceof BallastCommand bc && bc.common() != null && bc.common().verbose;
            CliFailure failure = toFailure(ex);
            failure.details().forEach(line -> ctx.err().println(Errors.printable(line)));
            ctx.err().println("Error: " + Errors.printable(String.valueOf(failure.getMessage())));
            if (verbose && failure.getCause() != null) {
                ctx.err().print("Cause: ");
                failure.getCause().printStackTrace(ctx.err());
            } else if (!verbose
                    && failure.getCause() != null
                    && Errors.causeAddsTo(String.valueOf(failure.getMessage()), failure.getCause())) {
                ctx.err().println("(run with --verbose to see the cause)");
            }
            return failure.exitCode();
        });
        cl.setParameterExceptionHandler(Ballast::inputError);
        cl.setExitCodeExceptionMapper(ex -> ExitCodes.USAGE);
        return cl;
    }

    /** Gives every subcommand under {@code c} that has none {@code version} (picocli prints a command's own). */
    private static void versionEverywhere(CommandLine c, String[] version) {
        for (CommandLine sub : c.getSubcommands().values()) {
            if (sub.getCommandSpec().version().length == 0) {
                sub.getCommandSpec().version(version);
            }
            versionEverywhere(sub, version);
        }
    }

    /** restic's commands a restic user types out of habit, with what does that here (or that nothing does). */
    static final Map<String, String> RESTIC_COMMANDS = Map.ofEntries(
            Map.entry("snapshots", "restic's 'snapshots' is 'ballast list' here, the backups with their snapshots"),
            Map.entry("snapshot", "restic's 'snapshots' is 'ballast list' here, the backups with their snapshots"),
            Map.entry("version", "the version is 'ballast --version'"),
            Map.entry("rebuild-index", "restic's 'rebuild-index' is 'ballast repair index' here"),
            Map.entry("dump", "there is no 'dump': 'ballast restore NAME TARGET-DIR PATH' restores one file"),
            Map.entry("find", "there is no 'find': 'ballast ls NAME' lists a backup's files"),
            Map.entry("diff", "there is no 'diff': 'ballast ls NAME --manifest-version ID' lists a snapshot's files"),
            Map.entry("stats", "there is no 'stats': 'ballast list' gives each snapshot's files and size"),
            Map.entry(
                    "mount",
                    "there is no 'mount': 'ballast restore' writes a backup, or a part of it, to a" + " directory"));

    /** restic's global options a restic user types out of habit, with what does that here. */
    static final Map<String, String> RESTIC_OPTIONS = Map.ofEntries(
            Map.entry(
                    "--target", "the target directory is restore's second argument: 'ballast restore NAME TARGET-DIR'"),
            Map.entry(
                    "--json", "there is no JSON output; the exit code and one line per outcome are meant for scripts"),
            Map.entry(
                    "--dry-run",
                    "only 'forget' and 'prune' have a dry run here; a backup stores only what changed, and"
                            + " 'ballast ls NAME' lists what the last one holds"),
            Map.entry(
                    "--tag",
                    "there are no tags: a backup is named by --name (its directory's name by default), and each"
                            + " name keeps its own snapshots"),
            Map.entry(
                    "--host",
                    "snapshots are kept by backup name, not by host: back each machine up under a --name of its own"),
            Map.entry(
                    "--group-by",
                    "forget applies its policy to the snapshots of one backup name: 'ballast forget NAME --keep-last N'"),
            Map.entry(
                    "--files-from",
                    "a backup takes one directory; --exclude, .ballastignore files and --exclude-caches leave things"
                            + " out of it"),
            Map.entry(
                    "--exclude-if-present",
                    "there is no --exclude-if-present: --exclude-caches leaves out a folder holding a CACHEDIR.TAG, and"
                            + " a .ballastignore file lists what to leave out of its folder"),
            Map.entry("--iexclude", "there is no --iexclude: --exclude patterns match names with their case as given"),
            Map.entry(
                    "--verify",
                    "a restore always checks each chunk against its ID and each file's size; 'ballast verify NAME'"
                            + " checks a backup without restoring it"),
            Map.entry(
                    "--delete",
                    "a restore never removes anything from its target: restore into an empty directory for an exact"
                            + " copy"));

    /**
     * A command line that cannot be parsed: one sentence naming the input and what is accepted, the
     * closest command or option if one is close, and where the options are listed; never the whole
     * usage text (that is {@code --help}'s).
     */
    private static int inputError(CommandLine.ParameterException ex, String[] args) {
        CommandLine c = ex.getCommandLine();
        PrintWriter err = c.getErr();
        String message = ex.getMessage();
        String first = ex instanceof CommandLine.UnmatchedArgumentException u
                        && !u.getUnmatched().isEmpty()
                ? u.getUnmatched().get(0)
                : null;
        String resticWord = first == null ? null : first.split("=", 2)[0];
        if (resticWord != null && c.getCommandSpec().parent() == null && RESTIC_COMMANDS.containsKey(resticWord)) {
            // restic's words, typed out of habit: the way here, not picocli's nearest spelling (check -> unlock).
            err.println("Error: Unknown command '" + Errors.printable(first) + "': " + RESTIC_COMMANDS.get(resticWord)
                    + ".");
            err.println("'ballast --help' lists the accepted commands and options.");
            return ExitCodes.USAGE;
        }
        if (resticWord != null && RESTIC_OPTIONS.containsKey(resticWord)) {
            err.println(
                    "Error: Unknown option '" + Errors.printable(first) + "': " + RESTIC_OPTIONS.get(resticWord) + ".");
            err.println("'" + c.getCommandSpec().qualifiedName() + " --help' lists the accepted "
                    + (c.getCommandSpec().parent() == null ? "commands and options." : "options."));
            return ExitCodes.USAGE;
        }
        String refusal = OptionValues.refusal(ex);
        if (refusal != null) {
            // A value the option does not take: the sentence says what it takes, so no pointer to --help.
            err.println("Error: " + Errors.printable(refusal));
            return ExitCodes.USAGE;
        }
        if (ex instanceof CommandLine.MissingParameterException) {
            // picocli checks for missing arguments before it names unknown options: 'backup --stdin' said
            // "Missing the directory to back up" and never that --stdin is no option (a README-only newcomer's)
            List<String> unknown = unknownOptions(c.getCommandSpec(), args);
            String hint =
                    unknown.size() == 1 ? RESTIC_OPTIONS.get(unknown.get(0).split("=", 2)[0]) : null;
            if (hint != null) {
                err.println("Error: Unknown option '" + Errors.printable(unknown.get(0)) + "': " + hint + ".");
                err.println("'" + c.getCommandSpec().qualifiedName() + " --help' lists the accepted options.");
                return ExitCodes.USAGE;
            }
            if (!unknown.isEmpty()) {
                err.println("Error: " + Errors.printable(unknownOptionsSentence(unknown)));
                err.println("'" + c.getCommandSpec().qualifiedName() + " --help' lists the accepted options.");
                return ExitCodes.USAGE;
            }
        }
        if (ex instanceof CommandLine.MissingParameterException missing) {
            String sentence = missing(c.getCommandSpec(), missing.getMissing());
            if (sentence != null) {
                // what is missing, and how to give it: nothing left for --help to add
                err.println("Error: " + Errors.printable(sentence));
                return ExitCodes.USAGE;
            }
        }
        if (ex instanceof CommandLine.UnmatchedArgumentException unmatched
                && c.getCommandSpec().parent() == null
                && !unmatched.getUnmatched().isEmpty()
                && !unmatched.getUnmatched().get(0).startsWith("-")) {
            message = "Unknown command '" + unmatched.getUnmatched().get(0) + "': pass one of "
                    + String.join(", ", COMMANDS.keySet()) + ".";
        } else if (ex instanceof CommandLine.UnmatchedArgumentException unmatched
                && !c.getSubcommands().isEmpty()
                && c.getCommandSpec().positionalParameters().isEmpty()
                && !unmatched.getUnmatched().isEmpty()
                && !unmatched.getUnmatched().get(0).startsWith("-")) {
            // 'ballast key bogus': a subcommand misspelt or unknown, not an argument too many
            message = "Unknown subcommand '" + unmatched.getUnmatched().get(0) + "' of '"
                    + c.getCommandSpec().qualifiedName() + "': pass one of " + subcommands(c) + ".";
        } else if (ex instanceof CommandLine.UnmatchedArgumentException unmatched
                && !unmatched.getUnmatched().isEmpty()
                && unmatched.getUnmatched().get(0).startsWith("-")) {
            // picocli names every argument after an unknown option unmatched too: "Unknown options:
            // '--compression', '/tmp/src'" read as if the directory were the fault (a README-only newcomer's).
            List<String> options = unmatched.getUnmatched().stream()
                    .filter(a -> a.startsWith("-") && a.length() > 1)
                    .toList();
            message = unknownOptionsSentence(options);
        } else if (ex instanceof CommandLine.UnmatchedArgumentException unmatched
                && !unmatched.getUnmatched().isEmpty()
                && !unmatched.getUnmatched().get(0).startsWith("-")) {
            // picocli says "Unmatched argument at index 2"; say which argument is one too many.
            String extra = unmatched.getUnmatched().get(0);
            // restic takes a snapshot ID as an argument (restic ls ID); here it is an option's value.
            boolean snapshotId = c.getCommandSpec().findOption("--manifest-version") != null
                    && (extra.equals("latest") || extra.matches("[0-9a-fA-F]{6,}"));
            message = "'" + c.getCommandSpec().qualifiedName() + "' takes " + positionals(c.getCommandSpec()) + "; '"
                    + extra + "' is one argument too many"
                    + (snapshotId ? " (a snapshot is chosen with --manifest-version " + extra + ")." : ".");
        }
        err.println("Error: " + Errors.printable(message));
        if (ex instanceof CommandLine.UnmatchedArgumentException u
                && !u.getUnmatched().isEmpty()) {
            String near = nearest(c.getCommandSpec(), u.getUnmatched().get(0));
            if (near != null) {
                err.println("Did you mean '" + near + "'?");
            }
        }
        err.println("'" + c.getCommandSpec().qualifiedName() + " --help' lists the accepted "
                + (c.getCommandSpec().parent() == null
                        ? "commands and options."
                        : c.getSubcommands().isEmpty() ? "options." : "subcommands and options."));
        return ExitCodes.USAGE;
    }

    /**
     * The command or option of {@code spec} nearest to {@code typed}, as {@code typed} would be written
     * ({@code "ballast restore"}, {@code "--exclude"}), when it is a slip of the keys away: at most one
     * edit (an insertion, deletion, substitution or swap of two neighbours) per three characters typed, and
     * at most two. picocli's own suggestions (the nearest by letter pairs) offered {@code ballast help or
     * ballast backup} for {@code self-update} and {@code restore or init or repair} for {@code rewrite}
     * (a README-only newcomer's).
     */
    static @Nullable String nearest(CommandSpec spec, String typed) {
        String word = typed.split("=", 2)[0];
        List<String> candidates = new ArrayList<>();
        if (word.startsWith("-")) {
            spec.options().forEach(o -> candidates.addAll(List.of(o.names())));
        } else {
            candidates.addAll(spec.subcommands().keySet());
        }
        int limit = Math.min(2, Math.max(1, word.length() / 3));
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : candidates) {
            int d = editDistance(word, candidate);
            if (d <= limit && d < bestDistance) {
                best = candidate;
                bestDistance = d;
            }
        }
        if (best == null) {
            return null;
        }
        return word.startsWith("-") ? best : spec.qualifiedName() + " " + best;
    }

    /** Edits from {@code a} to {@code b}: insertions, deletions, substitutions and swaps of neighbours. */
    static int editDistance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }

    /** "Unknown option '--x'." or "Unknown options '--x', '--y'.": the options named alone. */
    private static String unknownOptionsSentence(List<String> options) {
        return (options.size() == 1 ? "Unknown option " : "Unknown options ")
                + options.stream().map(o -> "'" + o + "'").collect(java.util.stream.Collectors.joining(", "))
                + ".";
    }

    /**
     * The arguments of {@code args} before a {@code --} that look like options ({@code -x}, {@code --xy},
     * {@code --xy=v}) and that {@code spec} has no option of, in order; a lone {@code -} (standard input,
     * by convention) is none.
     */
    static List<String> unknownOptions(CommandSpec spec, String[] args) {
        List<String> unknown = new ArrayList<>();
        for (String a : args) {
            if (a.equals("--")) {
                break;
            }
            if (a.length() < 2 || !a.startsWith("-") || a.matches("-\\d.*")) {
                continue; // not an option; a negative number is a value
            }
            // '-rREPO' and '-vq': a short option with its value, or several, known by the first
            String name = a.startsWith("--") ? a.split("=", 2)[0] : a.substring(0, 2);
            if (spec.findOption(name) == null && spec.subcommands().get(a) == null) {
                unknown.add(a);
            }
        }
        return unknown;
    }

    /** What each positional parameter is, by its label, for the sentence naming it missing. */
    private static final Map<String, String> POSITIONALS = Map.of(
            "DIR", "the directory to back up",
            "NAME", "the backup's name",
            "TARGET-DIR", "the directory to restore into",
            "NAME/PATH", "the backup's name and the file's path in it (e.g. jdk/lib/modules)",
            "index|packs", "what to repair, 'index' or 'packs'",
            "ID", "the ID of the key to remove (its first characters are enough)");

    /**
     * One sentence for parameters missing from {@code spec}'s command line: what each is and how to pass it
     * ("Missing the ID of the key to remove ...: pass it as 'ballast key remove ID'; 'ballast key list' lists
     * the IDs."), or for an option, the value it needs; null for anything else.
     */
    static @Nullable String missing(CommandSpec spec, List<CommandLine.Model.ArgSpec> missing) {
        int from = Integer.MAX_VALUE;
        for (CommandLine.Model.ArgSpec a : missing) {
            if (a instanceof CommandLine.Model.OptionSpec o) {
                return o.longestName() + " was given without its " + o.paramLabel() + "; pass it as " + o.longestName()
                        + " " + o.paramLabel() + ".";
            }
            from = Math.min(
                    from, ((CommandLine.Model.PositionalParamSpec) a).index().min());
        }
        // picocli names the first missing one; the required ones after it are missing too
        List<String> what = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        for (CommandLine.Model.PositionalParamSpec p : spec.positionalParameters()) {
            if (p.index().min() >= from && p.arity().min() > 0) {
                if (!POSITIONALS.containsKey(p.paramLabel())) {
                    return null;
                }
                what.add(POSITIONALS.get(p.paramLabel()));
                labels.add(p.paramLabel());
            }
        }
        if (what.isEmpty()) {
            return null;
        }
        String where = labels.contains("ID")
                ? "; 'ballast key list' lists the IDs"
                : labels.contains("NAME") || labels.contains("NAME/PATH") ? "; 'ballast list' lists the names" : "";
        return "Missing " + String.join(" and ", what) + ": pass " + (what.size() == 1 ? "it" : "them") + " as '"
                + spec.qualifiedName() + " " + positionals(spec) + "'" + where + ".";
    }

    /** Gives every subcommand, at any depth, the exit-code list of its own (ExitCodes.helpLines). */
    private static void footers(CommandLine parent) {
        for (CommandLine sub : parent.getSubcommands().values()) {
            sub.getCommandSpec()
                    .usageMessage()
                    .footer(ExitCodes.helpLines(sub.getCommandSpec().qualifiedName()));
            footers(sub);
        }
    }

    /** The subcommands of {@code c} with their arguments, as its usage names them: "list, add, remove ID, passwd". */
    private static String subcommands(CommandLine c) {
        List<String> names = new ArrayList<>();
        c.getSubcommands().forEach((name, sub) -> {
            String args = positionals(sub.getCommandSpec());
            names.add(args.equals("no arguments") ? name : name + " " + args);
        });
        return String.join(", ", names);
    }

    /** The positional parameters of {@code spec} as its usage line names them, e.g. "DIR" or "NAME TARGET-DIR [PATH...]". */
    private static String positionals(CommandLine.Model.CommandSpec spec) {
        List<String> labels = new ArrayList<>();
        for (CommandLine.Model.PositionalParamSpec p : spec.positionalParameters()) {
            String label = p.paramLabel();
            labels.add(p.arity().max() > 1 ? "[" + label + "...]" : p.arity().min() == 0 ? "[" + label + "]" : label);
        }
        return labels.isEmpty() ? "no arguments" : String.join(" ", labels);
    }

    /**
     * The terminal stays quiet: warnings and errors only, on standard error, one line each; a call
     * that gave up is reported by the command itself in one sentence, so the HTTP client's own log
     * shows errors only. {@code --verbose} raises Ballast's loggers to INFO. Settings given with
     * {@code -D} (BALLAST_JAVA_OPTS) win.
     */
    private static void quietLogs() {
        setIfAbsent(LOG_PREFIX + "logFile", "System.err");
        setIfAbsent(LOG_PREFIX + "defaultLogLevel", "warn");
        setIfAbsent(LOG_PREFIX + "log.dev.ballast.http", "error");
        // sqlite-jdbc logs each way it tries to load its native library that fails, with a stack trace, before it
        // tries the next: a command that ended at once (another one writing to the store) while its start-up
        // thread loaded the library printed "ERROR SQLiteJDBCLoader ... UnsatisfiedLinkError" and 20 lines of
        // trace (CliNewStoreIT). A library that cannot be loaded at all fails the store's opening, which says so.
        setIfAbsent(LOG_PREFIX + "log.org.sqlite", "off");
        setIfAbsent(LOG_PREFIX + "showThreadName", "false");
        setIfAbsent(LOG_PREFIX + "showShortLogName", "true");
    }

    private static void setIfAbsent(String property, String value) {
        if (System.getProperty(property) == null) {
            System.setProperty(property, value);
        }
    }

    private static CliFailure toFailure(Exception ex) {
        if (ex instanceof BackupException f) {
            return CliFailure.of(f);
        }
        if (ex instanceof StorageException se) {
            return Errors.toFailure(se, "the object store", null);
        }
        if (ex instanceof IOException || ex instanceof UncheckedIOException) {
            return new CliFailure(
                    ExitCodes.INCOMPLETE,
                    "A local file operation failed (" + Errors.describeIo(ex)
                            + "); check the path and its permissions and run the command again.",
                    ex);
        }
        return new CliFailure(
                ExitCodes.INCOMPLETE,
                "The command failed unexpectedly (" + Errors.rootMessage(ex)
                        + "); run it again with --verbose and report the cause if it repeats.",
                ex);
    }

    /** Builds commands with the context passed to their constructor. */
    private record ContextFactory(CliContext ctx) implements IFactory {
        @Override
        public <K> K create(Class<K> cls) throws Exception {
            if (BallastCommand.class.isAssignableFrom(cls)) {
                Constructor<K> c = cls.getDeclaredConstructor(CliContext.class);
                return c.newInstance(ctx);
            }
            if (cls == Ballast.class) {
                return cls.cast(new Ballast());
            }
            return CommandLine.defaultFactory().create(cls);
        }
    }
}
