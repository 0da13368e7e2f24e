package dev.dml.ray.collective;

/**
 * One step's vote to stop, a collective message of its own: each rank sends every peer one
 * byte (1 when it got a pre-emption notice) and, once its step's gradients are reduced, reads
 * theirs; every rank then stops after the same step when any voted to. The votes go out
 * before the gradients' all-reduce ends and are read after it, so they add no wait of their
 * own; they have their own sequence numbers and mailbox, apart from the gradients'
 * collectives, and the gradients' compression never sees them.
 */
@FunctionalInterface
public interface StopVote {

    /**
     * Waits for every peer's vote.
     *
     * @return whether any rank, this one included, voted to stop
     * @throws CollectiveException when a peer's vote does not arrive in time
     */
    boolean anyStop();
}
