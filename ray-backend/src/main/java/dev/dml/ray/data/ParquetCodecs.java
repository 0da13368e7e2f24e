package dev.dml.ray.data;

import dev.dml.DmlException;
import io.airlift.compress.lz4.Lz4Decompressor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.GZIPInputStream;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.brotli.dec.BrotliInputStream;

/**
 * Decompresses Parquet pages with the codec libraries parquet-java already brings (snappy-java,
 * zstd-jni, aircompressor, the JDK's gzip) and Google's Brotli decoder: every codec pandas'
 * {@code to_parquet} offers, so that reading a file never builds a Hadoop {@code
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
            case LZ4_RAW:
                return lz4Block(src, 0, src.length, size);
            case LZ4:
                return lz4Hadoop(src, size);
            case BROTLI:
                try (InputStream in = new BrotliInputStream(new ByteArrayInputStream(src))) {
                    return in.readNBytes(size);
                }
            default:
                // a DmlException passes through parquet-java's IOException wrappers unchanged
                throw new DmlException("The Parquet file's pages are compressed with " + codec
                        + ", which dml cannot read.", "Write it again with a codec pandas"
                        + " offers: df.to_parquet(f, compression=\"snappy\") (or \"zstd\","
                        + " \"gzip\", \"brotli\", \"lz4\", None).");
        }
    }

    private static byte[] lz4Block(byte[] src, int from, int length, int size) {
        byte[] out = new byte[size];
        int n = new Lz4Decompressor().decompress(src, from, length, out, 0, size);
        return n == size ? out : Arrays.copyOf(out, n);
    }

    /**
     * Parquet's deprecated LZ4 codec, which pyarrow writes for {@code compression="lz4"}:
     * Hadoop's framing (big-endian uncompressed and compressed lengths before each LZ4 block),
     * or, in files from older writers, one bare LZ4 block.
     */
    static byte[] lz4Hadoop(byte[] src, int size) throws IOException {
        ByteBuffer in = ByteBuffer.wrap(src);
        byte[] out = new byte[size];
        int written = 0;
        try {
            while (in.remaining() >= 8) {
                int raw = in.getInt();
                int packed = in.getInt();
                if (raw < 0 || packed < 0 || packed > in.remaining() || written + raw > size) {
                    throw new IOException("not Hadoop-framed");
                }
                byte[] block = lz4Block(src, in.position(), packed, raw);
                System.arraycopy(block, 0, out, written, block.length);
                written += block.length;
                in.position(in.position() + packed);
            }
            if (in.hasRemaining() || written != size) {
                throw new IOException("not Hadoop-framed");
            }
            return out;
        } catch (IOException | RuntimeException e) {
            return lz4Block(src, 0, src.length, size);
        }
    }

    @Override
    public void release() {
        // nothing pooled
    }
}
