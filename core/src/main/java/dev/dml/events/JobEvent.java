package dev.dml.events;

import java.io.Serializable;

/**
 * What a training job tells its listeners while it runs, from the driver to the notebook. The
 * set is closed: {@link ProgressListener#deliver} hands each kind to its own method, and a test
 * fails if a kind is added without one, so no event is dropped unseen.
 */
public sealed interface JobEvent extends Serializable
        permits JobStarted, StepMetrics, PipelineMetrics, EpochMetrics, Recovery, Resize,
        JobNotice, JobCost {}
