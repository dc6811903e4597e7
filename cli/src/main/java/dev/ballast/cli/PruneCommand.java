package dev.ballast.cli;

import dev.ballast.backup.content.PackedContent;
import dev.ballast.backup.pack.MaxUnused;
import dev.ballast.backup.retention.PackedPrune;
import dev.ballast.backup.retention.Pruner;
import dev.ballast.backup.snapshot.Manifests;
import dev.ballast.storage.cache.LastKnownGoodStore;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.local.LocalObjectStore;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "prune",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        description = "Delete the stored versions of backup files that no manifest version references any more (after "
                + "'forget'), for every backup in the bucket or the NAMEs given. Safe beside a running backup: a name "
                + "with a backup in progress is left alone (reported, exit 1), and no version written within --grace "
                + "before the prune started is deleted. --dry-run lists what would be deleted and deletes nothing. "
                + "In an encrypted repository (ballast init) prune looks at every backup name whatever NAMEs are given "
                + "(a chunk may be shared by several), deletes the packs of chunks no snapshot uses and repacks those "
                + "holding the most unused space until what is left is within --max-unused; --dry-run says how many "
                + "packs it would delete and repack and writes nothing, not even its marker.")
final class PruneCommand extends BallastCommand {
    @Parameters(paramLabel = "NAME", arity = "0..*", description = "Prune only these backups (default: all).")
    List<String> names = List.of();

    @Option(
            names = {"-n", "--dry-run"},
            description = "List what would be deleted; delete nothing.")
    boolean dryRun;

    @Option(
            names = "--grace",
            paramLabel = "DURATION",
            defaultValue = "1h",
            converter = GraceConverter.class,
            description =
                    "Never delete a version written less than this long before the prune started, e.g. 1h, 1h30m, 30m, 0s "
                            + "(default: ${DEFAULT-VALUE}): the margin for the clock difference between this machine and the store.")
    Duration grace;

    @Option(
            names = "--max-unused",
            paramLabel = "LIMIT",
            converter = MaxUnusedConverter.class,
            description = "In an encrypted repository: the unused space the packs may keep, as restic's --max-unused: "
                    + "a percentage of the bytes of the chunks they hold (default: 5%%), a size such as 0, 500M or 2G, "
                    + "or unlimited. Packs holding the most unused bytes are repacked until what is left is within it.")
    @Nullable
    MaxUnused maxUnused;

    PruneCommand(CliContext ctx) {
        super(ctx);
    }

    @Override
    public Integer call() {
        names = names.stream().map(Manifests::checkExistingName).toList();
        try (StoreSession session =
                StoreSession.open(common, ctx, dryRun ? StoreSession.Access.READ : StoreSession.Access.REMOVE)) {
            if (!names.isEmpty()) {
                requireBackups(session);
            }
            if (Repository.masterKey(session) != null) {
                if (!names.isEmpty()) {
                    ctx.err()
                            .println("Note: in an encrypted repository chunks are shared by every backup name, so"
                                    + " prune looks at all of them, not only "
                                    + String.join(
                                            ", ",
                                            names.stream()
                                                    .map(n -> "'" + Errors.printable(n) + "'")
                                                    .toList())
                                    + ".");
                }
                return packed(ctx, session, grace, limit(maxUnused), dryRun);
            }
            notePacksOnly(ctx, maxUnused);
            StoreSpace.Measure before = dryRun ? null : StoreSpace.bytesOf(session.localDirectory());
            Pruner.Result r = Errors.translate(
                    session.where(),
                    null,
                    () -> Pruner.of(session.objects(), ctx.clock(), grace, dryRun)
                            .run(names.isEmpty() ? null : Set.copyOf(names)));
            int code = report(ctx, r, common.verbose, session.where(), grace);
            if (!dryRun) {
                compact(ctx, session);
                ctx.out()
                        .println(StoreSpace.report(
                                before, StoreSpace.bytesOf(session.localDirectory()), r.deletedBytes()));
            }
            return code;
        }
    }

