package dev.ballast.backup.pack;

/**
 * A prune that stopped before deleting or writing anything because going on could lose a blob some
 * snapshot needs ({@link BlobRepository#prune}, {@link BlobRepository#planPrune}). The message is one
 * sentence, lower-case first, naming what was found and the command that fixes it.
 */
public final class PruneRefusedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param reason why, one sentence naming the pack and the fix */
    public PruneRefusedException(String reason) {
        super(reason);
    }
}
