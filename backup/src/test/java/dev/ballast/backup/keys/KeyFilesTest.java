package dev.ballast.backup.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.backup.BackupException;
import dev.ballast.backup.BackupException.Kind;
import dev.ballast.backup.keys.KeyFiles.KeyInfo;
import dev.ballast.backup.keys.KeyFiles.UnlockedRepository;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.StoreCapabilities;
import dev.ballast.storage.object.local.LocalObjectStore;
import dev.ballast.test.FakeObjectStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Key files on the fake store and on the local object store. The KDF runs with small parameters
 * (1 MiB): what is tested is the format and the rules, not Argon2id's cost.
 */
class KeyFilesTest {
    static final KdfParameters CHEAP = new KdfParameters(1024, 1, 1);
    static final Instant T0 = Instant.parse("2026-12-02T03:00:00Z");

    final KeyFiles keys = KeyFiles.create()
            .withKdf(CHEAP)
            .withClock(Clock.fixed(T0, ZoneOffset.UTC))
            .withOrigin("host1", "alice")
            .describedAs("/stores/s1");

    @TempDir
    Path dir;

    static char[] pw(String s) {
        return s.toCharArray();
    }

    void onBothStores(Consumer<ObjectStore> test) {
        test.accept(new FakeObjectStore());
        try (LocalObjectStore local = LocalObjectStore.open(dir.resolve("local"))) {
            test.accept(local);
        }
    }

    @Test
    void initThenOpenGivesTheSameMasterKeyAndConfig() {
        onBothStores(store -> {
            assertThat(KeyFiles.isRepository(store)).isFalse();
            UnlockedRepository made = keys.init(store, pw("correct horse"));
            assertThat(KeyFiles.isRepository(store)).isTrue();
            assertThat(made.config().version()).isEqualTo(3);
            assertThat(made.config().id()).matches("[0-9a-f]{64}");
            assertThat(store.list("")).containsExactlyInAnyOrder("config", "keys/" + made.keyId());

            UnlockedRepository opened = keys.open(store, pw("correct horse"));
            assertThat(opened.masterKey().encoded()).isEqualTo(made.masterKey().encoded());
            assertThat(opened.config()).isEqualTo(made.config());
            assertThat(opened.keyId()).isEqualTo(made.keyId());
        });
    }

    /**
     * A server that says it honours If-None-Match may still let two conditional PUTs of the config that
     * arrive together both succeed (S3Mock did, for two first backups started at once): the init whose
     * config came second steps back, leaving nothing, and the first one's config is the only one.
     */
    @Test
    void anInitWhoseConditionalConfigCameSecondStepsBackLeavingTheFirstAlone() {
        byte[] first = "the other init's sealed config".getBytes(StandardCharsets.US_ASCII);
        FakeObjectStore racy = new FakeObjectStore() {
            @Override
            public ObjectVersion putIfAbsent(String key, ObjectContent content) {
                if (key.equals(KeyFiles.CONFIG)) {
                    super.put(key, ObjectContent.ofBytes(first)); // the other init's, a moment earlier
                    return super.put(key, content);
                }
                return super.putIfAbsent(key, content);
            }
        };
        assertThatThrownBy(() -> keys.init(racy, pw("second")))
                .isInstanceOfSatisfying(
                        BackupException.class, e -> assertThat(e.kind()).isEqualTo(BackupException.Kind.UNAVAILABLE))
                .hasMessageContaining("another init is running at the same time");
        assertThat(racy.versions(KeyFiles.CONFIG))
                .singleElement()
                .satisfies(v -> assertThat(racy.currentBytes(KeyFiles.CONFIG).orElseThrow())
                        .isEqualTo(first));
        assertThat(racy.list(KeyFiles.KEYS_PREFIX)).as("its key file removed").isEmpty();

        // the first of the two keeps its config when the other one's lands after it
        FakeObjectStore later = new FakeObjectStore() {
            @Override
            public ObjectVersion putIfAbsent(String key, ObjectContent content) {
                ObjectVersion v = super.putIfAbsent(key, content);
                if (key.equals(KeyFiles.CONFIG)) {
                    super.put(key, ObjectContent.ofBytes(first)); // the other init's, a moment later
                }
                return v;
            }
        };
        UnlockedRepository made = keys.init(later, pw("first"));
        assertThat(later.list(KeyFiles.KEYS_PREFIX)).containsExactly(KeyFiles.KEYS_PREFIX + made.keyId());
    }

