package dev.dml.ray.model;

import java.io.Serializable;

/**
 * How the learning rate changes over a job, as a factor of the base rate ({@code --lr}) at
 * each optimizer update. The factor is a function of the update's 0-based global step alone,
 * so a job restored from a checkpoint (whose optimizer state holds the step count) continues
 * the schedule where it was, and every replica applies the same rate.
 *
 * <p>Crosses Ray inside an {@link OptimizerSpec}, so each kind is a plain Serializable class.
 *
 * <ul>
 *   <li>{@link Constant}: 1.
 *   <li>{@link StepDecay}: {@code gamma^floor(epoch / every)}, epochs counted from 0.
 *   <li>{@link Cosine}: 1 until {@code start}, then {@code (1 + cos(pi (t - start) / (total -
 *       start))) / 2}, which reaches 0 at step {@code total}.
 *   <li>{@link Warmup}: {@code min(1, (t + 1) / steps)} times another schedule.
 * </ul>
 */
public sealed interface LearningRateSchedule extends Serializable {

    /**
     * Returns the factor of the base rate at an update.
     *
     * @param step the update's global step, counting from 0
     * @return the factor, 0 to 1
     */
    double factor(long step);

    /**
     * The rate never changes.
     *
     * @return the schedule
     */
    static LearningRateSchedule constant() {
        return new Constant();
    }

    /** The rate never changes. */
    final class Constant implements LearningRateSchedule {

        private static final long serialVersionUID = 1L;

        @Override
        public double factor(long step) {
            return 1;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Constant;
        }

        @Override
        public int hashCode() {
            return 1;
        }

        @Override
        public String toString() {
            return "constant";
        }
    }

    /** The rate is multiplied by {@code gamma} every {@code every} epochs. */
    final class StepDecay implements LearningRateSchedule {

        private static final long serialVersionUID = 1L;

        private final int every;
        private final double gamma;
        private final int stepsPerEpoch;

        /**
         * @param every epochs between two decays, at least 1
         * @param gamma the factor of each decay, above 0 and below 1
         * @param stepsPerEpoch the job's steps per epoch, at least 1
         */
        public StepDecay(int every, double gamma, int stepsPerEpoch) {
            if (every < 1 || !(gamma > 0 && gamma < 1) || stepsPerEpoch < 1) {
                throw new IllegalArgumentException("step:" + every + ":" + gamma + " over "
                        + stepsPerEpoch + " steps per epoch");
            }
            this.every = every;
            this.gamma = gamma;
            this.stepsPerEpoch = stepsPerEpoch;
        }

        @Override
        public double factor(long step) {
            return Math.pow(gamma, step / stepsPerEpoch / every);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof StepDecay s && s.every == every && s.gamma == gamma
                    && s.stepsPerEpoch == stepsPerEpoch;
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(every, gamma, stepsPerEpoch);
        }

        @Override
        public String toString() {
            return "step:" + every + ":" + gamma;
        }
    }

    /** A half cosine from 1 at step {@code start} to 0 at step {@code total}. */
    final class Cosine implements LearningRateSchedule {

        private static final long serialVersionUID = 1L;

        private final long start;
        private final long total;

        /**
         * @param start the step the decay starts at (the end of a warm-up), at least 0
         * @param total the job's steps; at or before {@code start} the factor stays 1
         */
        public Cosine(long start, long total) {
            if (start < 0 || total < 1) {
                throw new IllegalArgumentException("cosine from " + start + " to " + total);
            }
            this.start = start;
            this.total = total;
        }

        @Override
        public double factor(long step) {
            if (step < start || total <= start) {
                return 1;
            }
            double progress = Math.min(1.0, (double) (step - start) / (total - start));
            return 0.5 * (1 + Math.cos(Math.PI * progress));
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Cosine c && c.start == start && c.total == total;
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(start, total);
        }

        @Override
        public String toString() {
            return "cosine";
        }
    }

    /** A linear warm-up over the first {@code steps} updates, then another schedule. */
    final class Warmup implements LearningRateSchedule {

        private static final long serialVersionUID = 1L;

        private final long steps;
        private final LearningRateSchedule then;

        /**
         * @param steps the warm-up's updates, at least 1
         * @param then the schedule it multiplies
         */
        public Warmup(long steps, LearningRateSchedule then) {
            if (steps < 1 || then == null) {
                throw new IllegalArgumentException("warm-up of " + steps + " steps");
            }
            this.steps = steps;
            this.then = then;
        }

        @Override
        public double factor(long step) {
            return Math.min(1.0, (double) (step + 1) / steps) * then.factor(step);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Warmup w && w.steps == steps && w.then.equals(then);
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(steps, then);
        }

        @Override
        public String toString() {
            return then + " after a warm-up of " + steps + " steps";
        }
    }
}