    /**
     * Refuses names the repository holds no backup, run marker or (earlier format) object of ({@code prune nosuchname} pruned everything, exit 0,
     * with a note that prune looks at every name): a name that names nothing is a mistake to say, not to
     * act past.
     */
    private void requireBackups(StoreSession session) {
        try (Repository repo = Repository.of(session)) {
            Errors.translate(session.where(), null, () -> {
                java.util.List<String> known = Manifests.names(repo.metadata()).names();
                for (String n : names) {
                    // a name whose only trace is a killed run's marker (or, in the earlier format, its uploads)
                    // is one prune cleans up after
                    if (!known.contains(n)
                            && repo.metadata()
                                    .listVersions(dev.ballast.backup.run.RunMarker.prefix(n))
                                    .isEmpty()
                            && repo.metadata().list(n + "/").isEmpty()) {
                        throw Manifests.noSuchBackup(repo.metadata(), n, session.where());
                    }
                }
                return null;
            });
        }
    }

    /**
     * Gives back the space of small files' contents that are no longer referenced, in the local
     * store (its pack files, as {@code restic prune} repacks); an S3 bucket frees the space of each
     * deleted version itself.
     */
    static void compact(CliContext ctx, StoreSession session) {
        LocalObjectStore local = local(session);
        if (local != null) {
            LocalObjectStore.Compaction c = Errors.translate(session.where(), null, local::compact);
            if (c.packsRemoved() > 0) {
                ctx.out()
                        .println("Repacked small files' contents: " + c.packsRemoved() + " pack file"
                                + (c.packsRemoved() == 1 ? "" : "s") + " removed, "
                                + StoreSpace.exact(c.bytesReclaimed())
                                + " given back.");
            }
        }
    }

    /** The session's local store, or null for an S3 bucket. */
    private static @Nullable LocalObjectStore local(StoreSession session) {
        ObjectStore objects = session.objects();
        if (objects instanceof LastKnownGoodStore cached) {
            objects = cached.delegate();
        }
        return objects instanceof LocalObjectStore local ? local : null;
    }

    /** The limit --max-unused gave, or restic's default. */
    static MaxUnused limit(@Nullable MaxUnused given) {
        return given == null ? MaxUnused.DEFAULT : given;
    }

    /** Says that --max-unused, when given, changes nothing in a store of the earlier formats. */
    static void notePacksOnly(CliContext ctx, @Nullable MaxUnused given) {
        if (given != null) {
            ctx.err()
                    .println("Note: --max-unused applies to the packs of an encrypted repository (ballast init); this"
                            + " store of the earlier format has none, so it changes nothing here.");
        }
    }

    /**
     * Prunes a repository of format 3 ({@link PackedPrune}): the packs no snapshot of any name needs,
     * past the grace period, and those holding the most unused space until what is left is within
     * {@code maxUnused}; prints what it did and returns the exit code.
     */
    static int packed(CliContext ctx, StoreSession session, Duration grace, MaxUnused maxUnused, boolean dryRun) {
        StoreSpace.Measure before = dryRun ? null : StoreSpace.bytesOf(session.localDirectory());
        try (Repository repo = Repository.of(session)) {
            PackedPrune.Result r = Errors.translate(
                    session.where(),
                    null,
                    () -> dryRun
                            ? PackedPrune.plan(repo.sealed(), repo.content(4), ctx.clock(), grace, maxUnused)
                            : PackedPrune.run(repo.sealed(), repo.content(4), ctx.clock(), grace, maxUnused));
            r.skipped().forEach(why -> ctx.err().println("Not pruned: " + Errors.printable(why) + "."));
            if (!r.skipped().isEmpty()) {
                ctx.err()
                        .println("Prune of " + session.where() + (dryRun ? " would delete" : " deleted")
                                + " nothing; run it again once that is settled.");
                return ExitCodes.INCOMPLETE;
            }
            ctx.out().println(packedSummary(r, grace, dryRun));
            ctx.out().println(unusedLeft(r.pruned(), maxUnused, grace, dryRun));
            if (!dryRun) {
                // Multipart uploads of killed runs (kill -9 mid-pack): their parts take space but are no object, so
                // no listing of data/ finds them; a run still going started its upload after the prune's check
                int aborted = Errors.translate(
                        session.where(),
                        null,
                        () -> session.abortIncompleteUploads(
                                ctx.clock().instant().minus(grace)));
                if (aborted > 0) {
                    ctx.out()
                            .println("Aborted " + Summary.count(aborted, "incomplete upload")
                                    + " that killed runs left in the bucket (older than the grace period, "
                                    + Summary.duration(grace) + ").");
                }
            }
            LocalObjectStore local = local(session);
            if (before != null && local != null) {
                // The repository's small objects (index files, manifest parts) are in the local store's own pack
                // files: they are rewritten until they hold only what is referenced, and the space is measured.
                Errors.translate(session.where(), null, local::compactFully);
                ctx.out()
                        .println(StoreSpace.report(
                                before, StoreSpace.bytesOf(session.localDirectory()), r.bytesFreed()));
            }
            if (r.pruned().liveMissing() > 0) {
                ctx.err()
                        .println("Warning: " + r.pruned().liveMissing()
                                + " chunk(s) a snapshot references are in no pack in"
                                + " the store, or in none where they open (a pack the index names is missing or"
                                + " damaged, or they were never indexed): the"
                                + " snapshots that use them are damaged until a backup of a source that still has the"
                                + " files stores them again; 'ballast verify' names the files.");
                return ExitCodes.INTEGRITY;
            }
            return ExitCodes.OK;
        }
    }

