/**
 * Planning a job before it runs ({@code %dml plan}): short probes on the real cluster measure
 * each size's step time, a model of the whole job extends them to its epochs, and the
 * catalogue prices each configuration. The ranking itself is {@link dev.dml.cost.JobPlan}.
 */
package dev.dml.ray.plan;
