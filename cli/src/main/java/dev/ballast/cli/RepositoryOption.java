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
 * {@code s3:host/bucket} for https). {@code --data-dir}, {@code --endpoint} and {@code --bucket} win over
 * the variable, and are refused beside {@code --repo}.
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
     * Sets {@code o}'s store options from {@code --repo}, else from {@code $BALLAST_REPOSITORY} when no
     * store option was given ({@code given} says whether an option was on the command line).
     *
     * @throws CliFailure (exit 2) naming the input and what is accepted
     */
    static void apply(CommonOptions o, Map<String, String> env, Predicate<String> given) {
        java.util.List<String> named = java.util.stream.Stream.of("--data-dir", "--endpoint", "--bucket")
                .filter(given)
                .toList();
        boolean storeOptions = !named.isEmpty();
        String source;
        String value;
        if (o.repo != null) {
            if (storeOptions) {
                throw new CliFailure(
                        ExitCodes.USAGE,
                        "--repo " + o.repo + " names the store, and so does " + String.join(" and ", named)
                                + "; pass --repo alone, or " + String.join(" and ", named) + " without it.");
            }
            source = "--repo";
            value = o.repo;
        } else {
            value = env.get(VARIABLE);
            if (value == null || storeOptions) {
                return;
            }
            source = "$" + VARIABLE;
        }
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
