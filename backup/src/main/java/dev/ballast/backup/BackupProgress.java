package dev.ballast.backup;

/**
 * How far a job (a backup, a restore, a verify) has got: files and bytes done, and the totals known
 * so far (a backup learns its totals while it walks the tree, so they grow).
 *
 * @param files files done (stored, kept unchanged, restored, verified or failed)
 * @param totalFiles files known so far
 * @param bytes bytes done
 * @param totalBytes bytes known so far
 */
public record BackupProgress(long files, long totalFiles, long bytes, long totalBytes) {}
