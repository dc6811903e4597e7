package dev.ballast.cli;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/** The options every command accepts, the same way. */
final class CommonOptions {
    static final String DEFAULT_BUCKET = "ballast-backups";

    @Option(
            names = {"-r", "--repo"},
            paramLabel = "REPO",
            description = "The store, as restic's -r names a repository (default: $BALLAST_REPOSITORY): a directory,"
                    + " the local store itself (what --data-dir D --bucket B name as D/B), or s3:URL/BUCKET, an S3"
                    + " endpoint and bucket (s3:http://localhost:9000/backups; s3:host/bucket means https). Not"
                    + " with --data-dir, --endpoint or --bucket, which replace the part of $BALLAST_REPOSITORY's"
                    + " store they name (--bucket B alone: bucket B on its endpoint).")
    String repo;

    /**
     * Whether the local store's directory was named whole by {@code --repo} (or
     * {@code $BALLAST_REPOSITORY}), so its last part need not be a bucket name. Not an option.
     */
    boolean localRepo;

    /** Where the store was named whole ({@code "--repo"} or {@code "$BALLAST_REPOSITORY"}), null if not. Not an option. */
    @org.jspecify.annotations.Nullable
    String repoSource;

    /**
     * The options that name another store, as advice says to pass them: {@code "another --repo"} when the
     * store came from {@code --repo} (or the variable), else {@code --data-dir}'s and {@code --bucket}'s.
     */
    String anotherStore() {
        if (repoSource != null) {
            return "another " + repoSource;
        }
        return endpoint == null ? "another --data-dir or --bucket" : "another --bucket";
    }

    @Option(
            names = "--data-dir",
            paramLabel = "DIR",
            description =
                    "Where the local object store keeps the backups, in DIR/BUCKET (default: ~/.ballast). Ignored "
                            + "with --endpoint.")
    Path dataDir;

    @Option(
            names = "--endpoint",
            paramLabel = "URL",
            converter = EndpointConverter.class,
            description =
                    "Use this S3 endpoint (MinIO, Ceph, AWS, ...) instead of the local store, e.g. http://localhost:9000.")
    URI endpoint;

    @Option(
            names = "--bucket",
            paramLabel = "NAME",
            defaultValue = DEFAULT_BUCKET,
            description = "Bucket holding the backups (default: ${DEFAULT-VALUE}); the first backup creates it with "
                    + "versioning enabled, other commands never create it. Without --endpoint, the local store's directory under "
                    + "--data-dir.")
    String bucket;

    @Option(
            names = "--region",
            paramLabel = "REGION",
            description = "S3 region (default: $AWS_REGION, else $AWS_DEFAULT_REGION, else the profile's region in "
                    + "~/.aws/config, else us-east-1).")
    String region;

    @Option(
            names = "--path-style",
            negatable = true,
            description =
                    "Path-style bucket addressing (http://host/bucket/key); default on with --endpoint, off for AWS.")
    Boolean pathStyle;

    @Option(
            names = "--access-key",
            paramLabel = "KEY",
            description =
                    "Access key ID for --endpoint (default: $AWS_ACCESS_KEY_ID, else the profile's; the local store "
                            + "needs none).")
    String accessKey;

    @Option(
            names = "--secret-key",
            paramLabel = "SECRET",
            description =
                    "Secret access key (default: $AWS_SECRET_ACCESS_KEY, else the profile's). Every local user can "
                            + "read it in the process list: prefer the environment variable or a profile.")
    String secretKey;

    @Option(
            names = "--profile",
            paramLabel = "NAME",
            description = "Take the credentials and region from this profile of ~/.aws/credentials or ~/.aws/config "
                    + "($AWS_SHARED_CREDENTIALS_FILE, $AWS_CONFIG_FILE), as the AWS CLI does: static keys with "
                    + "their session token, or a role, SSO, web identity or credential_process profile (default: "
                    + "$AWS_PROFILE, else 'default', used when AWS_ACCESS_KEY_ID is not set).")
    String profile;

    @Option(
            names = "--timeout",
            paramLabel = "DURATION",
            defaultValue = "PT30S",
            converter = DurationConverter.class,
            description =
                    "Total timeout of one S3 operation, retries included, e.g. 30s, 2m, 1m30s (default: 30s). A dead "
                            + "endpoint ends the command within about this long.")
    Duration timeout;

    @Option(
            names = "--password-file",
            paramLabel = "FILE",
            description = "Read the password of an encrypted repository from the first line of FILE (default:"
                    + " $BALLAST_PASSWORD_FILE). Without it or --password-command: $BALLAST_PASSWORD, else asked on"
                    + " the terminal. Never give the password itself as an argument.")
    Path passwordFile;

