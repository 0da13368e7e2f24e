package dev.dml.ray.data;

import com.github.luben.zstd.Zstd;
import dev.dml.DmlException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.compression.AbstractCompressionCodec;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil.CodecType;
import org.apache.arrow.vector.compression.NoCompressionCodec;

/**
 * Decompresses the buffers of Arrow IPC files that pyarrow compressed: LZ4 frame (what {@code
 * DataFrame.to_feather()} and {@code pyarrow.feather.write_feather} use by default) and ZSTD.
 * LZ4 frames are decoded here, ZSTD by zstd-jni (which parquet-java already brings); Arrow's
 * own {@code arrow-compression} module would bring commons-compress, whose commons-io clashes
 * with the older one Ray's runtime carries. Read-only: dml's own shards are uncompressed.
 */
final class ArrowCodecs implements CompressionCodec.Factory {

    /** The one instance; it holds no state. */
    static final ArrowCodecs INSTANCE = new ArrowCodecs();

    private static final int LZ4_FRAME_MAGIC = 0x184D2204;

    private ArrowCodecs() {}

    @Override
    public CompressionCodec createCodec(CodecType type) {
        return switch (type) {
            case NO_COMPRESSION -> NoCompressionCodec.INSTANCE;
            case LZ4_FRAME, ZSTD -> new Codec(type);
        };
    }

    @Override
    public CompressionCodec createCodec(CodecType type, int level) {
        return createCodec(type);
    }

    /** One codec; Arrow's base class handles the length prefix and uncompressed buffers. */
    private static final class Codec extends AbstractCompressionCodec {
        private final CodecType type;

        Codec(CodecType type) {
            this.type = type;
        }

        /** Never called: this factory is given to readers only; dml's own IPC is uncompressed. */
        @Override
        protected ArrowBuf doCompress(BufferAllocator allocator, ArrowBuf data) {
            throw new IllegalStateException("ArrowCodecs decompresses only; it is for readers.");
        }

        @Override
        protected ArrowBuf doDecompress(BufferAllocator allocator, ArrowBuf compressed) {
            long length = readUncompressedLength(compressed);
            byte[] src = new byte[Math.toIntExact(compressed.writerIndex() - 8)];
            compressed.getBytes(8, src);
            byte[] out = type == CodecType.ZSTD ? zstd(src, length)
                    : lz4Frame(src, Math.toIntExact(length));
            ArrowBuf buf = allocator.buffer(out.length);
            buf.setBytes(0, out);
            buf.writerIndex(out.length);
            return buf;
        }

        @Override
        public CodecType getCodecType() {
            return type;
        }
    }

    static byte[] zstd(byte[] src, long length) {
        byte[] out;
        try {
            out = Zstd.decompress(src, Math.toIntExact(length));
        } catch (RuntimeException e) {
            throw corrupt("ZSTD", e.getMessage());
        }
        if (out.length != length) {
            throw corrupt("ZSTD", "it holds " + out.length + " bytes, not " + length);
        }
        return out;
    }

    /**
     * Decodes an LZ4 frame (lz4's frame format, version 01) whose content is {@code size} bytes.
     */
    static byte[] lz4Frame(byte[] src, int size) {
        ByteBuffer in = ByteBuffer.wrap(src).order(ByteOrder.LITTLE_ENDIAN);
        byte[] out = new byte[size];
        int written = 0;
        try {
            if (in.getInt() != LZ4_FRAME_MAGIC) {
                throw corrupt("LZ4", "no LZ4 frame magic");
            }
            int flags = in.get() & 0xff;
            in.get(); // block maximum size: the output's size is known
            boolean blockChecksums = (flags & 0x10) != 0;
            boolean contentChecksum = (flags & 0x04) != 0;
            in.position(in.position() + ((flags & 0x08) != 0 ? 8 : 0)
                    + ((flags & 0x01) != 0 ? 4 : 0) + 1); // content size, dictionary id, checksum
            for (int block = in.getInt(); block != 0; block = in.getInt()) {
                int length = block & 0x7fffffff;
                if (length > in.remaining()) {
                    throw corrupt("LZ4", "a block runs past the buffer");
                }
                if (block < 0) { // the high bit marks a block stored uncompressed
                    in.get(out, written, length);
                    written += length;
                } else {
                    written = lz4Block(src, in.position(), length, out, written);
                    in.position(in.position() + length);
                }
                in.position(in.position() + (blockChecksums ? 4 : 0));
            }
            in.position(in.position() + (contentChecksum ? 4 : 0));
        } catch (RuntimeException e) {
            throw e instanceof DmlException d ? d : corrupt("LZ4", e.toString());
        }
        if (written != size) {
            throw corrupt("LZ4", "it holds " + written + " bytes, not " + size);
        }
        return out;
    }

    /**
     * Decodes one LZ4 block into {@code out} from {@code at}; a match may reach back into the
     * blocks before it (lz4's linked blocks, its frame default).
     *
     * @return the end of what was written
     */
    private static int lz4Block(byte[] src, int from, int length, byte[] out, int at) {
        int ip = from;
        int end = from + length;
        int op = at;
        while (ip < end) {
            int token = src[ip++] & 0xff;
            int literals = token >>> 4;
            if (literals == 15) {
                for (int b = 255; b == 255; literals += b) {
                    b = src[ip++] & 0xff;
                }
            }
            System.arraycopy(src, ip, out, op, literals);
            ip += literals;
            op += literals;
            if (ip >= end) {
                break; // the last sequence has literals only
            }
            int offset = (src[ip] & 0xff) | (src[ip + 1] & 0xff) << 8;
            ip += 2;
            int match = (token & 0x0f) + 4;
            if ((token & 0x0f) == 15) {
                for (int b = 255; b == 255; match += b) {
                    b = src[ip++] & 0xff;
                }
            }
            if (offset == 0 || offset > op) {
                throw corrupt("LZ4", "a match refers before the start of the buffer");
            }
            for (int i = 0; i < match; i++, op++) { // byte by byte: matches may overlap
                out[op] = out[op - offset];
            }
        }
        return op;
    }

    private static DmlException corrupt(String codec, String why) {
        return new DmlException("An Arrow buffer compressed with " + codec + " could not be"
                + " decompressed: " + why + ".", "Write the file again (df.to_feather(f)), or"
                + " without compression (compression=\"uncompressed\").",
                new UncheckedIOException(new IOException(why)));
    }
}
