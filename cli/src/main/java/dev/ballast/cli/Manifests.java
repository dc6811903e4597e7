package dev.ballast.cli;

import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.VersionEntry;
import java.io.PrintStream;
import java.util.List;

/** Finding and reading the manifest versions of a backup name. */
final class Manifests {
  private Manifests() {}

  /** A manifest with the version it was read from. */
  record Versioned(Manifest manifest, VersionEntry version) {}

  /**
   * Validates a backup name: it becomes the first segment of every object key of the backup.
   *
   * @throws CliFailure with {@link ExitCodes#USAGE} if it is not usable
   */
  static String checkName(String name) {
    String problem = null;
    if (name == null || name.isEmpty()) {
      problem = "it is empty";
    } else if (name.length() > 200) {
      problem = "it is longer than 200 characters";
    } else if (name.contains("/") || name.contains("\\")) {
      problem = "it contains a slash";
    } else if (name.equals(".") || name.equals("..")) {
      problem = "it is '.' or '..'";
    } else if (name.startsWith(".ballast")) {
      problem = "names starting with '.ballast' are reserved";
    } else if (name.chars().anyMatch(Character::isISOControl)) {
      problem = "it contains a control character";
    }
    if (problem != null) {
      throw new CliFailure(ExitCodes.USAGE, "The backup name '" + name + "' is not usable because " + problem
          + "; pass --name with a name such as 'photos-2026' (no slashes).");
    }
    return name;
  }

  /** Manifest versions of {@code name}, newest first, delete markers left out. */
  static List<VersionEntry> versions(ObjectStore store, String name) {
    return store.versions(Manifest.key(name)).stream().filter(v -> !v.deleteMarker()).toList();
  }

  static Manifest read(ObjectStore store, String name, String versionId) {
    String key = Manifest.key(name);
    try (ObjectRead read = store.get(key, ReadOptions.version(versionId))) {
      return Manifest.parse(read.readAllBytes(), "'" + key + "' version " + versionId);
    }
  }

  /**
   * The manifest to restore or verify: the given version, or the newest complete one. Says on
   * {@code err} when an incomplete manifest is used or passed over.
   *
   * @throws CliFailure with {@link ExitCodes#NOT_FOUND} if there is no such backup or version
   */
  static Versioned select(ObjectStore store, String name, String versionId, String where, PrintStream err) {
    List<VersionEntry> versions = versions(store, name);
    if (versions.isEmpty()) {
      throw new CliFailure(ExitCodes.NOT_FOUND, "There is no backup named '" + name + "' in " + where
          + "; 'ballast list' shows the backups there.");
    }
    if (versionId != null) {
      VersionEntry v = versions.stream().filter(e -> e.versionId().equals(versionId)).findFirst()
          .orElseThrow(() -> new CliFailure(ExitCodes.NOT_FOUND, "Backup '" + name + "' has no manifest version '"
              + versionId + "'; 'ballast list' shows its versions."));
      Manifest m = read(store, name, versionId);
      if (!m.complete()) {
        err.println("Note: manifest version " + versionId + " of '" + name + "' is from an interrupted run: it lists the "
            + m.files().size() + " files that run stored and confirmed; " + m.notStored().size()
            + " files of the source were not stored.");
      }
      return new Versioned(m, v);
    }
    for (VersionEntry v : versions) {
      Manifest m;
      try {
        m = read(store, name, v.versionId());
      } catch (ObjectNotFoundException e) {
        continue;
      }
      if (m.complete()) {
        if (v != versions.get(0)) {
          err.println("Note: the newest backup of '" + name + "' (manifest version " + versions.get(0).versionId()
              + ") is incomplete (an interrupted run); using the newest complete one, version " + v.versionId()
              + ". Pass --manifest-version " + versions.get(0).versionId() + " to use the partial one.");
        }
        return new Versioned(m, v);
      }
    }
    throw new CliFailure(ExitCodes.NOT_FOUND, "Backup '" + name + "' has no complete manifest: every run was "
        + "interrupted; pass --manifest-version " + versions.get(0).versionId()
        + " to restore the files the newest interrupted run stored.");
  }
}
