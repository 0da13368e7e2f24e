package dev.dml.ray.collective;

import java.time.Duration;

/** Moves one chunk to a peer's {@link Mailbox}; the ring logic does not know how. */
interface Transport {

    /**
     * Sends one chunk to some ranks (stored once, read by each) and returns without waiting.
     *
     * @param to the receiving ranks
     * @param seq the collective's sequence number
     * @param step the step within the collective
     * @param payload the chunk, encoded by {@link Chunks}
     * @return a handle to wait for the delivery (and to see a failed one)
     */
    Delivery send(int[] to, long seq, int step, byte[] payload);

    /**
     * Says how chunks travel, for the job's metrics: {@code tcp}, {@code ray}, or a mix with
     * the reason a link fell back.
     *
     * @return the description
     */
    default String describe() {
        return "in-process";
    }

    /** Closes the transport's connections; the group that used it is done. */
    default void close() {}

    /** A sent chunk. */
    interface Delivery {

        /**
         * Waits until every receiver has the chunk.
         *
         * @param timeout how long to wait
         * @throws CollectiveException when the delivery failed or took too long
         */
        void await(Duration timeout);
    }
}
