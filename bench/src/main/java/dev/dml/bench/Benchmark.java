package dev.dml.bench;

/** A benchmark that {@link Bench} runs by its id. */
@FunctionalInterface
public interface Benchmark {

    /**
     * Measures and returns the result; {@link Bench} writes it.
     *
     * @param command the command that runs it, recorded in the result
     * @return the result, with its ratio set
     * @throws Exception if a measurement fails
     */
    BenchResult run(String command) throws Exception;
}
