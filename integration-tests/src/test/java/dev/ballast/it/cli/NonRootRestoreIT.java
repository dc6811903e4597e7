package dev.ballast.it.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A restore by a user other than root over an earlier restore that holds directories of mode 0000, one in
 * the other, as the backup recorded them (a fault tester's finding). The restore could not look into the directory, took the
 * file in it for free, opened the directory for writing and replaced a file the user had changed, without
 * {@code --overwrite}; every later run left the directory at 0300 and exited 1; and a first restore of the
 * two exited 1, taking the inner one for moved away and failing to sync it. Run through the
 * {@code ./ballast} launcher as {@code nobody} ({@code setpriv}); skipped unless this test runs as root on
 * a machine with {@code setpriv} and a {@code nobody} user.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class NonRootRestoreIT {
    @TempDir
    Path dir;

    record Result(int code, String output) {}

    private static String idOf(String flag) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("id", flag, "nobody")
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        return p.waitFor() == 0 && out.matches("\\d+") ? out : null;
    }

    private Result run(boolean asNobody, String uid, String gid, String... args)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        if (asNobody) {
            command.addAll(List.of("setpriv", "--reuid=" + uid, "--regid=" + gid, "--clear-groups"));
        }
        Path root = Path.of(System.getProperty("ballast.repository.root", ".."))
                .toAbsolutePath()
                .normalize();
        command.add(root.resolve("ballast").toString());
        command.addAll(List.of(args));
        command.addAll(List.of("--data-dir", dir.resolve("store").toString()));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("BALLAST_PASSWORD", CliHarness.TEST_PASSWORD);
        pb.environment().put("HOME", dir.resolve("home").toString());
        pb.environment().put("XDG_CACHE_HOME", dir.resolve("home/cache").toString());
        pb.environment().remove("BALLAST_JAVA_OPTS");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(4, TimeUnit.MINUTES)).isTrue();
        return new Result(p.exitValue(), out);
    }

    private void chown(String uid, String gid, Path... paths) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("chown", "-R", uid + ":" + gid));
        for (Path p : paths) {
            command.add(p.toString());
        }
        assertThat(new ProcessBuilder(command).inheritIO().start().waitFor()).isZero();
    }

    /**
     * {@code nobody}'s user and group IDs, after the assumptions the tests make (run as root, with {@code setpriv}
     * and a {@code nobody} user), with the test's directory opened to everyone for that user.
     */
    private String[] nobody() throws IOException, InterruptedException {
        String uid = idOf("-u");
        String gid = idOf("-g");
        assumeTrue("root".equals(System.getProperty("user.name")), "runs the restores as nobody, from root");
        assumeTrue(uid != null && gid != null, "no nobody user");
        assumeTrue(new ProcessBuilder("setpriv", "--version").start().waitFor() == 0, "no setpriv");
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        return new String[] {uid, gid};
    }

    private static String mode(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }

    @Test
    void aTargetOfMode0500ThisUserOwnsIsRestoredIntoAndKeepsItsMode() throws Exception {
        // A tester's finding: a target of mode 0500 or 0555 was refused ("nothing can be created in it"), where
        // one of mode 0000 was restored into.
        String[] nobody = nobody();
        String uid = nobody[0];
        String gid = nobody[1];
        Files.createDirectories(dir.resolve("src/sub"));
        Files.writeString(dir.resolve("src/sub/f"), "f\n");
        Files.createDirectories(dir.resolve("home"));
        assertThat(run(false, uid, gid, "backup", dir.resolve("src").toString(), "-q")
                        .code())
                .isZero();
        Path t = Files.createDirectories(dir.resolve("t"));
        chown(uid, gid, dir.resolve("store"), dir.resolve("home"), t);
        Files.setPosixFilePermissions(t, PosixFilePermissions.fromString("r-x------"));

        Result r = run(true, uid, gid, "restore", "src", t.toString(), "-q");

        assertThat(r.code()).as(r.output()).isZero();
        assertThat(t.resolve("sub/f")).hasContent("f");
        assertThat(mode(t)).isEqualTo("r-x------");
    }

    @Test
    void aChangedFileInADirectoryOfMode0000IsInTheWayAndAnIdenticalRerunPutsTheModeBack() throws Exception {
        String[] nobody = nobody();
        String uid = nobody[0];
        String gid = nobody[1];
        Path inner = Files.createDirectories(dir.resolve("src/z/y"));
        Files.writeString(inner.resolve("f"), "orig\n");
        Files.setPosixFilePermissions(inner, PosixFilePermissions.fromString("---------"));
        Files.setPosixFilePermissions(inner.getParent(), PosixFilePermissions.fromString("---------"));
        Files.createDirectories(dir.resolve("home"));
        assertThat(run(false, uid, gid, "backup", dir.resolve("src").toString(), "-q")
                        .code())
                .isZero();
        chown(uid, gid, dir.resolve("store"), dir.resolve("home"));
        Files.createDirectories(dir.resolve("t"));
        chown(uid, gid, dir.resolve("t"));
        Path t = dir.resolve("t");
        assertThat(run(true, uid, gid, "restore", "src", t.toString(), "-q").code())
                .isZero();
        assertThat(mode(t.resolve("z/y")) + mode(t.resolve("z"))).isEqualTo("------------------");
        Files.writeString(t.resolve("z/y/f"), "USER EDIT\n"); // as root: the user's change to the restored file

        Result refused = run(true, uid, gid, "restore", "src", t.toString(), "-q");

        assertThat(refused.code()).as(refused.output()).isEqualTo(6);
        assertThat(refused.output()).contains("In the way: z/y/f (an existing file differs from the backup's)");
        assertThat(t.resolve("z/y/f")).hasContent("USER EDIT");
        assertThat(mode(t.resolve("z/y")) + mode(t.resolve("z"))).isEqualTo("------------------");

        Result replaced = run(true, uid, gid, "restore", "src", t.toString(), "--overwrite", "-q");
        assertThat(replaced.code()).as(replaced.output()).isZero();
        assertThat(t.resolve("z/y/f")).hasContent("orig");
        assertThat(mode(t.resolve("z/y")) + mode(t.resolve("z"))).isEqualTo("------------------");

        Result again = run(true, uid, gid, "restore", "src", t.toString(), "-q");
        assertThat(again.code()).as(again.output()).isZero();
        assertThat(mode(t.resolve("z/y")) + mode(t.resolve("z"))).isEqualTo("------------------");
        assertThat(Files.getLastModifiedTime(t.resolve("z/y"))).isEqualTo(Files.getLastModifiedTime(inner));
    }
}
