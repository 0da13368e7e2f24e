package dev.dml.ray.cluster;

import dev.dml.DmlException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;

/**
 * dml's code as Ray runtime-env packages, so that workers on any node load it without the
 * kernel's jars at the same path there. The class path becomes two flat zips of jars, each
 * stored once in the cluster's GCS key-value store under a name made from its content ({@code
 * gcs://dml-deps-<hash>.zip}, {@code gcs://dml-code-<hash>.zip}); the job names them as its
 * runtime env's jars, and each node's runtime-env agent fetches and unpacks a package the first
 * time a worker there needs it, then keeps it for later jobs.
 *
 * <p>Two packages, because the dependencies (about 170 MB, most of it libtorch) rarely change
 * while dml's own jars change with every build: a rebuilt kernel ships only its small code
 * package again. Ray caches packages per URI, so naming them by content is what makes a
 * changed jar reach the nodes at all. Class folders (a build's {@code target/classes}) become
 * jars with fixed entry times, so the same classes hash the same.
 *
 * <p>Packages stay in the GCS until the cluster stops (see docs/clusters.md).
 */
final class CodePackages {

    /** Ray's limit for one package in the GCS. */
    static final long GCS_LIMIT = 512L << 20;

    private static final LocalDateTime FIXED_TIME = LocalDateTime.of(1980, 1, 1, 0, 0);
    private static final Map<FileKey, String> FILE_HASHES = new ConcurrentHashMap<>();

    /**
     * One file of a package.
     *
     * @param name its name in the zip
     * @param file where it is on this machine
     */
    record Entry(String name, Path file) {}

    /**
     * One package.
     *
     * @param uri its {@code gcs://} name, from its content
     * @param entries its jars
     */
    record Package(String uri, List<Entry> entries) {}


    private record FileKey(Path path, long size, FileTime modified) {}

    private final List<Package> packages;

    private CodePackages(List<Package> packages) {
        this.packages = List.copyOf(packages);
    }

    /**
     * Packs a class path: jars named {@code dml-*} and class folders into the code package,
     * every other jar into the dependencies package.
     *
     * @param classpath jars and class folders
     * @param scratch a folder for the jars made of class folders; the caller deletes it after
     *     the upload
     * @return the packages
     */
    static CodePackages of(List<Path> classpath, Path scratch) {
        List<Path> deps = new ArrayList<>();
        List<Path> code = new ArrayList<>();
        for (Path p : classpath) {
            if (Files.isDirectory(p)) {
                code.add(jarOf(p, scratch));
            } else if (Files.isRegularFile(p) && p.toString().endsWith(".jar")) {
                (p.getFileName().toString().startsWith("dml-") ? code : deps).add(p);
            }
        }
        List<Package> out = new ArrayList<>();
        for (Map.Entry<String, List<Path>> kind : Map.of("deps", deps, "code", code).entrySet()) {
            if (!kind.getValue().isEmpty()) {
                out.add(pack(kind.getKey(), kind.getValue()));
            }
        }
        out.sort((a, b) -> a.uri().compareTo(b.uri()));
        return new CodePackages(out);
    }

    /** The package's entries (unique names) and its URI: a hash of every name and content. */
    private static Package pack(String kind, List<Path> jars) {
        MessageDigest all = sha256();
        Set<String> names = new HashSet<>();
        List<Entry> entries = new ArrayList<>();
        for (Path jar : jars) {
            String hash = hashOf(jar);
            String name = jar.getFileName().toString();
            if (!names.add(name)) {
                name = name.substring(0, name.length() - 4) + "-" + hash.substring(0, 8) + ".jar";
                names.add(name);
            }
            entries.add(new Entry(name, jar));
            all.update((name + "\0" + hash + "\n").getBytes(StandardCharsets.UTF_8));
        }
        String id = HexFormat.of().formatHex(all.digest()).substring(0, 20);
        return new Package("gcs://dml-" + kind + "-" + id + ".zip", entries);
    }