    @Option(
            names = "--password-command",
            paramLabel = "CMD",
            description = "Run CMD and take the password from what it prints (default: $BALLAST_PASSWORD_COMMAND), as"
                    + " restic's --password-command: split into words as a shell would, run without one, e.g. 'pass"
                    + " show backups'.")
    String passwordCommand;

    /**
     * The repository the first {@link StoreSession} of this command unlocked, so a command that opens
     * the store twice (a reader, then a writer) asks for the password and runs the KDF once. Not an
     * option.
     */
    dev.ballast.backup.keys.KeyFiles.@org.jspecify.annotations.Nullable UnlockedRepository unlocked;

    /**
     * The password a first backup read for the repository it makes before it opened the store for
     * writing ({@link NewStore#openForBackup}), so that a password file that is missing or a command
     * that fails is refused with nothing created; null otherwise. Cleared once used.
     */
    char @org.jspecify.annotations.Nullable [] newRepositoryPassword;

    /** Whether this command has said that the store is of the earlier format and the password is unused. Not an option. */
    boolean unusedPasswordWarned;

    @Option(
            names = {"-v", "--verbose"},
            description = "Show the cause of an error and Ballast's INFO logs (capability probe, retries).")
    boolean verbose;

    @Option(
            names = {"-q", "--quiet"},
            description = "Print no progress, and on standard output nothing unless the command fails (exit code not"
                    + " 0): a cron job then mails only failures (restic's --quiet). Warnings and errors still go to"
                    + " standard error; list, ls, versions and key list print their answer as usual.")
    boolean quiet;

    /**
     * Parses a duration as restic and Go's {@code time.ParseDuration} write one, a sequence of numbers
     * each with its unit ({@code h}, {@code m}, {@code s}, {@code ms}; a number may have a fraction):
     * {@code 30s}, {@code 2m}, {@code 500ms}, {@code 1h30m}, {@code 1.5h}; or an ISO-8601 duration such
     * as {@code PT30S}. Anything else is refused with one sentence saying what is accepted.
     */
    static final class DurationConverter implements ITypeConverter<Duration> {
        private static final java.util.regex.Pattern PART =
                java.util.regex.Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|h|m|s)");

        @Override
        public Duration convert(String value) {
            Duration d = parse(value);
            if (d == null) {
                throw new TypeConversionException(
                        "'" + value + "' is not a duration; give one like 30s, 2m, 1h30m, 500ms or PT30S");
            }
            if (d.isNegative() || d.isZero()) {
                throw new TypeConversionException(
                        "'" + value + "' is not positive; give a duration above zero, like 30s");
            }
            return d;
        }

        /** The duration {@code value} writes (zero and negative ISO-8601 ones included), or null if it writes none. */
        static @org.jspecify.annotations.Nullable Duration parse(String value) {
            String v = value.trim().toLowerCase(Locale.ROOT);
            try {
                if (v.startsWith("pt")) {
                    return Duration.parse(v.toUpperCase(Locale.ROOT));
                }
                java.util.regex.Matcher m = PART.matcher(v);
                long nanos = 0;
                int at = 0;
                while (at < v.length() && m.find(at) && m.start() == at) {
                    java.math.BigDecimal n = new java.math.BigDecimal(m.group(1));
                    long unit = switch (m.group(2)) {
                        case "h" -> 3_600_000_000_000L;
                        case "m" -> 60_000_000_000L;
                        case "s" -> 1_000_000_000L;
                        default -> 1_000_000L; // ms
                    };
                    nanos = Math.addExact(
                            nanos,
                            n.multiply(java.math.BigDecimal.valueOf(unit))
                                    .setScale(0, java.math.RoundingMode.DOWN)
                                    .longValueExact());
                    at = m.end();
                }
                return at == v.length() && at > 0 ? Duration.ofNanos(nanos) : null;
            } catch (RuntimeException e) { // DateTimeParseException, ArithmeticException
                return null;
            }
        }
    }

    /** Accepts an absolute {@code http} or {@code https} URL with a host, such as {@code http://localhost:9000}. */
    static final class EndpointConverter implements ITypeConverter<URI> {
        @Override
        public URI convert(String value) {
            URI uri;
            try {
                uri = new URI(value.trim());
            } catch (URISyntaxException e) {
                uri = null;
            }
            if (uri == null
                    || uri.getHost() == null
                    || uri.getScheme() == null
                    || !(uri.getScheme().equalsIgnoreCase("http")
                            || uri.getScheme().equalsIgnoreCase("https"))) {
                throw new TypeConversionException("'" + value + "' is not an S3 endpoint URL; give one like "
                        + "http://localhost:9000 or https://s3.eu-west-1.amazonaws.com");
            }
            return uri;
        }
    }
}
