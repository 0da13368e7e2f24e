package dev.dml.options;

import static dev.dml.options.Declaration.choice;
import static dev.dml.options.Declaration.spec;

/**
 * How data-parallel workers agree: the all-reduce, its wire and compression, or parameter servers.
 * Declared here by concern; {@link TrainOptions} gathers every group, so each option is {@code
 * TrainOptions.NAME} wherever it is used.
 */
interface SyncOptions {

    /** How gradients are compressed on the wire. */
    Option<Compression> COMPRESS = spec("compress", ValueType.compression(),
            "none|fp16|bf16|int8|topk:RATIO[:WARMUP]|powersgd:RANK", "compress the gradients"
            + " the workers exchange (data parallelism): half floats, 8-bit integers, the"
            + " largest RATIO of the optimizer's local velocities (Deep Gradient Compression;"
            + " the share sent falls from 25 % to RATIO over the first WARMUP epochs), or each"
            + " weight matrix as a rank-RANK product (PowerSGD); what a lossy scheme drops is"
            + " added to the next step (error feedback)")
            .example("topk:0.01").fixed(Compression.NONE).java("optCompress").done();

    /** How the workers' collectives move data. */
    Option<TransportKind> TRANSPORT = choice("transport",
            TransportKind.class, "how the workers exchange gradients and parameters: direct TCP"
            + " connections between them (a link that cannot connect goes through Ray, and the"
            + " cell says so), or Ray's object store for every link").example("ray")
            .fixed(TransportKind.TCP).java("opt(TrainOptions.TRANSPORT, ...)").done();

    /** The gradient buckets all-reduced during the backward pass. */
    Option<Double> BUCKET_MB = spec("bucket-mb", ValueType.nonNegative(),
            "MB", "all-reduce the gradients in buckets of about MB megabytes of layers, each as"
            + " soon as the backward pass has finished its layers, while it goes on with the"
            + " earlier ones (data parallelism, --transport tcp, no --compress); 0 waits for the"
            + " whole backward pass").example("0").fixed(1.0)
            .java("opt(TrainOptions.BUCKET_MB, ...)").done();

    /** ZeRO-1: each data-parallel worker keeps and updates 1/N of the optimizer state. */
    Option<Boolean> SHARD_OPTIMIZER = spec("shard-optimizer",
            ValueType.onOff(), null, "shard the optimizer over the workers, as ZeRO-1 (data"
            + " parallelism, 2 or more workers): the gradients are reduce-scattered, each"
            + " worker updates its 1/N of the parameters and keeps the optimizer state (Adam's"
            + " moments, SGD's velocity) of that 1/N only, and an all-gather returns the"
            + " parameters; the result equals the unsharded job's, with 1/N of its optimizer"
            + " memory per worker; on by default with --shard-gradients").example("true")
            .derived("false; true with --shard-gradients", v -> v.get(TrainOptions
                    .SHARD_GRADIENTS)).java("optShardOptimizer").done();

    /** ZeRO-2: each data-parallel worker also keeps only its 1/N of the reduced gradients. */
    Option<Boolean> SHARD_GRADIENTS = spec("shard-gradients",
            ValueType.onOff(), null, "shard the reduced gradients too, as ZeRO-2 (implies"
            + " --shard-optimizer): each gradient bucket (--bucket-mb) is reduce-scattered as"
            + " soon as the backward has finished its layers, each worker keeps the reduced"
            + " gradients of its 1/N of every bucket only, and the parameters are all-gathered"
            + " bucket by bucket; the result equals the unsharded job's with the same"
            + " --bucket-mb. The engine still holds each layer's whole gradient during the"
            + " backward; what shrinks is the gradient buffers dml keeps").example("true")
            .fixed(false).java("optShardGradients").done();

    /** Synchronous all-reduce, or asynchronous updates through parameter servers. */
    Option<SyncMode> SYNC = spec("sync", ValueType.syncMode(),
            "sync|async|ssp:S", "how data-parallel workers agree on the parameters: an"
            + " all-reduce every step (sync); or each worker pushes its update to parameter"
            + " servers and pulls their parameters without waiting for the others (async), at"
            + " most S steps ahead of the slowest (ssp:S)").example("ssp:2").fixed(SyncMode.SYNC)
            .java("optSync").done();

    /** Parameter-server actors of an asynchronous job. */
    Option<Integer> PS = spec("ps", ValueType.count(), "N",
            "parameter-server actors of --sync async or ssp:S, each holding whole parameter"
            + " tensors, balanced by size").example("2")
            .derived("1 with --sync async or ssp:S", v -> v.get(SYNC).isSync() ? null : 1)
            .java("optParameterServers").done();
}
