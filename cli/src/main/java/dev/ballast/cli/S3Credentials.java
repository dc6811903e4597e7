package dev.ballast.cli;

import dev.ballast.storage.object.s3.S3Endpoint;
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
 * first that holds the profile's {@code aws_access_key_id} and {@code aws_secret_access_key} wins,
 * with its {@code aws_session_token} if it has one. A profile without static keys that names another
 * source of credentials ({@code role_arn}, {@code sso_session} or {@code sso_start_url},
 * {@code web_identity_token_file}, {@code credential_process}) is handed to the AWS SDK's profile
 * credentials provider, read from the same two files ({@link #sdkProfile()}). A session token in the
 * environment ({@code AWS_SESSION_TOKEN}) goes with the environment's keys.
 *
 * <p>{@link #region(CommonOptions, Map, Path)} finds the region as the AWS CLI does.
 *
 * @param accessKey the access key ID; empty when the SDK reads the profile ({@link #sdkProfile()})
 * @param secretKey the secret access key, never shown by {@link #toString()}; empty when the SDK reads
 *     the profile
 * @param sessionToken the session token of temporary keys, null for long-term keys; never shown
 * @param sdkProfile the profile the SDK reads credentials from (a role, SSO, web identity or
 *     {@code credential_process} profile), null for static keys
 * @param profileFiles the credentials and config files that hold {@code sdkProfile}, null without one
 * @param source where the credentials were found, for messages, e.g. {@code profile 'prod' in /home/u/.aws/credentials}
 */
record S3Credentials(
        String accessKey,
        String secretKey,
        @Nullable String sessionToken,
        @Nullable String sdkProfile,
        @Nullable ProfileFile profileFiles,
        String source) {
    static final String ACCESS_KEY_ENV = "AWS_ACCESS_KEY_ID";
    static final String SECRET_KEY_ENV = "AWS_SECRET_ACCESS_KEY";
    static final String PROFILE_ENV = "AWS_PROFILE";
    static final String SESSION_TOKEN_ENV = "AWS_SESSION_TOKEN";
    static final String REGION_ENV = "AWS_REGION";
    static final String DEFAULT_REGION_ENV = "AWS_DEFAULT_REGION";
    /** What a profile without static keys may name instead: a source the AWS SDK reads itself. */
    private static final java.util.List<String> SDK_SOURCES = java.util.List.of(
            "role_arn", "sso_session", "sso_start_url", "web_identity_token_file", "credential_process");

    /** Static keys. */
    S3Credentials(String accessKey, String secretKey, @Nullable String sessionToken, String source) {
        this(accessKey, secretKey, sessionToken, null, null, source);
    }

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
                    null,
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
            String token = env.get(SESSION_TOKEN_ENV);
            return Optional.of(new S3Credentials(
                    envAccess,
                    envSecret,
                    token == null || token.isBlank() ? null : token,
                    token == null || token.isBlank()
                            ? "AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY"
                            : "AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY/AWS_SESSION_TOKEN"));
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
        if (keys.isEmpty()) {
            Optional<Profile> delegated = inCredentials
                    .filter(S3Credentials::namesAnSdkSource)
                    .or(() -> inConfig.filter(S3Credentials::namesAnSdkSource));
            if (delegated.isPresent()) {
                return Optional.of(new S3Credentials(
                        "",
                        "",
                        null,
                        name,
                        files(credentialsFile, configFile),
                        "profile '" + name + "' (read by the AWS SDK: " + String.join(", ", sources(delegated.get()))
                                + ") in " + credentialsFile + " or " + configFile));
            }
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
                        + " and names no other source of credentials (" + String.join(", ", SDK_SOURCES)
                        + "); add one, or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.");
    }

    private static boolean namesAnSdkSource(Profile profile) {
        return !sources(profile).isEmpty();
    }

    private static java.util.List<String> sources(Profile profile) {
        return SDK_SOURCES.stream().filter(p -> profile.property(p).isPresent()).toList();
    }

    /** The credentials and config files, those that exist, as one profile file for the SDK. */
    private static ProfileFile files(Path credentialsFile, Path configFile) {
        ProfileFile.Aggregator all = ProfileFile.aggregator();
        if (Files.isRegularFile(credentialsFile)) {
            all.addFile(ProfileFile.builder()
                    .content(credentialsFile)
                    .type(ProfileFile.Type.CREDENTIALS)
                    .build());
        }
        if (Files.isRegularFile(configFile)) {
            all.addFile(ProfileFile.builder()
                    .content(configFile)
                    .type(ProfileFile.Type.CONFIGURATION)
                    .build());
        }
        return all.build();
    }

    /**
     * The region, as the AWS CLI finds it: {@code --region}, else {@code AWS_REGION}, else
     * {@code AWS_DEFAULT_REGION}, else the {@code region} of the profile ({@code --profile}, else
     * {@code AWS_PROFILE}, else {@code default}) in the config file ({@code AWS_CONFIG_FILE}, default
     * {@code ~/.aws/config}), else {@value S3Endpoint#DEFAULT_REGION}.
     *
     * @throws CliFailure (exit code {@link ExitCodes#USAGE}) if the config file cannot be read
     */
    static String region(CommonOptions options, Map<String, String> env, Path home) {
        if (options.region != null) {
            return options.region;
        }
        for (String variable : new String[] {REGION_ENV, DEFAULT_REGION_ENV}) {
            String value = env.get(variable);
            if (value != null && !value.isBlank()) {
                return value.trim();
            }
        }
        String name = options.profile != null
                ? options.profile
                : env.get(PROFILE_ENV) != null && !env.get(PROFILE_ENV).isBlank()
                        ? env.get(PROFILE_ENV)
                        : DEFAULT_PROFILE;
        Path configFile = location(env.get(CONFIG_FILE_ENV), home, ".aws/config");
        return read(configFile, ProfileFile.Type.CONFIGURATION, name)
                .flatMap(p -> p.property("region"))
                .filter(r -> !r.isBlank())
                .map(String::trim)
                .orElse(S3Endpoint.DEFAULT_REGION);
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
        return Optional.of(new S3Credentials(
                access.get(),
                secret.get(),
                profile.property("aws_session_token").filter(t -> !t.isBlank()).orElse(null),
                "profile '" + profile.name() + "' in " + file));
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
