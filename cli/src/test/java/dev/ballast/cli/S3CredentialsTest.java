package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Where the keys for --endpoint come from: flags, environment, AWS profiles, in the AWS CLI's order. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class S3CredentialsTest {
    @TempDir
    Path home;

    final CommonOptions options = new CommonOptions();
    final Map<String, String> env = new HashMap<>();

    Optional<S3Credentials> resolve() {
        return S3Credentials.resolve(options, env, home);
    }

    S3Credentials resolved() {
        return resolve().orElseThrow();
    }

    void credentialsFile(String content) throws IOException {
        Files.createDirectories(home.resolve(".aws"));
        Files.writeString(home.resolve(".aws/credentials"), content);
    }

    void configFile(String content) throws IOException {
        Files.createDirectories(home.resolve(".aws"));
        Files.writeString(home.resolve(".aws/config"), content);
    }

    @Test
    void withNoKeysAnywhereTheSdkDefaultChainIsLeftToFindThem() {
        assertThat(resolve()).isEmpty();
    }

    @Test
    void theEnvironmentKeysAreUsed() {
        env.put("AWS_ACCESS_KEY_ID", "AKENV");
        env.put("AWS_SECRET_ACCESS_KEY", "secret-env");
        assertThat(resolved())
                .extracting(S3Credentials::accessKey, S3Credentials::secretKey)
                .containsExactly("AKENV", "secret-env");
    }

    @Test
    void theEnvironmentKeysWinOverTheDefaultProfileAndAwsProfile() throws IOException {
        credentialsFile("[default]\naws_access_key_id = AKFILE\naws_secret_access_key = secret-file\n");
        env.put("AWS_ACCESS_KEY_ID", "AKENV");
        env.put("AWS_SECRET_ACCESS_KEY", "secret-env");
        assertThat(resolved().accessKey()).isEqualTo("AKENV");
        env.put("AWS_PROFILE", "default");
        assertThat(resolved().accessKey()).isEqualTo("AKENV");
    }

    @Test
    void flagsWinOverTheEnvironmentAndEitherHalfIsCompletedFromIt() {
        env.put("AWS_ACCESS_KEY_ID", "AKENV");
        env.put("AWS_SECRET_ACCESS_KEY", "secret-env");
        options.accessKey = "AKFLAG";
        assertThat(resolved())
                .extracting(S3Credentials::accessKey, S3Credentials::secretKey)
                .containsExactly("AKFLAG", "secret-env");
        options.secretKey = "secret-flag";
        assertThat(resolved())
                .extracting(S3Credentials::accessKey, S3Credentials::secretKey)
                .containsExactly("AKFLAG", "secret-flag");
    }

    @Test
    void halfAPairIsAnInputErrorThatSaysWhatIsMissing() {
        options.accessKey = "AKFLAG";
        assertThatThrownBy(this::resolve)
                .isInstanceOfSatisfying(
                        CliFailure.class, f -> assertThat(f.exitCode()).isEqualTo(ExitCodes.USAGE))
                .hasMessage(
                        "--access-key was given without a secret key; set AWS_SECRET_ACCESS_KEY (or pass --secret-key, "
                                + "which every local user can see in the process list).");
        options.accessKey = null;
        options.secretKey = "secret-flag";
        assertThatThrownBy(this::resolve)
                .hasMessage("--secret-key was given without an access key; pass --access-key "
                        + "or set AWS_ACCESS_KEY_ID.");
        options.secretKey = null;
        env.put("AWS_SECRET_ACCESS_KEY", "secret-env");
        assertThatThrownBy(this::resolve)
                .isInstanceOf(CliFailure.class)
                .hasMessageStartingWith("Only one of AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY is set");
    }

    @Test
    void theDefaultProfileOfTheSharedCredentialsFileIsUsedWithoutEnvironmentKeys() throws IOException {
        credentialsFile(
                "# written by aws configure\n[default]\naws_access_key_id = AKFILE\n"
                        + "aws_secret_access_key = secret-file\n\n[other]\naws_access_key_id = AKOTHER\naws_secret_access_key = x\n");
        S3Credentials c = resolved();
        assertThat(c)
                .extracting(S3Credentials::accessKey, S3Credentials::secretKey)
                .containsExactly("AKFILE", "secret-file");
        assertThat(c.source()).isEqualTo("profile 'default' in " + home.resolve(".aws/credentials"));
    }

    @Test
    void awsProfileNamesTheProfileAndTheProfileOptionOverridesItAndTheEnvironmentKeys() throws IOException {
        credentialsFile("[default]\naws_access_key_id = AKDEFAULT\naws_secret_access_key = s0\n"
                + "[ceph]\naws_access_key_id = AKCEPH\naws_secret_access_key = s1\n"
                + "[minio]\naws_access_key_id = AKMINIO\naws_secret_access_key = s2\n");
        env.put("AWS_PROFILE", "ceph");
        assertThat(resolved().accessKey()).isEqualTo("AKCEPH");
        env.put("AWS_ACCESS_KEY_ID", "AKENV");
        env.put("AWS_SECRET_ACCESS_KEY", "secret-env");
        options.profile = "minio";
        assertThat(resolved())
                .extracting(S3Credentials::accessKey, S3Credentials::secretKey)
                .containsExactly("AKMINIO", "s2");
    }

    @Test
    void aProfileIsAlsoReadFromTheConfigFileButTheCredentialsFileWins() throws IOException {
        configFile("[default]\nregion = eu-west-1\n[profile backup]\naws_access_key_id = AKCONFIG\n"
                + "aws_secret_access_key = secret-config\n[profile both]\naws_access_key_id = AKCONFIGBOTH\n"
                + "aws_secret_access_key = c\n");
        credentialsFile("[both]\naws_access_key_id = AKCREDBOTH\naws_secret_access_key = k\n");
        options.profile = "backup";
        assertThat(resolved().accessKey()).isEqualTo("AKCONFIG");
        assertThat(resolved().source()).isEqualTo("profile 'backup' in " + home.resolve(".aws/config"));
        options.profile = "both";
        assertThat(resolved().accessKey()).isEqualTo("AKCREDBOTH");
    }

    @Test
    void theFileLocationsComeFromTheEnvironmentWithTildeExpanded() throws IOException {
        Files.createDirectories(home.resolve("keys"));
        Files.writeString(
                home.resolve("keys/s3"), "[default]\naws_access_key_id = AKMOVED\naws_secret_access_key = m\n");
        Files.writeString(
                home.resolve("keys/conf"), "[profile other]\naws_access_key_id = AKCONF\naws_secret_access_key = n\n");
        credentialsFile("[default]\naws_access_key_id = AKIGNORED\naws_secret_access_key = i\n");
        env.put("AWS_SHARED_CREDENTIALS_FILE", "~/keys/s3");
        env.put("AWS_CONFIG_FILE", home.resolve("keys/conf").toString());
        assertThat(resolved().accessKey()).isEqualTo("AKMOVED");
        options.profile = "other";
        assertThat(resolved().accessKey()).isEqualTo("AKCONF");
    }

    @Test
    void aNamedProfileThatDoesNotExistIsAnInputErrorNamingBothFiles() throws IOException {
        credentialsFile("[default]\naws_access_key_id = AKFILE\naws_secret_access_key = s\n");
        env.put("AWS_PROFILE", "prod");
        assertThatThrownBy(this::resolve)
                .isInstanceOfSatisfying(
                        CliFailure.class, f -> assertThat(f.exitCode()).isEqualTo(ExitCodes.USAGE))
                .hasMessage(
                        "The profile 'prod' (AWS_PROFILE) is in neither " + home.resolve(".aws/credentials") + " nor "
                                + home.resolve(".aws/config")
                                + "; add a [prod] section with aws_access_key_id and aws_secret_access_key "
                                + "to the first, or name another profile.");
        options.profile = "staging";
        assertThatThrownBy(this::resolve).hasMessageStartingWith("The profile 'staging' (--profile) is in neither");
    }

    @Test
    void aRoleOrSsoProfileIsHandedToTheSdkWithTheFilesItIsIn() throws IOException {
        configFile("[default]\nrole_arn = arn:aws:iam::123456789012:role/backup\nsource_profile = base\n"
                + "[profile sso]\nsso_session = corp\n[profile nothing]\nregion = eu-west-1\n");
        assertThat(resolved().sdkProfile())
                .as("the implicit default profile, a role")
                .isEqualTo("default");
        options.profile = "sso";
        S3Credentials sso = resolved();
        assertThat(sso.sdkProfile()).isEqualTo("sso");
        assertThat(sso.profileFiles().profile("sso")).isPresent();
        assertThat(sso.source()).contains("sso_session");
        options.profile = "nothing";
        assertThatThrownBy(this::resolve)
                .isInstanceOf(CliFailure.class)
                .hasMessageStartingWith(
                        "The profile 'nothing' (--profile) holds no aws_access_key_id and aws_secret_access_key")
                .hasMessageContaining("names no other source of credentials (role_arn, sso_session");
    }

    @Test
    void aProfileWithHalfAPairIsRefusedAndOneWithASessionTokenPassesItOn() throws IOException {
        credentialsFile("[default]\naws_access_key_id = AKHALF\n"
                + "[temp]\naws_access_key_id = ASIATEMP\naws_secret_access_key = t\naws_session_token = token\n");
        assertThatThrownBy(this::resolve)
                .hasMessage("The profile 'default' in " + home.resolve(".aws/credentials")
                        + " has aws_access_key_id but no aws_secret_access_key; add the missing line.");
        options.profile = "temp";
        assertThat(resolved())
                .extracting(S3Credentials::accessKey, S3Credentials::sessionToken)
                .containsExactly("ASIATEMP", "token");
        assertThat(resolved().toString()).doesNotContain("token\"").doesNotContain("=token");
    }

    @Test
    void theEnvironmentsSessionTokenGoesWithItsKeys() {
        env.put("AWS_ACCESS_KEY_ID", "ASIAENV");
        env.put("AWS_SECRET_ACCESS_KEY", "secret-env");
        env.put("AWS_SESSION_TOKEN", "env-token");
        assertThat(resolved())
                .extracting(S3Credentials::accessKey, S3Credentials::sessionToken)
                .containsExactly("ASIAENV", "env-token");
        options.accessKey = "AKFLAG";
        assertThat(resolved().sessionToken())
                .as("keys given as flags are long-term")
                .isNull();
    }

    @Test
    void theRegionIsTheFlagsElseTheEnvironmentsElseTheProfilesAsInTheAwsCli() throws IOException {
        configFile("[default]\nregion = eu-north-1\n[profile prod]\nregion = eu-west-3\n");
        assertThat(S3Credentials.region(options, env, home)).isEqualTo("eu-north-1");
        env.put("AWS_PROFILE", "prod");
        assertThat(S3Credentials.region(options, env, home)).isEqualTo("eu-west-3");
        options.profile = "default";
        assertThat(S3Credentials.region(options, env, home))
                .as("--profile over AWS_PROFILE")
                .isEqualTo("eu-north-1");
        env.put("AWS_DEFAULT_REGION", "ca-central-1");
        assertThat(S3Credentials.region(options, env, home)).isEqualTo("ca-central-1");
        env.put("AWS_REGION", "sa-east-1");
        assertThat(S3Credentials.region(options, env, home)).isEqualTo("sa-east-1");
        options.region = "ap-south-1";
        assertThat(S3Credentials.region(options, env, home)).isEqualTo("ap-south-1");
        options.region = null;
        env.clear();
        options.profile = "absent";
        assertThat(S3Credentials.region(options, env, home)).isEqualTo("us-east-1");
    }

    @Test
    void theRegionIsReadFromTheConfigFileAwsConfigFileNames() throws IOException {
        Path elsewhere = Files.writeString(home.resolve("my-config"), "[profile prod]\nregion = eu-south-1\n");
        env.put("AWS_CONFIG_FILE", elsewhere.toString());
        options.profile = "prod";
        assertThat(S3Credentials.region(options, env, home)).isEqualTo("eu-south-1");
    }

    @Test
    void aCredentialsFileThatCannotBeParsedIsAnInputErrorNamingIt() throws IOException {
        credentialsFile("aws_access_key_id = AKNOSECTION\n");
        assertThatThrownBy(this::resolve)
                .isInstanceOfSatisfying(
                        CliFailure.class, f -> assertThat(f.exitCode()).isEqualTo(ExitCodes.USAGE))
                .hasMessageStartingWith(
                        "The AWS credentials file '" + home.resolve(".aws/credentials") + "' cannot be read (")
                .hasMessageEndingWith("); fix it or point AWS_SHARED_CREDENTIALS_FILE at another file.");
    }

    @Test
    void theSecretNeverShowsInTheStringForm() {
        env.put("AWS_ACCESS_KEY_ID", "AKENV");
        env.put("AWS_SECRET_ACCESS_KEY", "very-secret");
        assertThat(resolved().toString()).contains("AKENV").doesNotContain("very-secret");
    }
}