    @Test
    void theStoredObjectsHoldNeitherTheMasterKeyNorThePassword() throws Exception {
        FakeObjectStore store = new FakeObjectStore();
        UnlockedRepository made = keys.init(store, pw("hunter2-secret"));
        String keyJson = new String(store.currentBytes("keys/" + made.keyId()).orElseThrow(), StandardCharsets.UTF_8);
        assertThat(keyJson)
                .contains("\"kdf\":\"argon2id\"", "\"memoryKiB\":1024", "\"iterations\":1", "\"parallelism\":1")
                .contains("\"host\":\"host1\"", "\"username\":\"alice\"", "\"created\":\"2026-12-02T03:00:00Z\"")
                .doesNotContain("hunter2");
        byte[] config = store.currentBytes("config").orElseThrow();
        assertThat(new String(config, StandardCharsets.ISO_8859_1))
                .doesNotContain("fastcdc", made.config().id());
        assertThat(made.masterKey().open(config, "config".getBytes(StandardCharsets.US_ASCII)))
                .isEqualTo(made.config().toJson());
        // the key file's name is the SHA-256 of its bytes
        assertThat(made.keyId()).isEqualTo(KeyFile.sha256Hex(keyJson.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void theDefaultParametersAreRecordedInTheKeyFile() {
        FakeObjectStore store = new FakeObjectStore();
        UnlockedRepository made = KeyFiles.create().init(store, pw("pw"));
        List<KeyInfo> listed = keys.list(store, made.keyId());
        assertThat(listed).singleElement().satisfies(k -> {
            assertThat(k.kdf()).isEqualTo(KdfParameters.DEFAULT);
            assertThat(k.kdf()).isEqualTo(new KdfParameters(65536, 1, 4));
            assertThat(k.current()).isTrue();
        });
    }

    @Test
    void aWrongPasswordIsItsOwnKindAndWritesNothing() {
        onBothStores(store -> {
            keys.init(store, pw("right"));
            List<String> before = store.list("");
            assertThatThrownBy(() -> keys.open(store, pw("wrong")))
                    .isInstanceOf(BackupException.class)
                    .hasMessage("No key of the repository at /stores/s1 opens with the password given; check the"
                            + " password given to Backups.open.")
                    .extracting(e -> ((BackupException) e).kind())
                    .isEqualTo(Kind.WRONG_PASSWORD);
            assertThat(store.list("")).isEqualTo(before);
        });
        FakeObjectStore fake = new FakeObjectStore();
        keys.init(fake, pw("right"));
        fake.forgetRecordedKeys();
        assertThatThrownBy(() -> keys.open(fake, pw("wrong"))).isInstanceOf(BackupException.class);
        assertThat(fake.keysPut()).isEmpty();
    }

    @Test
    void aWrongPasswordsAdviceNamesThePlaceThePasswordCameFromWhenItIsKnown() {
        FakeObjectStore store = new FakeObjectStore();
        keys.init(store, pw("right"));
        assertThatThrownBy(() -> keys.withPasswordSource("the password typed at the prompt")
                        .open(store, pw("wrong")))
                .isInstanceOf(BackupException.class)
                .hasMessageEndingWith(" opens with the password given; check the password typed at the prompt.")
                .extracting(e -> ((BackupException) e).kind())
                .isEqualTo(Kind.WRONG_PASSWORD);
    }

    @Test
    void noKeyFilesIsItsOwnKindAndSentence() {
        FakeObjectStore store = new FakeObjectStore();
        UnlockedRepository made = keys.init(store, pw("pw"));
        store.delete("keys/" + made.keyId());
        assertThatThrownBy(() -> keys.open(store, pw("pw")))
                .isInstanceOf(BackupException.class)
                .hasMessageStartingWith("The repository at /stores/s1 has no key files (keys/ is empty or unreadable)")
                .extracting(e -> ((BackupException) e).kind())
                .isEqualTo(Kind.NO_KEY);
    }

    @Test
    void keyFilesListedButGoneAreNoKeyToo() {
        // a listing that still names deleted key files (an S3 listing that lags behind a delete)
        List<String> stale = new java.util.ArrayList<>();
        FakeObjectStore store = new FakeObjectStore() {
            @Override
            public List<String> list(String prefix) {
                return prefix.equals("keys/") ? stale : super.list(prefix);
            }
        };
        UnlockedRepository made = keys.init(store, pw("pw"));
        stale.add("keys/" + made.keyId());
        store.delete("keys/" + made.keyId());
        assertThatThrownBy(() -> keys.open(store, pw("pw")))
                .hasMessageStartingWith("The repository at /stores/s1 has no key files")
                .extracting(e -> ((BackupException) e).kind())
                .isEqualTo(Kind.NO_KEY);
    }

    @Test
    void aDamagedKeyFileIsIntegrityNamingIt() {
        FakeObjectStore store = new FakeObjectStore();
        UnlockedRepository made = keys.init(store, pw("pw"));
        String name = "keys/" + made.keyId();
        byte[] bytes = store.currentBytes(name).orElseThrow();
        bytes[bytes.length / 2] ^= 1;
        store.put(name, ObjectContent.ofBytes(bytes));
        assertThatThrownBy(() -> keys.open(store, pw("pw")))
                .isInstanceOf(BackupException.class)
                .hasMessageContaining("the key file '" + name + "' in the repository at /stores/s1 is damaged")
                .extracting(e -> ((BackupException) e).kind())
                .isEqualTo(Kind.INTEGRITY);
    }

    /**
     * Field case (a fault tester): with one of two key files damaged, or another object under {@code keys/},
     * {@code key list} failed (exit 4) and so did {@code key remove}, whose own advice for the damaged key
     * file was to remove it. It is now listed last, marked damaged, and removed by its ID or name.
     */
    @Test
    void aDamagedKeyFileIsListedAsSuchAndCanBeRemoved() {
        FakeObjectStore store = new FakeObjectStore();
        UnlockedRepository made = keys.init(store, pw("pw"));
        KeyInfo second = keys.add(store, made, pw("second"));
        String name = "keys/" + second.id();
        byte[] bytes = store.currentBytes(name).orElseThrow();
        bytes[bytes.length / 2] ^= 1;
        store.put(name, ObjectContent.ofBytes(bytes));
        store.put("keys/junk", ObjectContent.ofBytes("not a key".getBytes(StandardCharsets.UTF_8)));

        List<KeyInfo> listed = keys.list(store, made.keyId());
        assertThat(listed).extracting(KeyInfo::id).containsExactly(made.keyId(), second.id(), "junk");
        assertThat(listed.get(0).damage()).isNull();
        assertThat(listed.get(0).current()).isTrue();
        assertThat(listed.get(1).damage()).isEqualTo("its SHA-256 is not its name");
        assertThat(listed.get(1).kdf()).isNull();
        assertThat(listed.get(2).damage()).isEqualTo("its SHA-256 is not its name");

        assertThat(keys.remove(store, made, second.shortId()).id()).isEqualTo(second.id());
        assertThat(keys.remove(store, made, "junk").id()).isEqualTo("junk");
        assertThat(store.list("keys/")).containsExactly("keys/" + made.keyId());
        assertThat(keys.open(store, pw("pw")).keyId()).isEqualTo(made.keyId());
        assertThatThrownBy(() -> keys.remove(store, made, "junk"))
                .extracting(e -> ((BackupException) e).kind())
                .isEqualTo(Kind.INVALID_INPUT);
    }

    @Test
    void aKeyFileThatIsNotJsonIsIntegrityNamingIt() {
        FakeObjectStore store = new FakeObjectStore();
        keys.init(store, pw("pw"));
        byte[] garbage = "not json".getBytes(StandardCharsets.UTF_8);
        String name = KeyFile.objectKey(garbage);
        store.put(name, ObjectContent.ofBytes(garbage));
        // another key still opens: the damaged one does not stand in the way
        assertThat(keys.open(store, pw("pw")).keyId()).isNotEqualTo(name.substring(5));
        assertThatThrownBy(() -> keys.open(store, pw("other")))
                .hasMessageContaining("'" + name + "'")
                .hasMessageContaining("not valid JSON")
                .extracting(e -> ((BackupException) e).kind())
                .isEqualTo(Kind.INTEGRITY);
    }

    @Test
    void aDamagedOrForeignConfigIsIntegrityNamingIt() {
        FakeObjectStore store = new FakeObjectStore();
        keys.init(store, pw("pw"));
        byte[] config = store.currentBytes("config").orElseThrow();
        config[config.length - 1] ^= 1;
        store.put("config", ObjectContent.ofBytes(config));
        assertThatThrownBy(() -> keys.open(store, pw("pw")))
                .hasMessageStartingWith("The object 'config' of the repository at /stores/s1 is damaged")
                .extracting(e -> ((BackupException) e).kind())
                .isEqualTo(Kind.INTEGRITY);

        FakeObjectStore noConfig = new FakeObjectStore();
        keys.init(noConfig, pw("pw"));
        noConfig.delete("config");
        assertThat(KeyFiles.isRepository(noConfig)).isFalse();
    }

    @Test
    void initLeavesAnotherProgramsObjectsAndRefusesOneWhereTheRepositoryWrites() {
        FakeObjectStore shared = new FakeObjectStore();
        shared.put("other-app/data.txt", ObjectContent.ofBytes(new byte[] {1}));
        keys.init(shared, pw("pw"));
        assertThat(KeyFiles.isRepository(shared)).isTrue();
        assertThat(shared.list("")).contains("other-app/data.txt");

        for (String foreign : new String[] {"data/report.csv", "index/x", "snapshots/today", "keys/readme.txt"}) {
            FakeObjectStore store = new FakeObjectStore();
            store.put(foreign, ObjectContent.ofBytes(new byte[] {1}));
            assertThatThrownBy(() -> keys.init(store, pw("pw")))
                    .hasMessageContaining("holds '" + foreign + "', an object of another program")
                    .extracting(e -> ((BackupException) e).kind())
                    .isEqualTo(Kind.INVALID_INPUT);
            assertThat(store.list("")).as(foreign).containsExactly(foreign);
        }
        // the earlier format's objects are Ballast's, by their .ballast- segment
        assertThat(KeyFiles.isBallastObject("photos/.ballast-manifest.json")).isTrue();
        assertThat(KeyFiles.isBallastObject("photos/.ballast-names/ab")).isTrue();
        assertThat(KeyFiles.isBallastObject(".ballast-runs/" + "a".repeat(64) + "/" + "b".repeat(16)))
                .isTrue();
        assertThat(KeyFiles.isBallastObject("photos/a.jpg")).isFalse();
    }

    @Test
    void initRefusesAnExistingRepositoryAndAStoreOfTheEarlierFormat() {
        FakeObjectStore store = new FakeObjectStore();
        keys.init(store, pw("pw"));
        assertThatThrownBy(() -> keys.init(store, pw("pw")))
                .hasMessageStartingWith("The store at /stores/s1 is already a repository")
                .extracting(e -> ((BackupException) e).kind())
                .isEqualTo(Kind.INVALID_INPUT);

        FakeObjectStore old = new FakeObjectStore();
        old.put("photos/.ballast-manifest.json", ObjectContent.ofBytes(new byte[] {'{', '}'}));
        assertThatThrownBy(() -> keys.init(old, pw("pw")))
                .hasMessageContaining("already holds backups of the unencrypted format (such as"
                        + " 'photos/.ballast-manifest.json')")
                .extracting(e -> ((BackupException) e).kind())
                .isEqualTo(Kind.INVALID_INPUT);
        assertThat(old.list("")).containsExactly("photos/.ballast-manifest.json");

        // a repository whose config was deleted: its packs are not backups of the unencrypted format (a fault
        // tester's: init said they were)
        FakeObjectStore lost = new FakeObjectStore();
        keys.init(lost, pw("pw"));
        String pack = "data/a8/" + "a8".repeat(32);
        lost.put(pack, ObjectContent.ofBytes(new byte[] {1}));
        lost.delete("config");
        assertThatThrownBy(() -> keys.init(lost, pw("pw")))
                .hasMessageStartingWith("The store at /stores/s1 holds objects of an encrypted repository (such as '"
                        + pack + "') but no 'config', which was deleted")
                .hasMessageNotContaining("init")
                .extracting(e -> ((BackupException) e).kind())
                .isEqualTo(Kind.INVALID_INPUT);
    }

    @Test
    void initReplacesTheKeyFileOfAnInitThatStoppedBeforeItsConfigOnlyOnceItIsOld() {
        FakeObjectStore store = new FakeObjectStore();
        UnlockedRepository first = keys.init(store, pw("pw"));
        store.delete("config");
        // just written: it may be an init running now
        KeyFiles now = keys.withClock(Clock.systemUTC());
        assertThatThrownBy(() -> now.init(store, pw("pw")))
                .hasMessageContaining("holds a key file written")
                .hasMessageContaining("another init may be running")
                .extracting(e -> ((BackupException) e).kind())
                .isEqualTo(Kind.UNAVAILABLE);
        assertThat(store.list("keys/")).containsExactly("keys/" + first.keyId());

        KeyFiles later = keys.withClock(Clock.offset(Clock.systemUTC(), KeyFiles.INIT_GRACE.plusSeconds(1)));
        UnlockedRepository second = later.init(store, pw("pw"));
        assertThat(store.list("keys/")).containsExactly("keys/" + second.keyId());
        assertThat(store.versions("keys/" + first.keyId())).isEmpty();
        assertThat(keys.open(store, pw("pw")).config()).isEqualTo(second.config());
    }

    @Test
    void ofTwoInitsAtOnceTheOneThatLosesTheConfigRemovesItsKeyFile() {
        byte[] othersConfig = {1, 2, 3};
        FakeObjectStore store = new FakeObjectStore() {
            boolean raced;

            @Override
            public dev.ballast.storage.object.ObjectVersion putIfAbsent(String key, ObjectContent content) {
                if (key.equals("config") && !raced) {
                    raced = true;
                    // another init, another writer of the bucket, wrote its config between our key file and ours
                    anotherWriter(Clock.systemUTC()).put("config", ObjectContent.ofBytes(othersConfig));
                }
                return super.putIfAbsent(key, content);
            }
        };
        assertThatThrownBy(() -> keys.init(store, pw("alice-pw")))
                .hasMessageContaining("was made a repository by another init at the same time")
                .extracting(e -> ((BackupException) e).kind())
                .isEqualTo(Kind.INVALID_INPUT);
        assertThat(store.list("keys/")).isEmpty();
        assertThat(store.listVersions("keys/")).isEmpty();
        assertThat(store.currentBytes("config")).contains(othersConfig);
    }

    @Test
    void withoutConditionalWritesTheInitThatFindsAnotherKeyFileStepsBackAndWritesNoConfig() {
        StoreCapabilities none = new StoreCapabilities(java.net.URI.create("fake:/"), "b", true, false, false, true);
        FakeObjectStore store = new FakeObjectStore(none) {
            boolean raced;

            @Override
            public dev.ballast.storage.object.ObjectVersion put(String key, ObjectContent content) {
                dev.ballast.storage.object.ObjectVersion v = super.put(key, content);
                if (key.startsWith("keys/") && !raced) {
                    raced = true;
                    // another init (another process, no conditional write to order them) wrote its key file too
                    anotherWriter(Clock.systemUTC())
                            .put("keys/" + "0".repeat(64), ObjectContent.ofBytes(new byte[] {7}));
                }
                return v;
            }
        };
        assertThatThrownBy(() -> keys.init(store, pw("alice-pw")))
                .hasMessageContaining("another init is running at the same time")
                .extracting(e -> ((BackupException) e).kind())
                .isEqualTo(Kind.UNAVAILABLE);
        assertThat(KeyFiles.isRepository(store))
                .as("no config, so no second master key in use")
                .isFalse();
        assertThat(store.list("keys/")).containsExactly("keys/" + "0".repeat(64));

        // alone, the same init on the same kind of store writes its config
        FakeObjectStore alone = new FakeObjectStore(none);
        UnlockedRepository made = keys.init(alone, pw("alice-pw"));
        assertThat(alone.list("")).containsExactlyInAnyOrder("config", "keys/" + made.keyId());
    }

    @Test
    void addListRemoveAndChangePassword() {
        onBothStores(store -> {
            UnlockedRepository alice = keys.init(store, pw("alice-pw"));
            KeyFiles later = keys.withClock(Clock.fixed(T0.plusSeconds(60), ZoneOffset.UTC))
                    .withOrigin("host2", "bob");
            KeyInfo bob = later.add(store, alice, pw("bob-pw"));
            assertThat(bob.host()).isEqualTo("host2");
            assertThat(bob.current()).isFalse();

            UnlockedRepository asBob = keys.open(store, pw("bob-pw"));
            assertThat(asBob.keyId()).isEqualTo(bob.id());
            assertThat(asBob.masterKey().encoded()).isEqualTo(alice.masterKey().encoded());
            assertThat(keys.list(store, asBob.keyId()))
                    .extracting(KeyInfo::id, KeyInfo::username, KeyInfo::current)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple(alice.keyId(), "alice", false),
                            org.assertj.core.groups.Tuple.tuple(bob.id(), "bob", true));

            // the key in use is never removed, so neither is the last
            assertThatThrownBy(() -> keys.remove(store, asBob, bob.shortId()))
                    .hasMessageContaining("is the key in use")
                    .extracting(e -> ((BackupException) e).kind())
                    .isEqualTo(Kind.INVALID_INPUT);
            KeyInfo removed = keys.remove(store, asBob, alice.keyId().substring(0, 6));
            assertThat(removed.id()).isEqualTo(alice.keyId());
            assertThat(store.versions("keys/" + alice.keyId())).isEmpty();
            assertThatThrownBy(() -> keys.open(store, pw("alice-pw")))
                    .extracting(e -> ((BackupException) e).kind())
                    .isEqualTo(Kind.WRONG_PASSWORD);
            assertThatThrownBy(() -> keys.remove(store, asBob, bob.id()))
                    .hasMessageContaining("is the only key of the repository")
                    .extracting(e -> ((BackupException) e).kind())
                    .isEqualTo(Kind.INVALID_INPUT);

            UnlockedRepository changed = keys.changePassword(store, asBob, pw("bob-new"));
            assertThat(store.list("keys/")).containsExactly("keys/" + changed.keyId());
            assertThat(keys.open(store, pw("bob-new")).masterKey().encoded())
                    .isEqualTo(alice.masterKey().encoded());
            assertThatThrownBy(() -> keys.open(store, pw("bob-pw")))
                    .extracting(e -> ((BackupException) e).kind())
                    .isEqualTo(Kind.WRONG_PASSWORD);
        });
    }

    @Test
    void removeNamesWhatItCannotFindOrTellApart() {
        FakeObjectStore store = new FakeObjectStore();
        UnlockedRepository a = keys.init(store, pw("a"));
        assertThatThrownBy(() -> keys.remove(store, a, "zz"))
                .hasMessage(
                        "'zz' is not a key ID; give the ID (or its first characters) that KeyFiles.list returns" + ".");
        String absent = a.keyId().startsWith("0") ? "1" : "0";
        assertThatThrownBy(() -> keys.remove(store, a, absent))
                .hasMessage("No key of the repository at /stores/s1 has an ID starting with '" + absent
                        + "'; KeyFiles.list returns them.")
                .extracting(e -> ((BackupException) e).kind())
                .isEqualTo(Kind.NOT_FOUND);
    }

    @Test
    void changePasswordAddsBeforeItRemoves() {
        java.util.List<String> calls = new java.util.concurrent.CopyOnWriteArrayList<>();
        FakeObjectStore store = new FakeObjectStore() {
            @Override
            public dev.ballast.storage.object.ObjectVersion put(String key, ObjectContent content) {
                calls.add("put " + key.substring(0, 5));
                return super.put(key, content);
            }

            @Override
            public boolean deleteVersion(String key, String versionId) {
                calls.add("delete " + key.substring(0, 5));
                return super.deleteVersion(key, versionId);
            }
        };
        UnlockedRepository a = keys.init(store, pw("a"));
        calls.clear();
        keys.changePassword(store, a, pw("b"));
        assertThat(calls).containsExactly("put keys/", "delete keys/");
    }

    @Test
    void kdfParametersOutOfRangeAreRefused() {
        assertThatThrownBy(() -> new KdfParameters(4, 1, 1)).hasMessageContaining("memory 4 KiB");
        assertThatThrownBy(() -> new KdfParameters(1024, 0, 1)).hasMessageContaining("iterations 0");
        assertThatThrownBy(() -> new KdfParameters(1024, 1, 0)).hasMessageContaining("parallelism 0");
    }

    @Test
    void theSamePasswordSaltAndParametersGiveTheSameKey() {
        // same password, salt and parameters give the same key; another salt another key
        byte[] salt = new byte[16];
        byte[] a = CHEAP.derive(pw("password"), salt);
        assertThat(a).hasSize(32).isEqualTo(CHEAP.derive(pw("password"), salt));
        salt[0] = 1;
        assertThat(CHEAP.derive(pw("password"), salt)).isNotEqualTo(a);
    }

    @Test
    void onlyObjectsOfARepositorysShapeCountAsItsRemains() {
        // a store of the earlier format holding backups named as the places of format 3 (fault testers'), one of
        // them a restic repository's keys folder, whose files are named as a repository's are
        FakeObjectStore old = new FakeObjectStore();
        for (String name : List.of("keys", "data", "index", "snapshots", "manifest-parts")) {
            old.put(name + "/.ballast-manifest.json", ObjectContent.ofBytes(new byte[] {'{', '}'}));
            old.put(name + "/k.txt", ObjectContent.ofBytes(new byte[] {1}));
            old.put(name + "/0a", ObjectContent.ofBytes(new byte[] {2}));
            old.put(name + "/" + "ab".repeat(32), ObjectContent.ofBytes(new byte[] {3}));
            old.put(name + "/ab/" + "cd".repeat(32), ObjectContent.ofBytes(new byte[] {4}));
        }
        org.assertj.core.api.Assertions.assertThatCode(() -> KeyFiles.requireNoRepositoryRemains(old, "at s"))
                .doesNotThrowAnyException();

        // a repository's remains still count, behind another program's objects of any number
        FakeObjectStore lost = new FakeObjectStore();
        for (int i = 0; i < 1001; i++) {
            lost.put(String.format("keys/0-j%04d", i), ObjectContent.ofBytes(new byte[] {5}));
        }
        String keyFile = "keys/" + "0b".repeat(32);
        lost.put(keyFile, ObjectContent.ofBytes(new byte[] {4}));
        assertThatThrownBy(() -> KeyFiles.requireNoRepositoryRemains(lost, "at s"))
                .hasMessageStartingWith("The store at s holds objects of an encrypted repository (such as '" + keyFile
                        + "') but no 'config'")
                .extracting(e -> ((BackupException) e).kind())
                .isEqualTo(Kind.INTEGRITY);
    }

    @Test
    void aKilledFirstBackupOfTheEarlierFormatIsToldByItsRunMarkerAndARepositorysKeyFileByWhatItHolds() {
        // a first backup of a restic repository's keys folder, killed before its manifest (a fault tester's third
        // round): its files and its run marker, nothing else
        FakeObjectStore killed = new FakeObjectStore();
        killed.put(
                "keys/" + "ab".repeat(32),
                ObjectContent.ofBytes("{\"kdf\":\"scrypt\"}".getBytes(StandardCharsets.UTF_8)));
        killed.put(".ballast-runs/keys/01a2482f9d33000720555b68b5acf3c0", ObjectContent.ofBytes(new byte[] {1}));
        org.assertj.core.api.Assertions.assertThatCode(() -> KeyFiles.requireNoRepositoryRemains(killed, "at s"))
                .doesNotThrowAnyException();

        // a repository whose config was deleted, a manifest of the earlier format planted under keys/: its key
        // file is still one
        FakeObjectStore lost = new FakeObjectStore();
        keys.init(lost, pw("pw"));
        lost.delete("config");
        lost.put("keys/.ballast-manifest.json", ObjectContent.ofBytes(new byte[] {'{', '}'}));
        assertThatThrownBy(() -> KeyFiles.requireNoRepositoryRemains(lost, "at s"))
                .hasMessageContaining("holds objects of an encrypted repository")
                .extracting(e -> ((BackupException) e).kind())
                .isEqualTo(Kind.INTEGRITY);
    }

    @Test
    void aRepositorysKeyFileIsFoundBehindJunkAndOrphanedFilesOfAnEarlierBackupAreNoRemains() {
        // a fourth round's: a junk name of a key file's shape sorting first hid the repository's key file
        FakeObjectStore lost = new FakeObjectStore();
        keys.init(lost, pw("pw"));
        lost.delete("config");
        lost.put("keys/" + "0".repeat(64), ObjectContent.ofBytes(new byte[] {0}));
        lost.put(".ballast-runs/keys/x", ObjectContent.ofBytes(new byte[] {0}));
        assertThatThrownBy(() -> KeyFiles.requireNoRepositoryRemains(lost, "at s"))
                .hasMessageContaining("holds objects of an encrypted repository")
                .hasMessageNotContaining("0".repeat(64));

        // and its: a first backup of a restic repository's keys folder, killed before its manifest, whose marker a
        // prune then removed, beside another backup of the earlier format
        FakeObjectStore orphaned = new FakeObjectStore();
        orphaned.put("src/.ballast-manifest.json", ObjectContent.ofBytes(new byte[] {'{', '}'}));
        orphaned.put("src/a.txt", ObjectContent.ofBytes(new byte[] {1}));
        orphaned.put(
                "keys/" + "ab".repeat(32),
                ObjectContent.ofBytes("{\"kdf\":\"scrypt\"}".getBytes(StandardCharsets.UTF_8)));
        org.assertj.core.api.Assertions.assertThatCode(() -> KeyFiles.requireNoRepositoryRemains(orphaned, "at s"))
                .doesNotThrowAnyException();
    }
}
