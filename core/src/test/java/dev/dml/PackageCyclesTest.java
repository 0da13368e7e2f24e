package dev.dml;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** dml's packages depend on each other in one direction only: no package cycle. */
class PackageCyclesTest {

    private static final Path SOURCES = Path.of("src/main/java");
    /** A reference to a class of another dml package: an import or a qualified name in code. */
    private static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"");
    private static final Pattern REFERENCE =
            Pattern.compile("\\b(dev\\.dml(?:\\.[a-z]\\w*)*)\\.[A-Z]");

    @Test
    void corePackagesFormNoCycle() throws IOException {
        Map<String, Set<String>> uses = dependencies(SOURCES);
        assertEquals(List.of(), cycles(uses), "package cycles in core: " + uses);
    }

    /** The other modules' packages too, each module on its own (they depend in one direction). */
    @Test
    void noModuleHasAPackageCycle() throws IOException {
        for (String module : List.of("magics", "ray-backend", "kernel-ext", "bench")) {
            Path sources = Path.of("..", module, "src/main/java");
            if (Files.isDirectory(sources)) {
                Map<String, Set<String>> uses = dependencies(sources);
                assertEquals(List.of(), cycles(uses), "package cycles in " + module);
            }
        }
    }

    @Test
    void theCheckSeesACycle() {
        Map<String, Set<String>> uses = new TreeMap<>(Map.of(
                "a", Set.of("b"), "b", Set.of("c"), "c", Set.of("a"), "d", Set.of("a")));
        assertEquals(List.of("a -> b -> c -> a"), cycles(uses));
    }

    /** Each package's uses of other packages, read from the source files. */
    static Map<String, Set<String>> dependencies(Path root) throws IOException {
        Map<String, Set<String>> uses = new TreeMap<>();
        List<Path> files;
        try (Stream<Path> s = Files.walk(root)) {
            files = s.filter(p -> p.toString().endsWith(".java")).toList();
        }
        for (Path file : files) {
            String pkg = root.relativize(file.getParent()).toString().replace('/', '.');
            Set<String> used = uses.computeIfAbsent(pkg, k -> new TreeSet<>());
            for (String line : Files.readAllLines(file)) {
                String code = line.strip();
                if (code.startsWith("*") || code.startsWith("/*") || code.startsWith("//")) {
                    continue; // Javadoc links are no dependency of the compiled code
                }
                // a class named in a string (a moved class's old name) is no dependency
                Matcher m = REFERENCE.matcher(STRING.matcher(code).replaceAll("\"\""));
                while (m.find()) {
                    if (!m.group(1).equals(pkg)) {
                        used.add(m.group(1));
                    }
                }
            }
        }
        uses.values().forEach(used -> used.retainAll(uses.keySet())); // names in strings
        return uses;
    }

    /** Each cycle once, as "a -> b -> a", starting from its smallest package name. */
    static List<String> cycles(Map<String, Set<String>> uses) {
        Set<String> found = new TreeSet<>();
        for (String start : uses.keySet()) {
            walk(start, new ArrayList<>(List.of(start)), uses, found);
        }
        return new ArrayList<>(found);
    }

    private static void walk(String at, List<String> path, Map<String, Set<String>> uses,
            Set<String> found) {
        for (String next : uses.getOrDefault(at, Set.of())) {
            if (next.equals(path.get(0))) {
                if (path.stream().allMatch(p -> p.compareTo(next) >= 0)) {
                    found.add(String.join(" -> ", path) + " -> " + next);
                }
            } else if (!path.contains(next)) {
                path.add(next);
                walk(next, path, uses, found);
                path.remove(path.size() - 1);
            }
        }
    }
}
