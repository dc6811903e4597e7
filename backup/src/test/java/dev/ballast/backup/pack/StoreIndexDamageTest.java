package dev.ballast.backup.pack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.backup.keys.MasterKey;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.test.FakeObjectStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The store's own index damaged (the local store's {@code index.db}, which SQLite reports malformed)
 * is not damage of the packs it is asked for: every read would fail the same way, and {@code ballast
 * repair index} brings them back. A tester's store with {@code index.db} damaged mid-file: restore
 * passed over every manifest version as damaged and advised backing the source up again.
 */
class StoreIndexDamageTest {
    private static final PackOptions OPTIONS = PackOptions.defaults().withPackSize(100_000);

    private final MasterKey key = MasterKey.generate();
    private volatile boolean indexDamaged;

    private final FakeObjectStore store = new FakeObjectStore() {
        @Override
        public ObjectRead get(String k, ReadOptions o) {
            if (indexDamaged && k.startsWith(BlobRepository.DATA_PREFIX)) {
                throw IntegrityException.inStoreIndex(
                        k,
                        "Reading '" + k + "' failed: the store's index is damaged ([SQLITE_CORRUPT] The database disk"
                                + " image is malformed)",
                        new java.sql.SQLException("database disk image is malformed", null, 11));
            }
            return super.get(k, o);
        }
    };

    private final List<BlobId> ids = new ArrayList<>();

    private String onePack() {
        try (BlobRepository repo = BlobRepository.open(store, key, OPTIONS)) {
            for (int i = 0; i < 10; i++) {
                byte[] b = BlobRepositoryTest.random(i, 10_000);
                BlobId id = repo.id(b, 0, b.length);
                repo.add(BlobType.DATA, id, b, 0, b.length);
                ids.add(id);
            }
            repo.flush();
            return repo.find(ids.get(0)).orElseThrow().pack();
        }
    }

    @Test
    void readsCheckAndRepairStopOnTheStoresIndexAndLeaveEveryPackAsItIs() {
        String pack = onePack();
        Set<String> before = Set.copyOf(store.allKeys());
        indexDamaged = true;

        try (BlobRepository repo = BlobRepository.open(store, key, OPTIONS)) {
            assertThatThrownBy(() -> repo.read(ids.get(3)))
                    .isInstanceOfSatisfying(
                            IntegrityException.class,
                            e -> assertThat(e.inStoreIndex()).isTrue());
            assertThatThrownBy(() -> repo.readAll(ids, (id, plain) -> {}))
                    .isInstanceOfSatisfying(
                            IntegrityException.class,
                            e -> assertThat(e.inStoreIndex()).isTrue());
            assertThatThrownBy(() -> repo.check(k -> true))
                    .as("not a report of a damaged pack")
                    .isInstanceOfSatisfying(
                            IntegrityException.class,
                            e -> assertThat(e.inStoreIndex()).isTrue());
            assertThatThrownBy(() -> repo.repair(k -> true))
                    .as("no pack salvaged or removed")
                    .isInstanceOfSatisfying(
                            IntegrityException.class,
                            e -> assertThat(e.inStoreIndex()).isTrue());
        }

        indexDamaged = false;
        assertThat(store.allKeys()).containsAll(before).contains(pack);
        try (BlobRepository repo = BlobRepository.open(store, key, OPTIONS)) {
            assertThat(repo.check(k -> true).ok())
                    .as("the index rebuilt, every pack reads again")
                    .isTrue();
        }
    }
}
