package dev.ballast.backup.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.backup.BackupException;
import dev.ballast.backup.BackupException.Kind;
import dev.ballast.backup.keys.KeyFiles.UnlockedRepository;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.test.FakeObjectStore;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Opening a repository with its key files listed and read ahead ({@link KeyFileReads}): the same key,
 * config and failures as reading them in {@link KeyFiles#open}, each key file read once, and the
 * listing under way while the caller reads the config.
 */
class KeyFileReadsTest {
    final KeyFiles keys = KeyFiles.create().withKdf(KeyFilesTest.CHEAP).describedAs("/stores/s1");

    /** A store that counts the reads of each key, and the listings of {@code keys/}. */
    static class CountingStore extends FakeObjectStore {
        final ConcurrentHashMap<String, AtomicInteger> reads = new ConcurrentHashMap<>();
        final AtomicInteger listings = new AtomicInteger();

        @Override
        public ObjectRead get(String key, ReadOptions options) {
            reads.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
            return super.get(key, options);
        }

        @Override
        public List<String> list(String prefix) {
            if (prefix.equals(KeyFiles.KEYS_PREFIX)) {
                listings.incrementAndGet();
            }
            return super.list(prefix);
        }

        int readsOf(String key) {
            AtomicInteger n = reads.get(key);
            return n == null ? 0 : n.get();
        }
    }

    @Test
    void opensTheSameRepositoryReadingEachKeyFileOnce() {
        CountingStore store = new CountingStore();
        UnlockedRepository made = keys.init(store, "pw".toCharArray());
        KeyFiles.KeyInfo other = keys.add(store, made, "second".toCharArray());
        store.reads.clear();
        store.listings.set(0);

        KeyFileReads reads = KeyFileReads.start(store);
        UnlockedRepository opened = keys.open(store, "second".toCharArray(), null, KeyDerivationAhead.none(), reads);

        assertThat(opened.masterKey().encoded()).isEqualTo(made.masterKey().encoded());
        assertThat(opened.config()).isEqualTo(made.config());
        assertThat(opened.keyId()).isEqualTo(other.id());
        assertThat(store.listings).hasValue(1);
        // the key that opened was read once, by the reads ahead or by the open, not by both; the other one at
        // most once (the reads ahead may still be on their way to it when the open returns)
        assertThat(store.readsOf("keys/" + other.id())).isEqualTo(1);
        assertThat(store.readsOf("keys/" + made.keyId())).isLessThanOrEqualTo(1);
    }

    @Test
    void theListingRunsWhileTheCallerReadsTheConfig() throws Exception {
        CountDownLatch listed = new CountDownLatch(1);
        CountingStore store = new CountingStore() {
            @Override
            public List<String> list(String prefix) {
                List<String> names = super.list(prefix);
                listed.countDown();
                return names;
            }
        };
        keys.init(store, "pw".toCharArray());
        store.listings.set(0);

        KeyFileReads.start(store);

        // nothing asked of it yet: the listing is made on its own thread
        assertThat(listed.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(store.listings).hasValue(1);
    }

    @Test
    void aDamagedKeyFileReadAheadIsTheSameIntegrityFailure() {
        FakeObjectStore store = new FakeObjectStore();
        UnlockedRepository made = keys.init(store, "pw".toCharArray());
        String name = "keys/" + made.keyId();
        byte[] bytes = store.currentBytes(name).orElseThrow();
        bytes[bytes.length / 2] ^= 1;
        store.put(name, ObjectContent.ofBytes(bytes));

        assertThatThrownBy(() -> keys.open(
                        store, "pw".toCharArray(), null, KeyDerivationAhead.none(), KeyFileReads.start(store)))
                .isInstanceOf(BackupException.class)
                .hasMessageContaining("the key file '" + name + "' in the repository at /stores/s1 is damaged")
                .extracting(e -> ((BackupException) e).kind())
                .isEqualTo(Kind.INTEGRITY);
    }

    @Test
    void noKeyFilesAndAWrongPasswordAreTheirOwnKindsAsWithoutReadingAhead() {
        FakeObjectStore empty = new FakeObjectStore();
        assertThatThrownBy(() -> keys.open(
                        empty, "pw".toCharArray(), null, KeyDerivationAhead.none(), KeyFileReads.start(empty)))
                .extracting(e -> ((BackupException) e).kind())
                .isEqualTo(Kind.NO_KEY);

        FakeObjectStore store = new FakeObjectStore();
        keys.init(store, "pw".toCharArray());
        assertThatThrownBy(() -> keys.open(
                        store, "other".toCharArray(), null, KeyDerivationAhead.none(), KeyFileReads.start(store)))
                .extracting(e -> ((BackupException) e).kind())
                .isEqualTo(Kind.WRONG_PASSWORD);
    }

    @Test
    void aListingThatFailedFailsTheOpenWithTheStoresOwnException() {
        StorageUnavailableException down = new StorageUnavailableException(null, "the store is down", null);
        FakeObjectStore store = new FakeObjectStore() {
            @Override
            public List<String> list(String prefix) {
                throw down;
            }
        };
        assertThatThrownBy(() -> keys.open(
                        store, "pw".toCharArray(), null, KeyDerivationAhead.none(), KeyFileReads.start(store)))
                .isSameAs(down);
    }
}
