package dev.ballast.cli;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.profiles.Profile;
import software.amazon.awssdk.profiles.ProfileFile;

/**
 * The access key pair used with {@code --endpoint}, and where it was found. The keys are looked up
 * in the order of the AWS CLI ("Configuration and credential file settings" and "Environment
 * variables" in the AWS CLI User Guide), which restic and rclone follow too:
 *
 * <ol>
 *   <li>{@code --access-key} and {@code --secret-key}, either one completed from
 *       {@code AWS_ACCESS_KEY_ID} or {@code AWS_SECRET_ACCESS_KEY};
 *   <li>{@code --profile NAME}: that profile, the environment's keys being ignored (as the AWS CLI
 *       ignores them when a profile is named on the command line);
 *   <li>{@code AWS_ACCESS_KEY_ID} and {@code AWS_SECRET_ACCESS_KEY};
 *   <li>the profile {@code AWS_PROFILE} names, else the profile {@code default} if it exists;
 *   <li>none: the AWS SDK's default credentials chain (container or instance role).
 * </ol>
 *
 * <p>A profile is read from the shared credentials file ({@code AWS_SHARED_CREDENTIALS_FILE},
 * default {@code ~/.aws/credentials}, sections {@code [name]}), then from the config file
 * ({@code AWS_CONFIG_FILE}, default {@code ~/.aws/config}, sections {@code [profile name]}); the
 * first that holds the profile's {@code aws_access_key_id} and {@code aws_secret_access_key} wins.
 * Only static keys are read from a profile: SSO, role and {@code credential_process} profiles and
 * session tokens are refused with a message rather than half-used.
 *
 * @param accessKey the access key ID
 * @param secretKey the secret access key, never shown by {@link #toString()}
 * @param source where the pair was found, for messages, e.g. {@code profile 'prod' in /home/u/.aws/credentials}
 */
record S3Credentials(String accessKey, String secretKey, String source) {
    static final String ACCESS_KEY_ENV = "AWS_ACCESS_KEY_ID";
    static final String SECRET_KEY_ENV = "AWS_SECRET_ACCESS_KEY";
    static final String PROFILE_ENV = "AWS_PROFILE";
    static final String CREDENTIALS_FILE_ENV = "AWS_SHARED_CREDENTIALS_FILE";
    static final String CONFIG_FILE_ENV = "AWS_CONFIG_FILE";
    static final String DEFAULT_PROFILE = "default";

    /** The one line printed to standard error when the secret key is a command-line argument. */
    static final String SECRET_ARGUMENT_WARNING = "Warning: --secret-key is visible to every local user in the "
            + "process list; set AWS_SECRET_ACCESS_KEY or use a profile in ~/.aws/credentials (--profile) instead.";

    /** Prints {@link #SECRET_ARGUMENT_WARNING} to {@code err} if {@code --secret-key} was given. */
    static void warnIfSecretIsAnArgument(CommonOptions options, PrintStream err) {
        if (options.secretKey != null) {
            err.println(SECRET_ARGUMENT_WARNING);
        }
    }

    /**
     * Finds the keys for {@code --endpoint} in the order described above.
     *
     * @param options the command line
     * @param env the environment variables
     * @param home the user's home directory, where {@code .aws/} is looked for
     * @return the keys, or empty to let the AWS SDK's default chain find them
     * @throws CliFailure (exit code {@link ExitCodes#USAGE}) if only half a pair is given, a profile
     *     named by {@code --profile} or {@code AWS_PROFILE} is missing or holds no usable keys, or a
     *     profile file cannot be read
     */
    static Optional<S3Credentials> resolve(CommonOptions options, Map<String, String> env, Path home) {
        if (options.accessKey != null || options.secretKey != null) {
            String access = options.accessKey != null ? options.accessKey : env.get(ACCESS_KEY_ENV);
            String secret = options.secretKey != null ? options.secretKey : env.get(SECRET_KEY_ENV);
            if (access == null) {
                throw new CliFailure(
                        ExitCodes.USAGE,
                        "--secret-key was given without an access key; pass --access-key "
                                + "or set AWS_ACCESS_KEY_ID.");
            }
            if (secret == null) {
                throw new CliFailure(
                        ExitCodes.USAGE,
                        "--access-key was given without a secret key; set "
                                + "AWS_SECRET_ACCESS_KEY (or pass --secret-key, which every local user can see in the process list).");
            }
            return Optional.of(new S3Credentials(
                    access,
                    secret,
                    options.secretKey != null
                            ? "--access-key/--secret-key"
                            : "--access-key and AWS_SECRET_ACCESS_KEY"));
        }
        if (options.profile != null) {
            return fromProfile(options.profile, "--profile", env, home);
        }
        String envAccess = env.get(ACCESS_KEY_ENV);
        String envSecret = env.get(SECRET_KEY_ENV);
        if (envAccess != null && envSecret != null) {
            return Optional.of(new S3Credentials(envAccess, envSecret, "AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY"));
        }
        if (envAccess != null || envSecret != null) {
            throw new CliFailure(
                    ExitCodes.USAGE,
                    "Only one of AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY is set; set "
                            + "both, or neither to use a profile of ~/.aws/credentials.");
        }
        String named = env.get(PROFILE_ENV);
        if (named != null && !named.isBlank()) {
            return fromProfile(named, "AWS_PROFILE", env, home);
        }
        return fromProfile(DEFAULT_PROFILE, null, env, home);
    }

