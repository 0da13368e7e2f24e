package dev.dml.ray.data.store;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

/**
 * A file of a {@link DataStore} as Parquet's reader takes it, each stream a new channel.
 *
 * @param length the file's length in bytes
 * @param opener opens a new channel on the file for each stream
 */
record ChannelInputFile(long length, Opener opener) implements InputFile {

    /** Opens an owned channel. */
    @FunctionalInterface
    interface Opener {
        SeekableByteChannel open() throws IOException;
    }

    @Override
    public long getLength() {
        return length;
    }

    @Override
    public SeekableInputStream newStream() throws IOException {
        return new Stream(opener.open());
    }

    /** Parquet's stream over a channel; closing it closes the channel. */
    private static final class Stream extends SeekableInputStream {
        private final SeekableByteChannel ch;

        Stream(SeekableByteChannel ch) {
            this.ch = ch;
        }

        @Override
        public long getPos() throws IOException {
            return ch.position();
        }

        @Override
        public void seek(long newPos) throws IOException {
            ch.position(newPos);
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return len == 0 ? 0 : ch.read(ByteBuffer.wrap(b, off, len));
        }

        @Override
        public void readFully(byte[] bytes) throws IOException {
            readFully(ByteBuffer.wrap(bytes));
        }

        @Override
        public void readFully(byte[] bytes, int start, int len) throws IOException {
            readFully(ByteBuffer.wrap(bytes, start, len));
        }

        @Override
        public int read(ByteBuffer buf) throws IOException {
            return ch.read(buf);
        }

        @Override
        public void readFully(ByteBuffer buf) throws IOException {
            while (buf.hasRemaining()) {
                if (ch.read(buf) < 0) {
                    throw new EOFException(buf.remaining() + " bytes short of the end");
                }
            }
        }

        @Override
        public void close() throws IOException {
            ch.close();
        }
    }
}
