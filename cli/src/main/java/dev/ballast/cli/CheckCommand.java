package dev.ballast.cli;

import dev.ballast.backup.CheckResult;
import dev.ballast.backup.keys.CipherWarmUp;
import dev.ballast.backup.retention.PackedRepair;
import dev.ballast.backup.snapshot.Manifests;
import dev.ballast.backup.snapshot.SealedStore;
import dev.ballast.backup.snapshot.SnapshotTime;
import dev.ballast.backup.verify.DataSubset;
import dev.ballast.backup.verify.RepositoryCheck;
import dev.ballast.storage.object.VersionEntry;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
        name = "check",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        description = "Check a whole encrypted repository, as 'restic check' does, and write nothing: every pack its"
                + " index names is present with the size the index implies, and every version of every backup's"
                + " snapshot has every chunk it needs in a pack; with --read-data every pack is also read whole and"
                + " every chunk opened and matched against its ID (--read-data-subset: part of them). Exit 0 when"
                + " nothing is damaged or missing, 4 when something is (each object and snapshot named, with what to"
                + " run), 3 when the store is unavailable. Unlike 'ballast verify NAME', which also drops the damaged"
                + " chunks it finds from the index so the next backup stores them again, check only reports: it can"
                + " run beside backups, on a read-only store, or with credentials that cannot write.")
final class CheckCommand extends BallastCommand {
    /** Files named per damaged snapshot before "and N more". */
    private static final int FILES_SHOWN = 5;

    @Option(names = "--read-data", description = "Read every pack whole and check every chunk in it.")
    boolean readData;

    @Option(
            names = "--read-data-subset",
            paramLabel = "SUBSET",
            description = "Read only part of the packs, as restic's check: n/t (the n-th of t fixed groups of packs;"
                    + " 1/t to t/t read every pack once), x%% (each pack with that chance) or a size such as 500M"
                    + " (each pack with the chance that reads about that much).")
    String readDataSubset;

    @Mixin
    TransferOptions transferOptions;

    CheckCommand(CliContext ctx) {
        super(ctx);
    }

    @Override
    public Integer call() {
        if (readData && readDataSubset != null) {
            throw new CliFailure(
                    ExitCodes.USAGE,
                    "--read-data and --read-data-subset " + readDataSubset
                            + " both say what to read; pass one (--read-data reads every pack).");
        }
        DataSubset subset;
        try {
            subset = readData
                    ? DataSubset.parse("100%")
                    : readDataSubset == null ? null : DataSubset.parse(readDataSubset);
        } catch (IllegalArgumentException e) {
            throw new CliFailure(ExitCodes.USAGE, "--read-data-subset " + e.getMessage() + ".");
        }
        transferOptions.check(ctx.out()); // a bad --transfers refused before the store is opened
        if (subset != null) {
            // reading packs opens file content in bulk: its ciphers compile while the key is derived
            CipherWarmUp.start();
        }
        try (StoreSession session = StoreSession.open(common, ctx, StoreSession.Access.READ);
                Repository repo = Repository.storeOnly(session)) {
            if (!repo.packed()) {
                throw new CliFailure(
                        ExitCodes.USAGE,
                        "'ballast check' checks an encrypted repository (ballast init), and " + session.where()
                                + " is a store of the earlier format: run 'ballast verify NAME' for each backup name"
                                + " 'ballast list' shows.");
            }
            CheckResult r = Errors.translate(
                    session.where(),
                    null,
                    () -> RepositoryCheck.run(
                            repo.sealed(),
                            session.objects(),
                            Repository.masterKey(session),
                            transferOptions.transfers,
                            subset,
                            ctx.clock()));
            return report(session, repo, r);
        }
    }

    private int report(StoreSession session, Repository repo, CheckResult r) {
        printDamage(r.damage());
        int lacking = 0;
        List<String> removals = new java.util.ArrayList<>();
        for (CheckResult.SnapshotDamage s : r.snapshotDamage()) {
            List<String> files = s.files();
            if (files.isEmpty()) {
                removals.add(removal(repo, s));
            } else {
                lacking++;
            }
            // A snapshot none of whose versions opens cannot tell its name (it is sealed inside): its stored key.
            StringBuilder line = new StringBuilder("Damaged snapshot: ")
                    .append(
                            s.name().startsWith("snapshots/")
                                    ? "of a backup name no version of which opens (stored as " + s.name() + ")"
                                    : Errors.printable(s.name()))
                    .append(s.versionId().isEmpty() ? "" : " " + Manifests.shortId(s.versionId()))
                    .append(" (")
                    .append(SnapshotTime.format(s.startedAt()))
                    .append("): ")
                    .append(Errors.printable(s.reason()));
            if (!files.isEmpty()) {
                line.append(": ");
                for (int i = 0; i < Math.min(FILES_SHOWN, files.size()); i++) {
                    line.append(i == 0 ? "" : ", ").append(Errors.printable(files.get(i)));
                }
                if (files.size() > FILES_SHOWN) {
                    line.append(" and ").append(files.size() - FILES_SHOWN).append(" more");
                }
            }
            ctx.err().println(line);
        }
        String totals = "checked " + Summary.count(r.packsChecked(), "pack") + " against the index and "
                + Summary.count(r.snapshots(), "snapshot") + " of " + Summary.count(r.names(), "backup name")
                + " against the chunks in them"
                + (r.packsRead() == 0 && readDataSubset == null && !readData
                        ? " (no pack read: --read-data reads them)"
                        : "; read " + Summary.count(r.packsRead(), "pack") + " whole, "
                                + Summary.count(r.chunksRead(), "chunk") + " matched against their IDs"
                                + (r.packsRead() == 0 && readDataSubset != null && r.packsChecked() > 0
                                        ? " (no pack of the " + r.packsChecked() + " falls in subset " + readDataSubset
                                                + ": another subset, or --read-data, reads them)"
                                        : ""))
                + counters(session) + ".";
        if (r.unindexedPacks() > 0) {
            ctx.err()
                    .println("Note: " + Summary.count(r.unindexedPacks(), "pack")
                            + " in the store no index file names (a killed or running backup's, or one whose index"
                            + " file was lost): 'ballast repair index' indexes them, 'ballast prune' removes those no"
                            + " snapshot needs.");
        }
        if (r.ok()) {
            ctx.out().println("Check OK: " + totals);
            return ExitCodes.OK;
        }
        ctx.out().println("Check FAILED: " + totals);
        ctx.err().println(advice(r, lacking, removals));
        return ExitCodes.INTEGRITY;
    }

