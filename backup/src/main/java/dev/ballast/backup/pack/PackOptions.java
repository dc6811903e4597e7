package dev.ballast.backup.pack;

import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * How a {@link BlobRepository} writes and reads. Immutable; start from {@link #defaults()}.
 *
 * @param packSize the pack size aimed at, bytes (default 16 MiB, the {@code packSize} of the
 *     repository's {@code config}): a pack is closed once its blobs reach it; a blob larger than it is
 *     a pack of its own. On a heap under 512 MiB packs are written smaller: a 32nd of the heap's
 *     maximum, at least 1 MiB (4 MiB on {@code -Xmx128m})
 * @param compressionLevel the zstd level (default 3, zstd's own default); 0 stores every blob
 *     uncompressed
 * @param uploadThreads packs uploaded at once (default 2)
 * @param packsInFlight full packs held in memory waiting for, or in, upload before {@code add} blocks
 *     its caller (default 4; fewer when that many would pass a sixteenth of the heap's maximum, at
 *     least one, so a heap of 128 MiB holds two 4 MiB packs in flight): memory for packs is at most about {@code (packsInFlight + o + t) * packSize},
 *     {@code o} the open packs (per blob type, one for blobs under 256 KiB and one for each of up to four
 *     threads adding larger blobs, so a big file's chunks lie together) and {@code t} the threads blocked
 *     in {@code add} (each holds the pack it closed)
 * @param readThreads GETs run at once by {@link BlobRepository#readAll}, {@link BlobRepository#check}
 *     and the index files' reads at open (default 4); with an executor given, at most this many of its
 *     threads are used for them
 * @param tolerateDamagedIndex true (default): {@code open} skips a damaged index file, reports it
 *     ({@link BlobRepository#damagedIndexFiles()}) and finds the packs no intact index file names from
 *     their headers (in memory: nothing is written), so a backup, a restore and a verify still find every
 *     blob; {@code prune} then refuses to run until {@link BlobRepository#repair} replaced the file.
 *     false: {@code open} throws the damaged file's {@code IntegrityException}
 * @param executor runs uploads and reads; null (default): the repository makes its own daemon threads
 *     and stops them at {@code close}. One given must have threads to spare: the repository's calls wait
 *     for the tasks they hand it, so an executor whose threads call the repository can deadlock
 */
public record PackOptions(
        int packSize,
        int compressionLevel,
        int uploadThreads,
        int packsInFlight,
        int readThreads,
        boolean tolerateDamagedIndex,
        @Nullable Executor executor) {
    /** The default pack size, 16 MiB. */
    public static final int DEFAULT_PACK_SIZE = 16 * 1024 * 1024;

    public PackOptions {
        if (packSize < 1024 || packSize > (1 << 30)) {
            throw new IllegalArgumentException("pack size " + packSize + " is not between 1 KiB and 1 GiB");
        }
        if (compressionLevel < 0 || compressionLevel > 22) {
            throw new IllegalArgumentException("zstd level " + compressionLevel + " is not between 0 (off) and 22");
        }
        if (uploadThreads < 1 || packsInFlight < 1 || readThreads < 1) {
            throw new IllegalArgumentException("upload threads " + uploadThreads + ", packs in flight " + packsInFlight
                    + " and read threads " + readThreads + " must each be at least 1");
        }
    }

    /**
     * Pack size 16 MiB, zstd level 3, 2 upload threads, 4 packs in flight, 4 read threads, damaged index
     * files skipped and reported (their packs found from their headers).
     */
    public static PackOptions defaults() {
        return new PackOptions(DEFAULT_PACK_SIZE, 3, 2, 4, 4, true, null);
    }

    /** These options with the pack size aimed at, in bytes (1 KiB to 1 GiB). */
    public PackOptions withPackSize(int bytes) {
        return new PackOptions(
                bytes, compressionLevel, uploadThreads, packsInFlight, readThreads, tolerateDamagedIndex, executor);
    }

    /** These options with the zstd level (1 to 22; 0 stores every blob uncompressed). */
    public PackOptions withCompressionLevel(int level) {
        return new PackOptions(
                packSize, level, uploadThreads, packsInFlight, readThreads, tolerateDamagedIndex, executor);
    }

    /** These options with the number of packs uploaded at once (own threads only: an executor given runs what it runs). */
    public PackOptions withUploadThreads(int threads) {
        return new PackOptions(
                packSize, compressionLevel, threads, packsInFlight, readThreads, tolerateDamagedIndex, executor);
    }

    /** These options with the number of full packs held for upload before {@code add} blocks its caller. */
    public PackOptions withPacksInFlight(int packs) {
        return new PackOptions(
                packSize, compressionLevel, uploadThreads, packs, readThreads, tolerateDamagedIndex, executor);
    }

    /** These options with the number of GETs {@code readAll}, {@code check} and {@code open} run at once. */
    public PackOptions withReadThreads(int threads) {
        return new PackOptions(
                packSize, compressionLevel, uploadThreads, packsInFlight, threads, tolerateDamagedIndex, executor);
    }

    /** These options with damaged index files skipped and reported at {@code open} (true) or thrown (false). */
    public PackOptions withTolerateDamagedIndex(boolean tolerate) {
        return new PackOptions(
                packSize, compressionLevel, uploadThreads, packsInFlight, readThreads, tolerate, executor);
    }

    /** Uploads and reads run on {@code executor} (not shut down by the repository); null: own threads. */
    public PackOptions withExecutor(@Nullable Executor executor) {
        return new PackOptions(
                packSize, compressionLevel, uploadThreads, packsInFlight, readThreads, tolerateDamagedIndex, executor);
    }
}
