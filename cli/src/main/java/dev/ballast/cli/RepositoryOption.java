package dev.ballast.cli;

import dev.ballast.backup.tree.Names;
import java.net.URI;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code -r/--repo REPO} and {@code $BALLAST_REPOSITORY}, restic's way of naming the store
 * ({@code -r}, {@code $RESTIC_REPOSITORY}), turned into the options the commands read: a directory is
 * the local store's own directory ({@code --data-dir} its parent, {@code --bucket} its name), and
 * {@code s3:URL/BUCKET} an S3 endpoint and bucket, in restic's forms ({@code s3:https://host:port/bucket},
 * {@code s3:host/bucket} for https). {@code --data-dir}, {@code --endpoint} and {@code --bucket} are
 * refused beside {@code --repo}; beside the variable they replace the part of its store they name
 * ({@link #besideVariable}).
 */
final class RepositoryOption {
    private RepositoryOption() {}

    /** The variable a cron job or a shell profile sets once, as restic's {@code RESTIC_REPOSITORY}. */
    static final String VARIABLE = "BALLAST_REPOSITORY";

    /** A scheme before the first colon, as restic's backends are written ({@code sftp:}, {@code rest:}, ...). */
    private static final Pattern SCHEME = Pattern.compile("([a-zA-Z0-9]+):(.*)", Pattern.DOTALL);

    /** restic's other backends, which Ballast does not store to. */
    private static final Set<String> OTHER_BACKENDS =
            Set.of("sftp", "rest", "b2", "azure", "gs", "swift", "rclone", "smb", "webdav", "ftp");

    /**
     * Sets {@code o}'s store options from {@code --repo}, else from {@code $BALLAST_REPOSITORY}, in part when
     * store options were given too ({@link #besideVariable}; {@code given} says whether an option was on the
     * command line).
     *
     * @throws CliFailure (exit 2) naming the input and what is accepted
     */
    static void apply(CommonOptions o, Map<String, String> env, Predicate<String> given) {
        java.util.List<String> storeOptionsGiven = java.util.stream.Stream.of("--data-dir", "--endpoint", "--bucket")
                .filter(given)
                .toList();
        boolean storeOptions = !storeOptionsGiven.isEmpty();
        String source;
        String value;
        if (o.repo != null) {
            if (storeOptions) {
                throw new CliFailure(
                        ExitCodes.USAGE,
                        "--repo " + o.repo + " names the store, and so does " + String.join(" and ", storeOptionsGiven)
                                + "; pass --repo alone, or " + String.join(" and ", storeOptionsGiven)
                                + " without it.");
            }
            source = "--repo";
            value = o.repo;
        } else {
            value = env.get(VARIABLE);
            if (value == null) {
                return;
            }
            source = "$" + VARIABLE;
            if (storeOptions) {
                besideVariable(o, source, value, given);
                return;
            }
        }
        named(o, source, value);
    }

    /**
     * Says, on {@code err}, that {@code $RESTIC_REPOSITORY} is not read when it is what a restic user
     * would have meant: set (not empty), with no {@code --repo}, no {@code $BALLAST_REPOSITORY} and no
     * store option given, so the command goes to the default store (a README-only user's first backup
     * made a new store there without a word).
     */
    static void noteResticVariable(
            CommonOptions o, Map<String, String> env, Predicate<String> given, java.io.PrintStream err) {
        String restic = env.get("RESTIC_REPOSITORY");
        if (restic == null
                || restic.isEmpty()
                || o.repo != null
                || env.get(VARIABLE) != null
                || java.util.stream.Stream.of("--data-dir", "--endpoint", "--bucket")
                        .anyMatch(given)) {
            return;
        }
        err.println("Note: RESTIC_REPOSITORY is set, which is restic's; Ballast reads " + VARIABLE
                + " (or -r), and without either uses its default store.");
    }

    /**
     * Store options given beside the variable replace the part of its store they name and keep the rest,
     * as an rclone user changes the bucket of a remote configured once, or a restic user the bucket at the
     * end of {@code s3:URL/BUCKET}: {@code --bucket B} alone is bucket B on the variable's endpoint (or the
     * local store B beside the variable's directory), {@code --endpoint E} alone the variable's bucket on E.
     * What leaves the store unknown is refused in one sentence: {@code --endpoint} alone beside a local
     * directory (which bucket?), and {@code --data-dir} without {@code --bucket}. {@code --bucket} with
     * {@code --endpoint} or {@code --data-dir} names a whole store, and the variable is not read.
     */
    private static void besideVariable(CommonOptions o, String source, String value, Predicate<String> given) {
        boolean endpoint = given.test("--endpoint");
        boolean bucket = given.test("--bucket");
        if (bucket && (endpoint || given.test("--data-dir"))) {
            return;
        }
        CommonOptions variable = new CommonOptions();
        named(variable, source, value);
        if (bucket) {
            if (variable.endpoint != null) {
                o.endpoint = variable.endpoint;
            } else {
                o.dataDir = variable.dataDir;
            }
        } else if (endpoint && variable.endpoint != null) {
            o.bucket = variable.bucket;
        } else if (endpoint) {
            throw new CliFailure(
                    ExitCodes.USAGE,
                    "--endpoint " + o.endpoint + " names an S3 endpoint but no bucket, and " + source + " " + value
                            + " a local store; pass --bucket too (or --repo s3:" + o.endpoint + "/BUCKET), or leave"
                            + " --endpoint out to use the local store.");
        } else {
            throw new CliFailure(
                    ExitCodes.USAGE,
                    "--data-dir " + o.dataDir + " names the folder of a local store but not the store, and " + source
                            + " " + value + (variable.endpoint != null ? " an S3 bucket" : " another store")
                            + "; pass --bucket too to use the store " + o.dataDir + "/BUCKET, or leave --data-dir out"
                            + " to use " + source + ".");
        }
    }

    /** Sets {@code o}'s store options from {@code value}, which {@code source} gave as the store's one word. */
    private static void named(CommonOptions o, String source, String value) {
        if (value.isBlank()) {
            throw new CliFailure(
                    ExitCodes.USAGE,
                    source + " is empty: give a directory (the local store) or s3:URL/BUCKET, e.g."
                            + " s3:http://localhost:9000/backups.");
        }
        o.repoSource = source;
        Matcher m = SCHEME.matcher(value);
        String scheme = m.matches() ? m.group(1).toLowerCase(Locale.ROOT) : "";
        if (scheme.equals("s3")) {
            s3(o, source, value, m.group(2));
        } else if (OTHER_BACKENDS.contains(scheme)) {
            throw new CliFailure(
                    ExitCodes.USAGE,
                    source + " " + value + " names restic's " + scheme + " backend; Ballast stores in a local"
                            + " directory or an S3 bucket: give a directory or s3:URL/BUCKET.");
        } else {
            local(o, source, scheme.equals("local") ? m.group(2) : value);
        }
    }

    private static void local(CommonOptions o, String source, String dir) {
        Path p = Names.path(dir);
        Path name = p.normalize().getFileName();
        if (name == null || name.toString().isEmpty() || name.toString().equals("..")) {
            throw new CliFailure(
                    ExitCodes.USAGE,
                    source + " " + dir + " names no directory a store can live in; give the store's directory,"
                            + " e.g. /srv/backups or ~/backups.");
        }
        o.dataDir =
                p.normalize().getParent() == null ? Path.of(".") : p.normalize().getParent();
        o.bucket = name.toString();
        o.localRepo = true;
    }

    private static void s3(CommonOptions o, String source, String value, String rest) {
        String url = rest.contains("://") ? rest : "https://" + rest;
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException e) {
            uri = null;
        }
        String path = uri == null || uri.getRawPath() == null ? "" : uri.getRawPath();
        String bucket = path.replaceAll("^/+|/+$", "");
        if (uri == null || uri.getHost() == null || bucket.isEmpty() || bucket.contains("/")) {
            throw new CliFailure(
                    ExitCodes.USAGE,
                    source + " " + value + " is not s3:URL/BUCKET: give the endpoint and one bucket, e.g."
                            + " s3:http://localhost:9000/backups or s3:s3.eu-west-1.amazonaws.com/backups (a"
                            + " folder inside the bucket is not supported).");
        }
        try {
            o.endpoint = new CommonOptions.EndpointConverter().convert(uri.getScheme() + "://" + uri.getRawAuthority());
        } catch (TypeConversionException e) {
            throw new CliFailure(ExitCodes.USAGE, source + " " + value + ": " + e.getMessage() + ".");
        }
        o.bucket = bucket;
    }
}
