package dev.dml.ray.train.settings;

import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.DataFiles;
import dev.dml.ray.data.FileShard;
import java.util.ArrayList;
import java.util.List;

/**
 * A job's worker-read data: the files, which units each shard reads, and the size of each
 * node's cache. The shards it sends are references ({@link FileShard}), not rows.
 *
 * @param files the files
 * @param shards each shard's units
 * @param cacheMb each node's cache size in MB ({@code --data-cache-mb})
 */
public record FileInput(DataFiles files, List<int[]> shards, int cacheMb) {

    public static FileInput deal(DataFiles files, int shards, boolean shuffle, long seed,
            int cacheMb) {
        return new FileInput(files, files.deal(shards, shuffle, seed), cacheMb);
    }

    /** The rows of the smallest shard, which set the steps of an epoch. */
    public long smallestShard() {
        return references(null).stream().mapToLong(FileShard::rows).min().orElse(0);
    }

    /** The rows of every shard. */
    public long rows() {
        return references(null).stream().mapToLong(FileShard::rows).sum();
    }

    /** Each shard as the bytes a worker's {@code load} takes. */
    public List<byte[]> encode(ColumnSelection columns) {
        return references(columns).stream().map(FileShard::toBytes).toList();
    }

    private List<FileShard> references(ColumnSelection columns) {
        List<FileShard> out = new ArrayList<>();
        for (int[] units : shards) {
            // the folder is resolved on each worker's node ($DML_DATA_CACHE there)
            out.add(new FileShard(files, units, columns, null, cacheMb * 1024L * 1024L));
        }
        return out;
    }
}
