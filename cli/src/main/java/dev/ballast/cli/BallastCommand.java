package dev.ballast.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;

/** What every subcommand shares: the common options and the context it runs in. */
abstract class BallastCommand implements Callable<Integer> {
    final CliContext ctx;

    @Mixin
    CommonOptions common;

    BallastCommand(CliContext ctx) {
        this.ctx = ctx;
    }

    CommonOptions common() {
        return common;
    }

    /** The store's counters every summary ends with (none for the local store). */
    static String counters(StoreSession session) {
        return session.counters();
    }
}
