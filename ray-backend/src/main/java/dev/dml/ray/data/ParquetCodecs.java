package dev.dml.ray.data;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.zip.GZIPInputStream;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * Decompresses Parquet pages with the codec libraries parquet-java already brings (snappy-java,
 * zstd-jni, aircompressor, the JDK's gzip), so that reading a file never builds a Hadoop {@code
 * Configuration} (which would need Hadoop's whole runtime). Read-only: dml never writes
 * Parquet.
 */
final class ParquetCodecs implements CompressionCodecFactory {

    @Override
    public BytesInputCompressor getCompressor(CompressionCodecName codec) {
        throw new UnsupportedOperationException("dml reads Parquet; it does not write it");
    }

    @Override
    public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
        return new BytesInputDecompressor() {
            @Override
            public BytesInput decompress(BytesInput in, int size) throws IOException {
                return BytesInput.from(inflate(codec, in.toByteArray(), size));
            }

            @Override
            public void decompress(ByteBuffer in, int inSize, ByteBuffer out, int outSize)
                    throws IOException {
                byte[] src = new byte[inSize];
                in.get(src);
                out.put(inflate(codec, src, outSize));
            }

            @Override
            public void release() {
                // nothing pooled
            }
        };
    }

    static byte[] inflate(CompressionCodecName codec, byte[] src, int size) throws IOException {
        switch (codec) {
            case UNCOMPRESSED:
                return src;
            case SNAPPY:
                return org.xerial.snappy.Snappy.uncompress(src);
            case ZSTD:
                return com.github.luben.zstd.Zstd.decompress(src, size);
            case GZIP:
                try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(src))) {
                    return in.readNBytes(size);
                }
            case LZ4_RAW: {
                byte[] out = new byte[size];
                new io.airlift.compress.lz4.Lz4Decompressor()
                        .decompress(src, 0, src.length, out, 0, size);
                return out;
            }
            default:
                throw new IOException("Parquet pages compressed with " + codec + " cannot be"
                        + " read; rewrite the file with snappy, zstd, gzip, lz4_raw or none"
                        + " (pyarrow: pq.write_table(t, f, compression='zstd')).");
        }
    }

    @Override
    public void release() {
        // nothing pooled
    }
}
