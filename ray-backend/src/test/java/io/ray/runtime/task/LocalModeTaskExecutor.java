package io.ray.runtime.task;

import io.ray.api.id.UniqueId;
import io.ray.runtime.AbstractRayRuntime;

/**
 * TEST ONLY: replaces {@code io.ray:ray-runtime:2.39.0}'s class of the same name (test classes
 * come first on Surefire's class path) with the fix Ray made later (2.58's {@code ray_dist.jar}
 * has it): the current actor is kept per thread.
 *
 * <p>In 2.39 LOCAL mode, every actor shares one {@code TaskExecutor} whose "current actor" is a
 * plain field, set just before a task runs; two actors running tasks at once (a threaded actor,
 * or one actor calling another during a collective) can then run a task on the wrong actor
 * instance. Production code never sees this class: drivers and workers run the cluster's
 * {@code ray_dist.jar}, which comes first on their class path.
 */
public class LocalModeTaskExecutor extends TaskExecutor<LocalModeTaskExecutor.LocalActorContext> {

    private final ThreadLocal<LocalActorContext> current = new ThreadLocal<>();

    /** The context of one actor in LOCAL mode. */
    static class LocalActorContext extends TaskExecutor.ActorContext {

        private final UniqueId workerId;

        /**
         * Creates the context.
         *
         * @param workerId the actor's worker id
         */
        public LocalActorContext(UniqueId workerId) {
            this.workerId = workerId;
        }

        /**
         * Returns the actor's worker id.
         *
         * @return the id
         */
        public UniqueId getWorkerId() {
            return workerId;
        }
    }

    /**
     * Creates the executor.
     *
     * @param runtime the LOCAL runtime
     */
    public LocalModeTaskExecutor(AbstractRayRuntime runtime) {
        super(runtime);
    }

    @Override
    protected LocalActorContext createActorContext() {
        return new LocalActorContext(runtime.getWorkerContext().getCurrentWorkerId());
    }

    @Override
    LocalActorContext getActorContext() {
        return current.get();
    }

    @Override
    void setActorContext(UniqueId workerId, LocalActorContext actorContext) {
        if (actorContext == null) {
            current.remove();
        } else {
            current.set(actorContext);
        }
    }
}
