package dev.dml.ray.data.store;

import dev.dml.DmlException;
import java.io.IOException;
import java.io.ObjectStreamException;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.LocalInputFile;

/** Files on a path every node mounts, or {@code file://} URLs of them. */
public final class LocalStore implements DataStore {

    private static final long serialVersionUID = 1L;

    /** The one local store. */
    public static final LocalStore INSTANCE = new LocalStore();

    private LocalStore() {}

    /**
     * The absolute path of a location.
     *
     * @param location a path or a {@code file://} URL
     * @return the path, normalised
     */
    public static Path path(String location) {
        return location.regionMatches(true, 0, "file://", 0, 7)
                ? Path.of(URI.create(location)) : Path.of(location).toAbsolutePath().normalize();
    }

    /**
     * A local file as listed now.
     *
     * @param p the file
     * @return it, with its size and modification time
     * @throws IOException when it cannot be read
     */
    public static StoredFile file(Path p) throws IOException {
        Path abs = p.toAbsolutePath().normalize();
        // to the file system's precision, so a quick rewrite still shows
        long modified = Files.getLastModifiedTime(abs).to(TimeUnit.NANOSECONDS);
        return new StoredFile(abs.toString(), Files.size(abs), Long.toString(modified));
    }

    @Override
    public Listing list(String location) {
        Path root = path(location);
        try {
            if (Files.isDirectory(root)) {
                List<StoredFile> files = new ArrayList<>();
                try (Stream<Path> s = Files.list(root)) {
                    for (Path p : s.filter(Files::isRegularFile).sorted().toList()) {
                        files.add(file(p));
                    }
                }
                return new Listing(Kind.FOLDER, files);
            }
            if (Files.isRegularFile(root)) {
                return new Listing(Kind.FILE, List.of(file(root)));
            }
        } catch (IOException e) {
            throw new DmlException("Could not list " + root + ": " + e.getMessage() + ".",
                    "Check that every node can read it.", e);
        }
        return new Listing(Kind.MISSING, List.of());
    }

    @Override
    public StoredFile stat(StoredFile f) {
        try {
            return file(Path.of(f.url()));
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    public SeekableByteChannel open(StoredFile f) throws IOException {
        return FileChannel.open(Path.of(f.url()), StandardOpenOption.READ);
    }

    @Override
    public InputFile parquet(StoredFile f) {
        return new LocalInputFile(Path.of(f.url()));
    }

    @Override
    public boolean isLocal() {
        return true;
    }

    private Object readResolve() throws ObjectStreamException {
        return INSTANCE;
    }
}
