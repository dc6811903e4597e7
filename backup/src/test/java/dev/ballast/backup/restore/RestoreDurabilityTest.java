package dev.ballast.backup.restore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.backup.BackupException;
import dev.ballast.backup.Cancellation;
import dev.ballast.backup.ProgressCounter;
import dev.ballast.backup.run.BackupRunner;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.test.FakeObjectStore;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** What a restore makes durable at its end ({@link RestoreSync}), and what a failure there does. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
@ExtendWith(LeakCheck.class)
class RestoreDurabilityTest {
    static final Instant MTIME = Instant.parse("2025-05-05T05:05:05Z");

    @TempDir
    Path dir;

    final FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime());

    Manifest manifest(Map<String, String> files) {
        List<ManifestEntry> entries = new ArrayList<>();
        files.forEach((path, content) -> {
            byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
            ObjectVersion v = store.put(Manifest.objectKey("n", path), ObjectContent.ofBytes(bytes));
            entries.add(new ManifestEntry(path, bytes.length, v.sha256(), v.versionId(), MTIME));
        });
        return new Manifest(1, "n", MTIME, true, entries, List.of());
    }

    final Cancellation cancellation = new Cancellation();

    /** An end sync that is available and does nothing. */
    static final RestoreSync NO_SYNC = new RestoreSync() {
        @Override
        public boolean available(Path realTarget) {
            return true;
        }

        @Override
        public void syncAll(Collection<Path> directories) {}
    };

    /**
     * Progress that, once {@code after} files are done, moves {@code target/d12} aside and puts a link to
     * {@code victim} in its place (keeping the victim's mtime).
     */
    ProgressCounter swappingD12(int after, Path target, Path victim) {
        java.util.concurrent.atomic.AtomicInteger done = new java.util.concurrent.atomic.AtomicInteger();
        return new ProgressCounter(0, 0) {
            @Override
            public void fileDone() {
                super.fileDone();
                if (done.incrementAndGet() == after) {
                    try {
                        java.nio.file.attribute.FileTime victimTime = Files.getLastModifiedTime(victim);
                        Files.move(target.resolve("d12"), dir.resolve("d12.moved"));
                        Files.createSymbolicLink(target.resolve("d12"), victim);
                        Files.setLastModifiedTime(victim, victimTime);
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }
            }
        };
    }

    RestoreRunner runner(Manifest m, Path target, RestoreSync sync) {
        return new RestoreRunner(store, m, target, false, 4, cancellation, x -> new ProgressCounter(0, 0))
                .syncingWith(sync);
    }

    /** An end sync during which Ctrl-C comes: it cancels the run, then hangs until interrupted or fails. */
    final class CtrlCDuringTheSync implements RestoreSync {
        final boolean hang;
        final java.util.concurrent.CountDownLatch interrupted = new java.util.concurrent.CountDownLatch(1);

        CtrlCDuringTheSync(boolean hang) {
            this.hang = hang;
        }

        @Override
        public boolean available(Path target) {
            return true;
        }

        @Override
        public void syncAll(Collection<Path> directories) throws IOException {
            cancellation.cancel();
            if (!hang) {
                throw new IOException("'sync -f " + directories.iterator().next() + "' exited with 130");
            }
            try {
                new java.util.concurrent.CountDownLatch(1).await(); // a syncfs on a disk that went away
            } catch (InterruptedException e) {
                interrupted.countDown();
                throw new java.io.InterruptedIOException("interrupted");
            }
        }
    }

    /** A sync that records what it was given and what stood in the target then, and fails when told to. */
    static final class Recording implements RestoreSync {
        final boolean available;
        final @org.jspecify.annotations.Nullable IOException failure;
        final List<Collection<Path>> calls = new ArrayList<>();
        final List<String> contentAtSync = new ArrayList<>();
        Path probe;

        Recording(boolean available, @org.jspecify.annotations.Nullable IOException failure) {
            this.available = available;
            this.failure = failure;
        }

        @Override
        public boolean available(Path target) {
            return available;
        }

        @Override
        public void syncAll(Collection<Path> directories) throws IOException {
            calls.add(List.copyOf(directories));
            contentAtSync.add(Files.exists(probe) ? Files.readString(probe) : "(absent)");
            if (failure != null) {
                throw failure;
            }
        }
    }

    @Test
    @EnabledOnOs({OS.LINUX, OS.MAC})
    void aDirectorySwappedForALinkAfterItWasCreatedAndBeforeItsFilesAreWrittenIsNotWrittenThrough() throws IOException {
        // A tester's run: d12 moved aside and replaced by a link to another directory while the restore
        // asked whether the end sync runs (after creating every directory, before writing any file); the
        // 100 files there were overwritten with the backup's, and the restore named only the directory.
        Path target = dir.resolve("out");
        Path victim = Files.createDirectories(dir.resolve("victim"));
        Files.writeString(victim.resolve("f1"), "precious 1");
        Files.writeString(victim.resolve("f2"), "precious 2");
        RestoreSync swapping = new RestoreSync() {
            @Override
            public boolean available(Path realTarget) {
                try {
                    Files.move(realTarget.resolve("d12"), realTarget.resolve("d12.moved"));
                    Files.createSymbolicLink(realTarget.resolve("d12"), victim);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
                return true;
            }

            @Override
            public void syncAll(Collection<Path> directories) {}
        };

        RestoreRunner.Result r = runner(
                        manifest(Map.of("d12/f1", "from the backup 1", "d12/f2", "from the backup 2", "a.txt", "a")),
                        target,
                        swapping)
                .run();

        assertThat(r.ok()).isFalse();
        assertThat(r.failed()).extracting(BackupRunner.Failure::path).contains("d12/f1", "d12/f2");
        assertThat(r.failed()).allSatisfy(f -> assertThat(f.reason()).contains("replaced"));
        assertThat(victim.resolve("f1")).hasContent("precious 1");
        assertThat(victim.resolve("f2")).hasContent("precious 2");
        assertThat(target.resolve("a.txt")).hasContent("a");
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void aDirectorySwappedForALinkBetweenTwoOfItsFilesIsNeverWrittenThrough() throws IOException {
        // The check by path before each file left a window between the check and the write: a swap there
        // sent the file through the link. Each directory is now held open from its first file on, and its
        // files are created and renamed relative to it (openat, renameat), so a swap at any moment is
        // never written through.
        Path target = dir.resolve("out");
        Path victim = Files.createDirectories(dir.resolve("victim"));
        for (int i = 1; i <= 3; i++) {
            Files.writeString(victim.resolve("f" + i), "precious " + i);
        }
        ProgressCounter swapAfterTheFirstFile = swappingD12(1, target, victim);
        Manifest m = manifest(
                Map.of("d12/f1", "from the backup 1", "d12/f2", "from the backup 2", "d12/f3", "from the backup 3"));

        RestoreRunner.Result r = new RestoreRunner(store, m, target, false, 1, cancellation, x -> swapAfterTheFirstFile)
                .syncingWith(NO_SYNC)
                .run();

        assertThat(r.ok()).isFalse();
        assertThat(r.failed())
                .extracting(BackupRunner.Failure::path)
                .containsExactlyInAnyOrder("d12/f1", "d12/f2", "d12/f3");
        assertThat(r.failed()).allSatisfy(f -> assertThat(f.reason()).contains("moved or replaced"));
        for (int i = 1; i <= 3; i++) {
            assertThat(victim.resolve("f" + i)).hasContent("precious " + i);
            assertThat(dir.resolve("d12.moved").resolve("f" + i)).hasContent("from the backup " + i);
        }
        try (var left = Files.list(dir.resolve("d12.moved"))) {
            assertThat(left).as("no temporary file left").hasSize(3);
        }
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void aDirectorySwappedForALinkAfterItsFilesGetsNoLinkAndNoAttributesMadeThroughIt() throws IOException {
        // A tester's run as root: d120 swapped for a link to a directory of theirs once its files were
        // written. Links and directory attributes are applied by path after the files: a symbolic link
        // was created there, a file of theirs replaced by a hard link, their directories given the backup's
        // owner, mode and mtime; the files were counted restored.
        Path target = dir.resolve("out");
        Path victim = Files.createDirectories(dir.resolve("victim"));
        Files.writeString(victim.resolve("h1"), "precious");
        Files.writeString(victim.resolve("f2"), "precious 2");
        java.nio.file.attribute.FileTime victimTime =
                java.nio.file.attribute.FileTime.from(Instant.parse("2010-01-01T00:00:00Z"));
        Files.setLastModifiedTime(victim, victimTime);
        ProgressCounter swapOnceTheFilesAreWritten = swappingD12(2, target, victim);
        Manifest files = manifest(Map.of("d12/f1", "from the backup 1", "d12/f2", "from the backup 2", "a.txt", "a"));
        Manifest m = new Manifest(
                1,
                "n",
                MTIME,
                true,
                files.files(),
                List.of(),
                new dev.ballast.backup.snapshot.ManifestTree(
                        List.of(new dev.ballast.backup.snapshot.ManifestTree.Directory("d12", MTIME, null)),
                        List.of(new dev.ballast.backup.snapshot.ManifestTree.Symlink("d12/sl", "f1", MTIME, null)),
                        List.of(new dev.ballast.backup.snapshot.ManifestTree.HardLink("d12/h1", "d12/f2"))));

        RestoreRunner.Result r = new RestoreRunner(
                        store, m, target, false, 1, cancellation, x -> swapOnceTheFilesAreWritten)
                .syncingWith(NO_SYNC)
                .run();

        assertThat(victim.resolve("h1")).hasContent("precious");
        assertThat(victim.resolve("f2")).hasContent("precious 2");
        assertThat(victim.resolve("sl")).doesNotExist();
        assertThat(Files.getLastModifiedTime(victim)).isEqualTo(victimTime);
        assertThat(r.ok()).isFalse();
        assertThat(r.failed())
                .extracting(BackupRunner.Failure::path)
                .containsExactlyInAnyOrder("d12/f1", "d12/f2", "d12/sl", "d12/h1", "d12");
        assertThat(r.restored()).as("a.txt alone is where the backup has it").isEqualTo(1);
        assertThat(target.resolve("a.txt")).hasContent("a");
    }

    @Test
    void theEndSyncNamesADirectoryItCanOpenNotOneWhoseModeDeniesReading() throws IOException {
        // A restore by a user other than root of a backup holding a directory of mode 0000: the sync
        // was given that directory, which the user could no longer open, and the restore failed with
        // every file in place.
        Path target = Files.createDirectories(dir.resolve("out"));
        Path closed = Files.createDirectories(target.resolve("zero/sub"));
        Object device = Files.getAttribute(closed, "unix:dev");

        assertThat(FileSystemSync.nameable(closed, device, p -> !p.startsWith(target.resolve("zero"))))
                .isEqualTo(target);
        assertThat(FileSystemSync.nameable(closed, device, p -> true)).isEqualTo(closed);
    }

    @Test
    void aFailedEndSyncFailsTheRestoreInOneSentenceNamingTheTarget() {
        Path target = dir.resolve("out");
        Recording sync = new Recording(true, new IOException("Input/output error"));
        sync.probe = target.resolve("a.txt");
        RestoreRunner r = runner(manifest(Map.of("a.txt", "alpha", "d/b.txt", "bravo")), target, sync);

        assertThatThrownBy(r::run)
                .isInstanceOfSatisfying(
                        BackupException.class, e -> assertThat(e.kind()).isEqualTo(BackupException.Kind.INCOMPLETE))
                .hasMessage("The restore into '" + target + "' did not complete because what it wrote could not be "
                        + "synced to disk (Input/output error); run the restore again once the cause is fixed (it "
                        + "checks the files already in place and keeps those that match).");
        assertThat(sync.calls).hasSize(1);
    }

    @Test
    void everythingIsInPlaceWhenTheEndSyncRunsAndItIsGivenEveryDirectoryWrittenInto() throws IOException {
        Path target = dir.resolve("out");
        Recording sync = new Recording(true, null);
        sync.probe = target.resolve("d/e/b.txt");

        RestoreRunner.Result r = runner(manifest(Map.of("a.txt", "alpha", "d/e/b.txt", "bravo")), target, sync)
                .run();

        assertThat(r.ok()).isTrue();
        assertThat(sync.contentAtSync).containsExactly("bravo");
        Path real = target.toRealPath();
        assertThat(sync.calls)
                .singleElement()
                .satisfies(
                        dirs -> assertThat(dirs).contains(real.resolve("d/e")).containsAnyOf(real, target));
    }

    @Test
    void withoutAnEndSyncTheRestoreSyncsAsItGoesAndDoesNotCallIt() throws IOException {
        Path target = dir.resolve("out");
        Recording sync = new Recording(false, new IOException("must not be called"));
        sync.probe = target.resolve("a.txt");

        RestoreRunner.Result r =
                runner(manifest(Map.of("a.txt", "alpha")), target, sync).run();

        assertThat(r.ok()).isTrue();
        assertThat(sync.calls).isEmpty();
        assertThat(target.resolve("a.txt")).hasContent("alpha");
    }

    @Test
    void aCtrlCWhileTheEndSyncHangsEndsTheWaitAndTheRunIsReportedInterrupted() throws Exception {
        Path target = dir.resolve("out");
        CtrlCDuringTheSync sync = new CtrlCDuringTheSync(true);

        RestoreRunner.Result r =
                runner(manifest(Map.of("a.txt", "alpha")), target, sync).run();

        assertThat(r.cancelled()).isTrue();
        assertThat(r.ok()).isFalse();
        assertThat(sync.interrupted.await(10, TimeUnit.SECONDS)).isTrue(); // the sync's thread was told to stop
        assertThat(target.resolve("a.txt")).hasContent("alpha");
    }

    @Test
    void aSyncKilledByTheSameCtrlCIsTheInterruptionNotAFailedSync() throws IOException {
        Path target = dir.resolve("out");

        RestoreRunner.Result r = runner(manifest(Map.of("a.txt", "alpha")), target, new CtrlCDuringTheSync(false))
                .run();

        assertThat(r.cancelled()).isTrue();
        assertThat(r.failed()).isEmpty();
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void aSyncCommandThatHangsIsKilledWhenItsWaitIsInterruptedAndItsOutputIsKeptBounded() throws Exception {
        Path pid = dir.resolve("pid");
        FileSystemSync hanging = new FileSystemSync(List.of(
                "sh", "-c", "echo $$ > '" + pid + ".tmp'; mv '" + pid + ".tmp' '" + pid + "'; exec sleep 100000"));
        java.util.concurrent.CompletableFuture<Throwable> outcome = new java.util.concurrent.CompletableFuture<>();
        Thread waiting = new Thread(() -> {
            try {
                hanging.syncAll(List.of(dir));
                outcome.complete(null);
            } catch (Throwable t) {
                outcome.complete(t);
            }
        });
        waiting.start();
        while (!Files.exists(pid)) {
            Thread.onSpinWait(); // the command has started once it wrote its pid
        }
        long child = Long.parseLong(Files.readString(pid).strip());
        waiting.interrupt();

        assertThat(outcome.get(20, TimeUnit.SECONDS)).isInstanceOf(java.io.InterruptedIOException.class);
        ProcessHandle.of(child).ifPresent(h -> h.onExit().join());
        assertThat(ProcessHandle.of(child).map(ProcessHandle::isAlive)).isNotEqualTo(java.util.Optional.of(true));

        FileSystemSync chatty =
                new FileSystemSync(List.of("sh", "-c", "head -c 10000000 /dev/zero | tr '\\0' x; exit 1"));
        assertThatThrownBy(() -> chatty.syncAll(List.of(dir)))
                .isInstanceOf(IOException.class)
                .satisfies(e -> assertThat(e.getMessage().length()).isLessThan(FileSystemSync.OUTPUT_KEPT + 200));
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void theFileSystemSyncRunsItsCommandOncePerFileSystemAndReportsItsFailure() throws IOException {
        Path a = Files.createDirectories(dir.resolve("a"));
        Path b = Files.createDirectories(dir.resolve("b"));
        Path log = dir.resolve("log");
        FileSystemSync logging = new FileSystemSync(List.of("sh", "-c", "echo \"$0\" >> '" + log + "'"));
        assertThat(logging.available(dir)).isTrue();
        logging.syncAll(List.of(a, b));
        assertThat(Files.readAllLines(log)).containsExactly(dir.toString(), a.toString());

        FileSystemSync failing = new FileSystemSync(List.of("sh", "-c", "echo \"cannot sync $0\" >&2; exit 3"));
        assertThat(failing.available(dir)).isFalse();
        assertThatThrownBy(() -> failing.syncAll(List.of(a)))
                .isInstanceOf(IOException.class)
                .hasMessageEndingWith("exited with 3: cannot sync " + a);
        assertThat(new FileSystemSync(List.of(dir.resolve("no-such-command").toString())).available(dir))
                .isFalse();
        assertThat(RestoreSync.fileSystems().available(dir)).isTrue(); // coreutils' sync -f, as on the CI's Linux
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void aDirectoryWhoseNameIsNotValidInTheEncodingIsSyncedThroughTheNearestDirectoryANameReaches() throws Exception {
        // as a restore of a tree holding a directory named "dir\xc3" (tester's finding: every such
        // restore failed with "'sync -f R/dir\uFFFD' exited with 1 ... No such file or directory")
        Process mk = new ProcessBuilder("sh", "-c", "mkdir \"$0/$(printf 'dir\\303')\"", dir.toString())
                .redirectErrorStream(true)
                .start();
        assertThat(mk.waitFor()).isZero();
        Path bad;
        try (java.util.stream.Stream<Path> s = Files.list(dir)) {
            bad = s.filter(p -> p.getFileName().toString().startsWith("dir"))
                    .findFirst()
                    .orElseThrow();
        }
        assertThat(FileSystemSync.passesUnchanged(bad)).isFalse();
        assertThat(FileSystemSync.passesUnchanged(dir)).isTrue();

        Path log = dir.resolve("log");
        FileSystemSync logging = new FileSystemSync(List.of("sh", "-c", "cd \"$0\" && echo \"$0\" >> '" + log + "'"));
        logging.syncAll(List.of(bad));
        assertThat(Files.readAllLines(log)).containsExactly(dir.toString());
        RestoreSync.fileSystems().syncAll(List.of(bad)); // coreutils' sync -f: exits 0
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void whetherTheFileSystemSyncRunsIsAskedOfAFileSystemWithNothingToWriteNotOfTheTarget() throws IOException {
        Path log = dir.resolve("log");
        FileSystemSync logging =
                new FileSystemSync(List.of("sh", "-c", "echo \"$0\" >> '" + log + "'"), Path.of("/proc"));
        assertThat(logging.available(dir)).isTrue();
        assertThat(Files.readAllLines(log)).containsExactly("/proc");
        assertThat(FileSystemSync.syncF().probe()).isEqualTo(Path.of("/proc"));

        FileSystemSync failing = new FileSystemSync(List.of("sh", "-c", "exit 1"), Path.of("/proc"));
        assertThat(failing.available(dir)).isFalse();
    }
}
