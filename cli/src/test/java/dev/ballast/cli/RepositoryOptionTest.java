package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.testkit.LeakCheck;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code -r/--repo} and {@code $BALLAST_REPOSITORY}: the store named as a restic user names a
 * repository ({@code restic -r DIR}, {@code $RESTIC_REPOSITORY}, {@code s3:URL/BUCKET}).
 */
@ExtendWith(LeakCheck.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RepositoryOptionTest extends InProcessCli {
    /** The options {@code value} of {@code --repo} (or of the variable, when null) gives, with {@code given} on the line. */
    private static CommonOptions applied(String repo, Map<String, String> env, String... given) {
        CommonOptions o = new CommonOptions();
        o.repo = repo;
        o.bucket = CommonOptions.DEFAULT_BUCKET;
        RepositoryOption.apply(o, env, Set.of(given)::contains);
        return o;
    }

    @Test
    void aDirectoryIsTheLocalStoreItselfAndTheVariableNamesItForEveryCommand() throws Exception {
        Path src = Files.createDirectories(home.resolve("src"));
        Files.writeString(src.resolve("a.txt"), "a");
        Path repo = home.resolve("My Backups"); // not a bucket name: the directory is the user's to name

        assertThat(run("backup", src.toString(), "-r", repo.toString()))
                .as(err())
                .isZero();
        assertThat(repo.resolve("index.db")).exists();
        assertThat(run(Map.of(RepositoryOption.VARIABLE, repo.toString()), "list"))
                .as(err())
                .isZero();
        assertThat(out()).startsWith("src\n");
        // before the command, as restic takes its global options (a README user's 'ballast -r REPO list')
        assertThat(run("-r", repo.toString(), "list")).as(err()).isZero();
        assertThat(out()).startsWith("src\n");
        assertThat(run("--repo=" + repo, "-v", "ls", "src")).as(err()).isZero();
        assertThat(out()).contains("a.txt");
        // the same store through --data-dir and --bucket: the options win over the variable
        assertThat(run(
                        Map.of(
                                RepositoryOption.VARIABLE,
                                home.resolve("elsewhere").toString()),
                        "list",
                        "--data-dir",
                        home.toString(),
                        "--bucket",
                        "my-backups"))
                .isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(err()).contains("There is no local store at " + home.resolve("my-backups"));
    }

    /**
     * A folder holding an 's3' directory beside the new store (a tester's: refused as the embedded
     * S3Mock's data of earlier builds, with advice to pass --data-dir, which was never given).
     */
    @Test
    void aNewStoreBesideAnS3DirectoryIsMade() throws Exception {
        Path src = Files.createDirectories(home.resolve("src"));
        Files.writeString(src.resolve("a.txt"), "a");
        Files.createDirectories(home.resolve("work").resolve("s3"));
        Path repo = home.resolve("work").resolve("newstore");

        assertThat(run("-r", repo.toString(), "backup", src.toString()))
                .as(err())
                .isZero();
        assertThat(run("-r", repo.toString(), "list")).as(err()).isZero();
        assertThat(out()).startsWith("src\n");
    }

    @Test
    void theDataDirectoryGivenAsRepoIsRefusedAndNothingIsCreated() throws Exception {
        Path src = Files.createDirectories(home.resolve("src"));
        Files.writeString(src.resolve("a.txt"), "a");
        Path dataDir = home.resolve("data");
        assertThat(run("backup", src.toString(), "--data-dir", dataDir.toString()))
                .as(err())
                .isZero();

        assertThat(run("backup", src.toString(), "-r", dataDir.toString())).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .isEqualTo("Error: '" + dataDir + "' is a data directory holding the local store "
                        + dataDir.resolve("ballast-backups") + "; pass --repo " + dataDir.resolve("ballast-backups")
                        + " (nothing was created).\n");
        assertThat(dataDir.resolve("index.db")).doesNotExist();

        // a tester's: two levels inside the store, where one level was refused and two made a second store
        Path inside = dataDir.resolve("ballast-backups").resolve("blobs").resolve("new");
        assertThat(run("backup", src.toString(), "-r", inside.toString())).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .isEqualTo("Error: '" + inside + "' is inside the local store " + dataDir.resolve("ballast-backups")
                        + ", so a store there would be a second store inside the first; pass --repo "
                        + dataDir.resolve("ballast-backups") + " (nothing was created).\n");
        assertThat(inside).doesNotExist();
        assertThat(run("list", "-r", home.resolve("nosuch").toString())).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(err()).contains("check --repo (the first backup into a store creates it)");
    }

    @Test
    void s3FormsAsResticWritesThem() {
        CommonOptions http = applied("s3:http://127.0.0.1:9000/backups", Map.of());
        assertThat(http.endpoint).isEqualTo(URI.create("http://127.0.0.1:9000"));
        assertThat(http.bucket).isEqualTo("backups");
        CommonOptions noScheme = applied(null, Map.of("BALLAST_REPOSITORY", "s3:s3.eu-west-1.amazonaws.com/nightly/"));
        assertThat(noScheme.endpoint).isEqualTo(URI.create("https://s3.eu-west-1.amazonaws.com"));
        assertThat(noScheme.bucket).isEqualTo("nightly");
        assertThat(applied("S3:http://127.0.0.1:9000/backups", Map.of()).endpoint)
                .as("restic's schemes in capitals, as a tester typed them")
                .isEqualTo(URI.create("http://127.0.0.1:9000"));
        CommonOptions local = applied("local:/srv/backups", Map.of());
        assertThat(local.dataDir).isEqualTo(Path.of("/srv"));
        assertThat(local.bucket).isEqualTo("backups");
        assertThat(local.endpoint).isNull();
    }

    /**
     * {@code init} (and a backup into a store it knows) opens its bucket for writing, probing what the store
     * honours: a failure there named the store "the S3 endpoint URL (bucket 'B')", every other message "the S3
     * endpoint URL, bucket 'B'" (a newcomer's). They say it one way.
     */
    @Test
    void aFailureToOpenABucketForWritingNamesTheStoreAsEveryOtherMessageDoes() {
        assertThat(run("init", "--endpoint", "http://127.0.0.1:1", "--bucket", "weekly"))
                .isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .startsWith("Error: No credentials were found for the S3 endpoint http://127.0.0.1:1,"
                        + " bucket 'weekly'; ");
    }

    /**
     * A tester's: {@code --bucket B} beside {@code $BALLAST_REPOSITORY=s3:http://host:port/bucket} dropped the
     * variable's endpoint and used a local store named B, and {@code --endpoint} beside a local directory
     * the bucket 'ballast-backups'. An option beside the variable now replaces the part of its store it
     * names, and what leaves the store unknown is refused in one sentence.
     */
    @Test
    void aStoreOptionBesideTheVariableReplacesThePartItNames() {
        Map<String, String> s3 = Map.of(RepositoryOption.VARIABLE, "s3:http://127.0.0.1:1/nightly");
        assertThat(run(s3, "list", "--bucket", "weekly")).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .startsWith("Error: No credentials were found for the S3 endpoint http://127.0.0.1:1,"
                        + " bucket 'weekly'; ");
        assertThat(run(s3, "list", "--endpoint", "http://127.0.0.1:2")).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .startsWith("Error: No credentials were found for the S3 endpoint http://127.0.0.1:2,"
                        + " bucket 'nightly'; ");

        Path local = home.resolve("stores").resolve("nightly");
        Map<String, String> directory = Map.of(RepositoryOption.VARIABLE, local.toString());
        assertThat(run(directory, "list", "--bucket", "weekly")).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(err())
                .startsWith("Error: There is no local store at "
                        + home.resolve("stores").resolve("weekly"));
        assertThat(run(directory, "list", "--endpoint", "http://127.0.0.1:2")).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .isEqualTo("Error: --endpoint http://127.0.0.1:2 names an S3 endpoint but no bucket, and"
                        + " $BALLAST_REPOSITORY " + local + " a local store; pass --bucket too (or --repo"
                        + " s3:http://127.0.0.1:2/BUCKET), or leave --endpoint out to use the local store.\n");
        assertThat(run(s3, "list", "--data-dir", home.toString())).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .isEqualTo("Error: --data-dir " + home + " names the folder of a local store but not the store, and"
                        + " $BALLAST_REPOSITORY s3:http://127.0.0.1:1/nightly an S3 bucket; pass --bucket too to use"
                        + " the store " + home + "/BUCKET, or leave --data-dir out to use $BALLAST_REPOSITORY.\n");
        assertThat(home.resolve("stores")).doesNotExist();
    }

    @Test
    void whatNamesNoUsableStoreIsRefusedInOneSentence() {
        assertThatThrownBy(() -> applied("/srv/backups", Map.of(), "--bucket"))
                .hasMessage("--repo /srv/backups names the store, and so does --bucket; pass --repo alone, or"
                        + " --bucket without it.");
        assertThatThrownBy(() -> applied("sftp:user@host:/srv/restic", Map.of()))
                .hasMessage("--repo sftp:user@host:/srv/restic names restic's sftp backend; Ballast stores in a local"
                        + " directory or an S3 bucket: give a directory or s3:URL/BUCKET.");
        assertThatThrownBy(() -> applied("s3:http://host:9000/bucket/folder", Map.of()))
                .hasMessageStartingWith("--repo s3:http://host:9000/bucket/folder is not s3:URL/BUCKET: ");
        assertThatThrownBy(() -> applied(null, Map.of("BALLAST_REPOSITORY", " ")))
                .hasMessageStartingWith("$BALLAST_REPOSITORY is empty: ");
        assertThatThrownBy(() -> applied("/", Map.of()))
                .hasMessageStartingWith("--repo / names no directory a store can live in");

        assertThat(run("list", "-r", "rest:http://host:8000/")).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .isEqualTo("Error: --repo rest:http://host:8000/ names restic's rest backend; Ballast stores"
                        + " in a local directory or an S3 bucket: give a directory or s3:URL/BUCKET.\n");
    }

    /**
     * A tester's: another user's store (mode 700) was "no local store here; check --data-dir and
     * --bucket" (exit 5), which sends the user looking for it elsewhere.
     */
    @Test
    void aStoreThisUserMayNotReadIsSaidSoNotMissing() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeFalse(
                "root".equals(System.getProperty("user.name")), "root reads any directory");
        Path src = Files.createDirectories(home.resolve("src"));
        Files.writeString(src.resolve("a.txt"), "a");
        Path repo = home.resolve("repo");
        assertThat(run("backup", src.toString(), "-r", repo.toString()))
                .as(err())
                .isZero();
        Files.setPosixFilePermissions(repo, java.nio.file.attribute.PosixFilePermissions.fromString("---------"));
        try {
            assertThat(run("list", "-r", repo.toString())).isEqualTo(ExitCodes.USAGE);
            assertThat(err()).contains("The local store " + repo + " cannot be read by this user (permission denied)");
        } finally {
            Files.setPosixFilePermissions(repo, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        }
    }

    @Test
    void theOptionsBeforeKeyOrItsSubcommandNameTheRepositoryTheSubcommandActsOn() throws Exception {
        // A README user's 'ballast -r REPO key add' added the password to the default store, and 'ballast -r
        // REPO key list' listed the default store's keys: key's subcommands never read the options key took.
        Path repo = home.resolve("repo");
        assertThat(run("init", "-r", repo.toString())).as(err()).isZero();
        Path second = Files.writeString(home.resolve("second.txt"), "second password\n");

        assertThat(run("-r", repo.toString(), "key", "add", "--new-password-file", second.toString()))
                .as(err())
                .isZero();
        assertThat(run("key", "-r", repo.toString(), "-v", "list")).as(err()).isZero();
        assertThat(out().lines().filter(l -> l.matches("^[ *][0-9a-f]{8} .*"))).hasSize(2);
        assertThat(run("key", "list", "--password-file", second.toString(), "-r", repo.toString()))
                .as(err())
                .isZero();
        assertThat(data()).doesNotExist();
        assertThat(home.resolve(".ballast")).doesNotExist();

        // key without a subcommand still says so, with or without the options
        assertThat(run("-r", repo.toString(), "key")).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("Missing subcommand");
        // restic's word after the options gets its hint, as it does first
        assertThat(run("-r", repo.toString(), "snapshots")).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).startsWith("Error: Unknown command 'snapshots': restic's 'snapshots' is 'ballast list' here");
    }

    @Test
    void aResticRepositoryGivenAsRepoIsNamedSoAndTheAdviceIsAnotherRepo() throws Exception {
        // A README user's 'ballast -r RESTIC_REPO backup ...' was told to "pass another --data-dir or --bucket".
        Path restic = Files.createDirectories(home.resolve("restic-repo"));
        Files.writeString(restic.resolve("config"), "x");
        for (String d : new String[] {"keys", "data", "snapshots", "index", "locks"}) {
            Files.createDirectories(restic.resolve(d));
        }
        Path src = Files.createDirectories(home.resolve("src"));
        Files.writeString(src.resolve("a.txt"), "a");

        assertThat(run("-r", restic.toString(), "backup", src.toString())).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .contains("cannot hold backups")
                .contains("; pass another --repo (it is a restic repository, whose format Ballast does not read).");
        assertThat(run(Map.of(RepositoryOption.VARIABLE, restic.toString()), "backup", src.toString()))
                .isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("; pass another $BALLAST_REPOSITORY (it is a restic repository");
        try (var files = Files.list(restic)) {
            assertThat(files).hasSize(6);
        }
    }
}