    /**
     * The line that ends a prune of format 3: the packs deleted and written and the bytes they gave back,
     * then, apart, the manifest parts deleted and their bytes (a prune that deleted no pack gives those
     * back too), and the packs --grace kept that would otherwise have gone.
     */
    static String packedSummary(PackedPrune.Result r, Duration grace, boolean dryRun) {
        PackedContent.Pruned p = r.pruned();
        int parts = r.parts().parts();
        int young = p.packsKeptYoung();
        return (dryRun ? "Prune dry run: would delete " : "Prune done: deleted ")
                + Summary.count(p.packsDeleted(), "pack") + (dryRun ? ", write about " : ", wrote ")
                + Summary.count(p.packsWritten(), "pack") + " of repacked chunks, "
                + (dryRun ? "about " : "") + StoreSpace.exact(p.bytesFreed())
                + (dryRun ? " would be given back by packs" : " given back by packs")
                + (young == 0
                        ? ""
                        : " (" + Summary.count(young, "pack") + " written within --grace " + graceText(grace)
                                + " that no snapshot needs " + (dryRun ? "would be" : young == 1 ? "is" : "are")
                                + " kept until " + (young == 1 ? "it is" : "they are")
                                + " older than that: a backup running now may need " + (young == 1 ? "it" : "them")
                                + ")")
                + (parts == 0
                        ? ""
                        : (dryRun ? "; would delete " : "; deleted ") + Summary.count(parts, "manifest part")
                                + " no snapshot uses, holding "
                                + StoreSpace.exact(r.parts().bytes()))
                // parts of forgotten snapshots written within the grace: a first prune after a forget
                // deleted nothing and said nothing of them (a README user's)
                + (r.parts().keptYoung() == 0
                        ? ""
                        : "; " + Summary.count(r.parts().keptYoung(), "manifest part") + " no snapshot uses, written"
                                + " within --grace " + graceText(grace) + ", "
                                + (dryRun ? "would be" : r.parts().keptYoung() == 1 ? "is" : "are")
                                + " kept until older than that (--grace 0s deletes "
                                + (r.parts().keptYoung() == 1 ? "it" : "them") + " when no backup is running)")
                + (dryRun ? " (nothing was written or deleted)." : ".");
    }

    /**
     * The line after {@link #packedSummary}: the unused space left in the packs, its share of the bytes
     * they hold, and why the prune left it (restic's "unused size after prune"): within --max-unused, or
     * over it only because packs written within --grace are kept as they are.
     */
    static String unusedLeft(PackedContent.Pruned p, MaxUnused maxUnused, Duration grace, boolean dryRun) {
        long unused = p.unusedBytesLeft();
        long stored = p.storedBytesLeft();
        String share = String.format(java.util.Locale.ROOT, "%.1f%%", stored == 0 ? 0.0 : unused * 100.0 / stored);
        String line = (dryRun ? "Unused space that would be left in packs: " : "Unused space left in packs: ")
                + StoreSpace.exact(unused) + ", " + share + " of their " + StoreSpace.exact(stored);
        if (unused == 0) {
            return line + ".";
        }
        if (maxUnused.allows(unused, stored)) {
            // how to free it, unless packs the grace keeps may hold some (the summary names them)
            return line + "; --max-unused " + maxUnused + " allows it"
                    + (p.packsKeptYoung() == 0 ? " (--max-unused 0 repacks until none is left)." : ".");
        }
        // The packs the prune may touch are within the limit (it repacks until they are): the rest is in packs
        // --grace keeps, which the limit does not count.
        return line + "; over --max-unused " + maxUnused + " because packs written within --grace " + graceText(grace)
                + " hold unused space too: they " + (dryRun ? "would be" : "are") + " kept until they are older than"
                + " that.";
    }

