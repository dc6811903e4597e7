package dev.ballast.cli;

import dev.ballast.backup.Advice;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The command's words for the remedies the engine names in the library's terms ({@link Advice}):
 * {@code RestoreOptions.overwrite} is {@code --overwrite} here, {@code Backups.repair(false)} is
 * {@code 'ballast repair index'}, {@code Backups.snapshots(name)} is {@code 'ballast list'}. Every line
 * the command prints goes through {@link #reword} ({@link #context}), so an engine's failure, notice or
 * skip reason reads as the command's own. Stateless and thread-safe.
 */
final class CliWording {
    private CliWording() {}

    private static final Map<Advice, String> WORDS = words();

    /** Each advice's pattern, in {@link Advice}'s order (longer phrases before those they contain). */
    private static final List<Map.Entry<Advice, Pattern>> PATTERNS =
            WORDS.keySet().stream().map(a -> Map.entry(a, a.pattern())).toList();

    private static Map<Advice, String> words() {
        Map<Advice, String> w = new EnumMap<>(Advice.class);
        w.put(Advice.NAME_FOR_BACKUP, "pass --name with a name such as 'photos-2026' (no slashes).");
        w.put(Advice.EXISTING_NAME, "pass a backup's name as 'ballast list' shows it.");
        w.put(Advice.ANOTHER_VERSION, "another --manifest-version");
        w.put(Advice.INSPECT_MANIFEST, "or inspect it with 'ballast versions NAME/.ballast-manifest.json'");
        w.put(Advice.USE_VERSION, "--manifest-version %s to use");
        w.put(Advice.SHORT_ID_BOTH, "('ballast list' shows both)");
        w.put(Advice.SHORT_ID_PASS, "pass the short ID 'ballast list' shows");
        w.put(Advice.SHORT_ID_AS, "a short ID as 'ballast list' shows it");
        w.put(Advice.LIST_VERSIONS, "'ballast list' shows its versions");
        w.put(Advice.LIST_NAMES, "'ballast list' shows the backups there");
        w.put(Advice.REMOVE_MARKER, "'ballast unlock --remove-all' removes the marker");
        w.put(Advice.REMOVE_PRUNE_MARKER, "(a prune killed on another host: 'ballast unlock --remove-all')");
        w.put(Advice.FORGET_VERSION, "forget that version first (ballast forget %s --manifest-version %s)");
        w.put(Advice.REPAIR_INDEX, "'ballast repair index'");
        w.put(Advice.REPAIR_PACKS, "'ballast repair packs'");
        w.put(Advice.VERIFY_RECORDS, "until 'ballast verify --repair' or the next backup records them");
        w.put(Advice.VERIFY_NAME, "'ballast verify NAME'");
        w.put(Advice.VERIFY, "'ballast verify'");
        w.put(Advice.CHECK_UNNAMED, "'ballast check' names it with the command that removes it");
        w.put(Advice.INIT_AGAIN, "run 'ballast init' again");
        w.put(Advice.ANOTHER_STORE, "pass another --bucket or --data-dir.");
        w.put(Advice.EMPTY_STORE, "init a new repository in an empty store (another --bucket or --data-dir).");
        w.put(Advice.KEY_LIST, "'ballast key list' shows");
        w.put(Advice.KEY_ADD, "'ballast key add'");
        w.put(Advice.KEY_PASSWD, "'ballast key passwd'");
        w.put(Advice.KEY_REMOVE, "'ballast key remove'");
        w.put(Advice.PASSWORD, "the password (BALLAST_PASSWORD, --password-file or --password-command)");
        w.put(Advice.OVERWRITE_AGAIN, "rerun with --overwrite");
        w.put(Advice.OVERWRITE, "--overwrite");
        w.put(Advice.INCLUDE_PATTERNS, "--include, which is repeatable");
        w.put(Advice.OWN_NAME, "pass --name NAME to back this directory up under a name of its own, or --name %s");
        w.put(Advice.TRANSFERS, "--transfers");
        w.put(Advice.KEEP_COUNT, "a --keep-* count");
        w.put(Advice.HEAP, "raise -Xmx (for the ballast command, in BALLAST_JAVA_OPTS)");
        for (Advice a : Advice.values()) {
            if (!w.containsKey(a) || w.get(a).split("%s", -1).length - 1 != a.placeholders()) {
                throw new IllegalStateException("no command wording for " + a + " with its placeholders");
            }
        }
        return w;
    }

    /** {@code text} with every engine advice it holds in the command's words; {@code text} itself if none. */
    static String reword(String text) {
        if (text == null || text.isEmpty()) {
            return text;
        }
        String out = text;
        for (Map.Entry<Advice, Pattern> e : PATTERNS) {
            Advice advice = e.getKey();
            if (!out.contains(advice.anchor())) {
                continue;
            }
            String words = WORDS.get(advice);
            if (advice.placeholders() == 0) {
                out = out.replace(advice.phrase(), words);
                continue;
            }
            Matcher m = e.getValue().matcher(out);
            out = m.replaceAll(r -> {
                Object[] args = new Object[r.groupCount()];
                for (int i = 0; i < args.length; i++) {
                    args[i] = r.group(i + 1);
                }
                return Matcher.quoteReplacement(String.format(Locale.ROOT, words, args));
            });
        }
        return out;
    }

    /** {@code ctx} with its output and error streams rewording what is printed ({@link #reword}). */
    static CliContext context(CliContext ctx) {
        if (ctx.out() instanceof Rewording && ctx.err() instanceof Rewording) {
            return ctx;
        }
        return new CliContext(
                rewording(ctx.out()),
                rewording(ctx.err()),
                ctx.env(),
                ctx.home(),
                ctx.terminal(),
                ctx.cancellation(),
                ctx.clock(),
                ctx.progressInterval(),
                ctx.manifestGrace(),
                ctx.onFileStored());
    }

    private static PrintStream rewording(PrintStream target) {
        return target instanceof Rewording ? target : new Rewording(target);
    }

    /**
     * A stream printing strings reworded, in UTF-8 as the command's streams are, to {@code target};
     * bytes written as bytes (file names) pass unchanged. Write errors are {@code target}'s to remember.
     */
    private static final class Rewording extends PrintStream {
        Rewording(PrintStream target) {
            super(target, true, StandardCharsets.UTF_8);
        }

        @Override
        public void print(String s) {
            super.print(reword(s));
        }

        @Override
        public void print(Object o) {
            print(String.valueOf(o));
        }
    }
}
