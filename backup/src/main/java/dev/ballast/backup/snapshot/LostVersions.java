package dev.ballast.backup.snapshot;

import dev.ballast.backup.Messages;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.VersionEntry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The check a backup makes before it keeps any version of the previous snapshot: that the store
 * still holds it. Stateless; thread-safe.
 */
public final class LostVersions {
    private LostVersions() {}

    /**
     * Leaves out of {@code previous} every entry whose version the store no longer holds, so that its
     * file is read and stored again rather than kept as unchanged (issue 20: a hole a loss left is
     * filled by the next backup). Held means listed in {@code listing} (one listing of the name's
     * prefix; on S3 the listing is made from the objects held, so it is the whole check) and not found
     * missing by {@link ObjectStore#missingContent} (one batched check; the local store stats each
     * content or pack file). Says on {@code err} how many were left out, naming the first.
     */
    public static void drop(
            ObjectStore store,
            String name,
            Map<String, ManifestEntry> previous,
            List<VersionEntry> listing,
            Consumer<String> err) {
        Map<String, VersionEntry> held = new HashMap<>();
        for (VersionEntry v : listing) {
            if (!v.deleteMarker()) {
                held.put(v.key() + '\n' + v.versionId(), v);
            }
        }
        Map<String, String> lost = new java.util.TreeMap<>();
        Map<VersionEntry, String> pathOf = new java.util.IdentityHashMap<>();
        for (ManifestEntry e : previous.values()) {
            // The key the file was stored under: a name that cannot be its own key (not UTF-8, a control
            // character, too long) is under .ballast-names/ since format 2 (filesWithCurrentKeys left out
            // the format 1 entries whose key differs).
            VersionEntry v = held.get(Manifest.keyFor(name, e.path()) + '\n' + e.versionId());
            if (v == null) {
                lost.put(e.path(), "the store no longer lists version " + e.versionId());
            } else {
                pathOf.put(v, e.path());
            }
        }
        store.missingContent(pathOf.keySet()).forEach((v, why) -> lost.put(pathOf.get(v), why));
        if (lost.isEmpty()) {
            return;
        }
        lost.keySet().forEach(previous::remove);
        Map.Entry<String, String> first = lost.entrySet().iterator().next();
        err.accept("Warning: the store has lost the stored version of " + lost.size()
                + " file(s) of the previous snapshot of '" + name + "' (" + Messages.printable(first.getKey()) + ": "
                + Messages.printable(first.getValue()) + (lost.size() > 1 ? "; and others" : "")
                + "), so this backup reads and stores them again.");
    }
}