    /** A class folder as a jar whose bytes depend only on the folder's files. */
    private static Path jarOf(Path folder, Path scratch) {
        try {
            Files.createDirectories(scratch);
            Path jar = Files.createTempFile(scratch, "classes-", ".jar");
            List<Path> files;
            try (Stream<Path> s = Files.walk(folder)) {
                files = s.filter(Files::isRegularFile).sorted().toList();
            }
            try (OutputStream os = Files.newOutputStream(jar);
                    JarOutputStream out = new JarOutputStream(os)) {
                for (Path f : files) {
                    ZipEntry e = new ZipEntry(folder.relativize(f).toString().replace('\\', '/'));
                    e.setTimeLocal(FIXED_TIME);
                    out.putNextEntry(e);
                    Files.copy(f, out);
                    out.closeEntry();
                }
            }
            Path named = scratch.resolve("classes-" + hashOf(jar).substring(0, 12) + ".jar");
            return Files.move(jar, named, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new DmlException("Cannot pack the class folder " + folder + " for the cluster: "
                    + e.getMessage() + ".", "Check that " + scratch + " is writable.", e);
        }
    }

    /** A file's SHA-256, remembered while its size and time stay the same. */
    static String hashOf(Path file) {
        try {
            FileKey key = new FileKey(file.toAbsolutePath(), Files.size(file),
                    Files.getLastModifiedTime(file));
            return FILE_HASHES.computeIfAbsent(key, k -> digest(k.path()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String digest(Path file) {
        MessageDigest md = sha256();
        byte[] buf = new byte[1 << 16];
        try (InputStream in = Files.newInputStream(file)) {
            int n;
            while ((n = in.read(buf)) > 0) {
                md.update(buf, 0, n);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return HexFormat.of().formatHex(md.digest());
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Returns the packages' URIs, for the job's runtime env.
     *
     * @return {@code gcs://} URIs
     */
    List<String> uris() {
        return packages.stream().map(Package::uri).toList();
    }

    /**
     * Returns the packages.
     *
     * @return the packages, by URI
     */
    List<Package> packages() {
        return packages;
    }

    /**
     * Stores the packages the cluster does not have yet, with Ray's Python client (the Python of
     * the Ray installation).
     *
     * @param python the interpreter that has Ray
     * @param address the cluster's GCS address
     * @param timeout how long the upload may take
     * @return what was stored and what was there already
     * @throws DmlException when Python fails or the cluster refuses a package
     */
    CodeShipment upload(String python, String address, Duration timeout) {
        long t0 = System.nanoTime();
        Processes.Result r;
        try {
            r = Processes.run(List.of(python, "-c", script()), request(address), timeout);
        } catch (IOException e) {
            throw failed(address, e.getMessage(), e);
        }
        Map<String, Long> uploaded = new java.util.TreeMap<>();
        List<String> cached = new ArrayList<>();
        String last = "no output";
        for (String line : r.output().lines().toList()) {
            String[] w = line.trim().split(" ");
            if (w.length == 3 && w[0].equals("uploaded")) {
                uploaded.put(w[1], Long.parseLong(w[2]));
            } else if (w.length == 2 && w[0].equals("cached")) {
                cached.add(w[1]);
            } else if (!line.isBlank()) {
                last = line.trim();
            }
        }
        if (r.exitCode() != 0 || uploaded.size() + cached.size() != packages.size()) {
            throw failed(address, last, null);
        }
        return new CodeShipment(uploaded, cached, (System.nanoTime() - t0) / 1e9);
    }

    private String request(String address) {
        StringBuilder sb = new StringBuilder("{\"address\": ").append(json(address))
                .append(", \"limit\": ").append(GCS_LIMIT).append(", \"packages\": [");
        for (int i = 0; i < packages.size(); i++) {
            Package p = packages.get(i);
            sb.append(i == 0 ? "" : ", ").append("{\"uri\": ").append(json(p.uri()))
                    .append(", \"entries\": [");
            for (int j = 0; j < p.entries().size(); j++) {
                Entry e = p.entries().get(j);
                sb.append(j == 0 ? "" : ", ").append('[').append(json(e.name())).append(", ")
                        .append(json(e.file().toString())).append(']');
            }
            sb.append("]}");
        }
        return sb.append("]}").toString();
    }

    private static String json(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.append('"').toString();
    }

    private static String script() {
        try (InputStream in = CodePackages.class.getResourceAsStream("upload_packages.py")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException | NullPointerException e) {
            throw new IllegalStateException("upload_packages.py is missing from dml's jar", e);
        }
    }

    private static DmlException failed(String address, String why, Throwable cause) {
        return new DmlException("Cannot send dml's code to the cluster at " + address + ": "
                + DmlException.literal(why) + ".",
                "Check that this machine's Ray (the same version as the cluster's) reaches the"
                        + " cluster, and that the cluster's head has memory to spare.", cause);
    }

    @Override
    public String toString() {
        return "CodePackages" + uris();
    }
}
