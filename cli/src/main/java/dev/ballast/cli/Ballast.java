package dev.ballast.cli;

import dev.ballast.storage.StorageException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IFactory;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code ballast} command: back up a directory to versioned S3 and restore it, verified.
 *
 * <p>Without {@code --endpoint} every command starts an embedded S3 server with its data under
 * {@code ~/.ballast/} for the duration of the command. Exit codes are listed in {@link ExitCodes}
 * and at the end of {@code --help}.
 */
@Command(name = "ballast", mixinStandardHelpOptions = true, version = "ballast 0.1.0",
    description = {
      "Back up directories to versioned S3 and restore them byte-identical, through Ballast's resilient "
          + "HTTP client and storage facade. Without --endpoint an embedded S3 server keeps the data under "
          + "~/.ballast (or --data-dir) for the duration of each command, so backups need no setup.",
      "",
      "  ballast backup ~/photos",
      "  ballast restore photos /tmp/photos-restored",
      ""},
    subcommands = {BackupCommand.class, RestoreCommand.class, ListCommand.class, VerifyCommand.class,
        VersionsCommand.class, CommandLine.HelpCommand.class})
public final class Ballast implements Callable<Integer> {
  private static final long SHUTDOWN_WAIT_SECONDS = 30;

  @Spec
  CommandSpec spec;

  private Ballast() {}

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    err.println("Missing command: pass one of backup, restore, list, verify, versions.");
    spec.commandLine().usage(err);
    return ExitCodes.USAGE;
  }

  /** Runs the command and exits with its exit code; Ctrl-C stops it cleanly (see {@link ExitCodes}). */
  public static void main(String[] args) {
    Cancellation cancellation = new Cancellation();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      cancellation.cancel();
      try {
        // Let the command stop after its current file, report and write no complete-looking manifest.
        cancellation.awaitFinished(SHUTDOWN_WAIT_SECONDS, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "ballast-shutdown"));
    int code;
    try {
      code = run(args, CliContext.system(cancellation));
    } finally {
      cancellation.finished();
    }
    System.exit(code);
  }

  /**
   * Runs one command in this JVM with {@code ctx}'s streams and services, as {@code ballast} would.
   *
   * @return the exit code, one of {@link ExitCodes}
   */
  public static int run(String[] args, CliContext ctx) {
    CommandLine cl = commandLine(ctx);
    return cl.execute(args);
  }

  static CommandLine commandLine(CliContext ctx) {
    CommandLine cl = new CommandLine(new Ballast(), new ContextFactory(ctx));
    cl.setOut(new PrintWriter(ctx.out(), true));
    cl.setErr(new PrintWriter(ctx.err(), true));
    cl.getCommandSpec().usageMessage().footer(ExitCodes.HELP_LINES);
    cl.getSubcommands().values().forEach(sub -> sub.getCommandSpec().usageMessage().footer(ExitCodes.HELP_LINES));
    cl.setExecutionStrategy(parseResult -> {
      CommandLine.ParseResult leaf = parseResult;
      while (leaf.subcommand() != null) {
        leaf = leaf.subcommand();
      }
      if (leaf.commandSpec().userObject() instanceof BallastCommand bc) {
        if (bc.common().verbose) {
          System.setProperty("ballast.log.level", "INFO");
        }
        S3Credentials.warnIfSecretIsAnArgument(bc.common(), ctx.err());
      }
      return new CommandLine.RunLast().execute(parseResult);
    });
    cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
      boolean verbose = commandLine.getCommand() instanceof BallastCommand bc && bc.common() != null && bc.common().verbose;
      CliFailure failure = toFailure(ex);
      ctx.err().println("Error: " + Errors.printable(String.valueOf(failure.getMessage())));
      if (verbose && failure.getCause() != null) {
        ctx.err().print("Cause: ");
        failure.getCause().printStackTrace(ctx.err());
      } else if (!verbose && failure.getCause() != null) {
        ctx.err().println("(run with --verbose to see the cause)");
      }
      return failure.exitCode();
    });
    cl.setExitCodeExceptionMapper(ex -> ExitCodes.USAGE);
    return cl;
  }

  private static CliFailure toFailure(Exception ex) {
    if (ex instanceof CliFailure f) {
      return f;
    }
    if (ex instanceof StorageException se) {
      return Errors.toFailure(se, "the object store", null);
    }
    if (ex instanceof IOException || ex instanceof UncheckedIOException) {
      return new CliFailure(ExitCodes.INCOMPLETE, "A local file operation failed (" + Errors.describeIo(ex)
          + "); check the path and its permissions and run the command again.", ex);
    }
    return new CliFailure(ExitCodes.INCOMPLETE, "The command failed unexpectedly (" + Errors.rootMessage(ex)
        + "); run it again with --verbose and report the cause if it repeats.", ex);
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