    /**
     * The command that removes {@code s}, a snapshot whose manifest does not open: by its backup name, or
     * by its stored key when no version of it opens to tell the name ('ballast forget' takes either); the
     * newest version of a name only once a newer backup of it exists, as forget never removes the newest.
     */
    private static String removal(Repository repo, CheckResult.SnapshotDamage s) {
        String forget = "'ballast forget " + Errors.printable(s.name()) + " --manifest-version "
                + Manifests.shortId(s.versionId()) + "'";
        if (s.name().startsWith(SealedStore.SNAPSHOTS)) {
            return forget;
        }
        List<VersionEntry> versions = Manifests.versions(repo.metadata(), s.name());
        boolean newest = !versions.isEmpty() && versions.get(0).versionId().equals(s.versionId());
        return newest ? "a new backup of '" + Errors.printable(s.name()) + "', then " + forget : forget;
    }

    /** Damage lines, at most {@link #FILES_SHOWN} per object: a cut pack names every chunk past its end. */
    private void printDamage(List<String> damage) {
        java.util.Map<String, Integer> perObject = new java.util.LinkedHashMap<>();
        for (String d : damage) {
            String object = objectOf(d);
            int n = perObject.merge(object, 1, Integer::sum);
            if (n <= FILES_SHOWN) {
                ctx.err().println("Damaged: " + Errors.printable(d));
            }
        }
        perObject.forEach((object, n) -> {
            if (n > FILES_SHOWN) {
                ctx.err().println("Damaged: " + object + ": and " + (n - FILES_SHOWN) + " more chunk(s) in it");
            }
        });
    }

    /** The object a damage line names: its key, before the blob or the reason. */
    private static String objectOf(String damage) {
        int colon = damage.indexOf(": ");
        String head = colon < 0 ? damage : damage.substring(0, colon);
        int blob = head.indexOf(" (blob ");
        return blob < 0 ? head : head.substring(0, blob);
    }

    /** One sentence: what is damaged, and what to run for each kind found. */
    private static String advice(CheckResult r, int lacking, List<String> removals) {
        java.util.Set<String> objects = new java.util.TreeSet<>();
        r.damage().forEach(d -> objects.add(objectOf(d)));
        // a snapshot whose manifest does not open is a damaged object too (its manifest), named above
        int manifests = removals.size();
        boolean packs = objects.stream().anyMatch(o -> o.startsWith("data/"));
        boolean index = objects.stream().anyMatch(o -> o.startsWith("index"));
        List<String> todo = new java.util.ArrayList<>();
        if (packs) {
            todo.add(PackedRepair.KEEP_INTACT_CHUNKS);
        }
        if (index) {
            todo.add("'ballast repair index' writes the index again from the packs");
        }
        if (lacking > 0) {
            todo.add("a new backup of each source stores the chunks no pack holds intact again wherever the source"
                    + " still has the files, which heals every snapshot that uses them");
        }
        if (!removals.isEmpty()) {
            todo.add((removals.size() == 1
                            ? "a snapshot whose manifest does not open stays unreadable: "
                            : "snapshots whose manifests do not open stay unreadable: ")
                    + String.join(" and ", removals.subList(0, Math.min(FILES_SHOWN, removals.size())))
                    + (removals.size() > FILES_SHOWN
                            ? " and so on for the " + (removals.size() - FILES_SHOWN) + " more named above"
                            : "")
                    + (removals.size() == 1 ? " removes it" : " remove them")
                    + ", and the other snapshots restore as they are");
        }
        return "The repository has " + Summary.count(objects.size() + manifests, "damaged object") + " and "
                + Summary.count(r.snapshotDamage().size(), "snapshot") + " that cannot be restored in full; "
                + String.join("; ", todo) + ".";
    }
}
