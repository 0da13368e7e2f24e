/**
 * Side-by-side benchmarks of dml, run with {@code bash bench/run ID}. Each one measures its
 * subject and its peer alternately in one process, and writes {@code bench/results/ID.json}
 * through {@link dev.dml.bench.BenchResult}.
 */
package dev.dml.bench;