    /** Prints what a prune did and returns its exit code. */
    static int report(CliContext ctx, Pruner.Result r, boolean verbose, String where, Duration grace) {
        String verb = r.dryRun() ? "Would delete" : "Deleted";
        for (Pruner.NameResult n : r.names()) {
            if (r.dryRun() || verbose) {
                n.deleted()
                        .forEach(v -> ctx.out()
                                .println("  " + verb.toLowerCase(java.util.Locale.ROOT) + " "
                                        + Errors.printable(v.key()) + " version " + v.versionId() + " ("
                                        + (v.deleteMarker() ? "delete marker" : v.size() + " B") + ", "
                                        + v.lastModified() + ")"));
            }
            if (n.skippedBecause() == null) {
                ctx.out()
                        .println("'" + n.name() + "': " + verb.toLowerCase(java.util.Locale.ROOT) + " "
                                + Summary.count(n.deleted().size(), "unreferenced version") + "; kept "
                                + n.referenced() + " referenced by a manifest"
                                + (n.tooNew() > 0
                                        ? " and " + n.tooNew() + " written within the grace period (--grace "
                                                + graceText(grace) + "; --grace 0s prunes them too)"
                                        : "")
                                + ".");
            }
        }
        if (!r.staleMarkers().isEmpty()) {
            long markers = r.staleMarkers().stream()
                    .map(dev.ballast.storage.object.VersionEntry::key)
                    .distinct()
                    .count();
            ctx.out()
                    .println((r.dryRun() ? "Would remove " : "Removed ")
                            + Summary.count(markers, "stale run marker")
                            + " of backups that stopped without removing theirs.");
        }
        ctx.out()
                .println((r.dryRun() ? "Prune dry run: would delete " : "Prune done: deleted ")
                        + Summary.count(r.deletedVersions(), "version") + " holding "
                        + StoreSpace.exact(r.deletedBytes()) + " of file contents"
                        + (r.dryRun()
                                ? " (nothing was deleted; the space a prune gives back is at most that: contents "
                                        + "kept versions also hold stay)."
                                : "."));
        List<Pruner.NameResult> skipped = r.skipped();
        skipped.forEach(n -> ctx.err().println("Not pruned: '" + n.name() + "' because " + n.skippedBecause() + "."));
        if (!skipped.isEmpty()) {
            ctx.err()
                    .println("Prune of " + where + " left " + Summary.count(skipped.size(), "backup name")
                            + " alone (first: '"
                            + skipped.get(0).name() + "'); run it again once their backups have finished.");
            return ExitCodes.INCOMPLETE;
        }
        return ExitCodes.OK;
    }

    /** A grace period as --grace takes it: whole hours, minutes or seconds. */
    static String graceText(Duration grace) {
        long s = grace.getSeconds();
        if (s % 3600 == 0) {
            return s / 3600 + "h";
        }
        return s % 60 == 0 ? s / 60 + "m" : s + "s";
    }

    /** A limit of unused space, as restic's --max-unused takes it ({@link MaxUnused#parse}). */
    static final class MaxUnusedConverter implements picocli.CommandLine.ITypeConverter<MaxUnused> {
        @Override
        public MaxUnused convert(String value) {
            try {
                return MaxUnused.parse(value);
            } catch (IllegalArgumentException e) {
                throw new picocli.CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

    /** A grace period: as --timeout takes it ({@code 1h}, {@code 1h30m}, {@code 30m}, {@code PT1H}), zero allowed. */
    static final class GraceConverter implements picocli.CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            String v = value.trim();
            if (v.equals("0")) {
                return Duration.ZERO;
            }
            Duration d = CommonOptions.DurationConverter.parse(v);
            // At most ten years: a grace reaching before the epoch means nothing, and a negative one would let
            // prune delete what a backup started after it wrote.
            if (d == null || d.isNegative() || d.toHours() > MAX_GRACE_HOURS) {
                throw new picocli.CommandLine.TypeConversionException("'" + value + "' is not a grace period; give"
                        + " one from 0s to " + MAX_GRACE_HOURS + "h, like 1h, 1h30m, 30m, 0s or PT1H");
            }
            return d;
        }

        static final long MAX_GRACE_HOURS = 10L * 366 * 24;
    }
}