    /**
     * The static keys of profile {@code name}; empty if it is the implicit {@code default} profile and
     * it holds none.
     *
     * @param namedBy the option or variable that named the profile, null for the implicit default
     */
    private static Optional<S3Credentials> fromProfile(
            String name, @Nullable String namedBy, Map<String, String> env, Path home) {
        Path credentialsFile = location(env.get(CREDENTIALS_FILE_ENV), home, ".aws/credentials");
        Path configFile = location(env.get(CONFIG_FILE_ENV), home, ".aws/config");
        Optional<Profile> inCredentials = read(credentialsFile, ProfileFile.Type.CREDENTIALS, name);
        Optional<Profile> inConfig = read(configFile, ProfileFile.Type.CONFIGURATION, name);
        Optional<S3Credentials> keys = inCredentials.flatMap(p -> keys(p, credentialsFile));
        if (keys.isEmpty()) {
            keys = inConfig.flatMap(p -> keys(p, configFile));
        }
        if (keys.isPresent() || namedBy == null) {
            return keys;
        }
        if (inCredentials.isEmpty() && inConfig.isEmpty()) {
            throw new CliFailure(
                    ExitCodes.USAGE,
                    "The profile '" + name + "' (" + namedBy + ") is in neither "
                            + credentialsFile + " nor " + configFile + "; add a [" + name
                            + "] section with aws_access_key_id and "
                            + "aws_secret_access_key to the first, or name another profile.");
        }
        throw new CliFailure(
                ExitCodes.USAGE,
                "The profile '" + name + "' (" + namedBy + ") holds no "
                        + "aws_access_key_id and aws_secret_access_key in " + credentialsFile + " or " + configFile
                        + "; ballast reads only static keys from a profile (not SSO, roles or credential_process), so add them "
                        + "or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.");
    }

    /** The keys of {@code profile} if it holds any; a half pair or a session token is an error. */
    private static Optional<S3Credentials> keys(Profile profile, Path file) {
        Optional<String> access = profile.property("aws_access_key_id");
        Optional<String> secret = profile.property("aws_secret_access_key");
        String where = "The profile '" + profile.name() + "' in " + file;
        if (access.isEmpty() && secret.isEmpty()) {
            return Optional.empty();
        }
        if (access.isEmpty() || secret.isEmpty()) {
            throw new CliFailure(
                    ExitCodes.USAGE,
                    where + " has "
                            + (access.isEmpty()
                                    ? "aws_secret_access_key but no " + "aws_access_key_id"
                                    : "aws_access_key_id but no aws_secret_access_key")
                            + "; add the missing line.");
        }
        if (profile.property("aws_session_token").isPresent()) {
            throw new CliFailure(
                    ExitCodes.USAGE,
                    where + " holds temporary credentials (aws_session_token), which "
                            + "ballast cannot pass on yet; use a profile with long-term keys.");
        }
        return Optional.of(
                new S3Credentials(access.get(), secret.get(), "profile '" + profile.name() + "' in " + file));
    }

    /** The profile {@code name} of {@code file}, empty if the file or the profile does not exist. */
    private static Optional<Profile> read(Path file, ProfileFile.Type type, String name) {
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        try {
            return ProfileFile.builder().content(file).type(type).build().profile(name);
        } catch (RuntimeException e) {
            throw new CliFailure(
                    ExitCodes.USAGE,
                    "The AWS " + (type == ProfileFile.Type.CREDENTIALS ? "credentials" : "config") + " file '" + file
                            + "' cannot be read (" + Errors.rootMessage(e) + "); fix it or point "
                            + (type == ProfileFile.Type.CREDENTIALS ? CREDENTIALS_FILE_ENV : CONFIG_FILE_ENV)
                            + " at another file.",
                    e);
        }
    }

    /** {@code value} with a leading {@code ~} expanded to {@code home}, else {@code home/fallback}. */
    private static Path location(@Nullable String value, Path home, String fallback) {
        if (value == null || value.isBlank()) {
            return home.resolve(fallback);
        }
        if (value.equals("~") || value.startsWith("~/")) {
            return home.resolve(value.substring(Math.min(2, value.length())));
        }
        return Path.of(value);
    }

    /** Never shows the secret key. */
    @Override
    public String toString() {
        return "S3Credentials[accessKey=" + accessKey + ", source=" + source + "]";
    }
}
