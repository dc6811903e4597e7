package dev.ballast.backup.run;

import dev.ballast.backup.Advice;
import dev.ballast.backup.BackupException;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestJson;
import dev.ballast.backup.snapshot.SealedStore;
import dev.ballast.backup.tree.Names;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ReadOptions;
import java.io.IOException;
import java.nio.file.Path;

/**
 * A backup name taken from the directory's base name that already holds backups of another
 * directory: two directories called {@code src} would otherwise become one history. {@code backup}
 * refuses it before it announces the run; {@link BackupRunner} checks again against the manifest it
 * goes on from.
 */
public final class NameClash {
    private NameClash() {}

    /**
     * Refuses, before anything is printed or stored, a backup whose name was taken from the directory
     * when the newest manifest of that name is of another directory (the run itself checks again
     * against the manifest it goes on from). A manifest that is missing or cannot be read is left to
     * the run, which reports it.
     *
     * @throws BackupException with {@link BackupException.Kind#INVALID_INPUT} naming both directories
     */
    public static void refuseOtherSource(ObjectStore store, String name, Path source) {
        String before;
        ReadOptions latest = ReadOptions.latest().withAllowCache(false);
        try {
            byte[] json;
            if (store instanceof SealedStore sealed) {
                // Only the head: its source is all this needs, and the run reads the entries anyway.
                json = sealed.manifestHead(Manifest.key(name), latest);
            } else {
                try (ObjectRead read = store.get(Manifest.key(name), latest)) {
                    json = read.readAllBytes();
                }
            }
            before = ManifestJson.source(json);
        } catch (ObjectNotFoundException | IntegrityException | IOException | IllegalArgumentException e) {
            IntegrityException.rethrowIfInStoreIndex(e); // the store's index, not what was read
            return;
        }
        if (before != null && !before.equals(Names.name(source))) {
            throw otherSource(name, source, before);
        }
    }

    public static BackupException otherSource(String name, Path source, String before) {
        return new BackupException(
                BackupException.Kind.INVALID_INPUT,
                "The backup name '" + name + "' holds backups of " + before + ", not of " + source + "; "
                        + Advice.OWN_NAME.text(name) + " to make it the newest backup of '" + name + "'.");
    }
}
