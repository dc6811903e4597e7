package dev.ballast.it.docs;

import dev.ballast.it.docs.MarkdownSnippets.Snippet;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * Compiles Java snippets of the documentation with javac, against a given class path, and reports
 * every error at its line in the Markdown file.
 *
 * <p>How a {@code java} block becomes Java source (the convention documentation follows):
 *
 * <ul>
 *   <li>{@code import} lines at the top of the block are imports; the JDK packages a reader takes
 *       for granted are imported too (see {@link #IMPLIED_IMPORTS}), Ballast's never are.
 *   <li>A block whose first declaration is a class, interface, record or enum is a compilation unit
 *       and compiled as it is.
 *   <li>Any other block is a fragment: its lines become the body of a method that may throw any
 *       exception. Variables the fragment uses without declaring them are declared, as that method's
 *       parameters, by an HTML comment on the line above the block (invisible on a rendered page):
 *       {@code <!-- snippet-given: HttpRequest request, org.slf4j.Logger log -->}.
 * </ul>
 *
 * <p>Each snippet gets a package of its own, so two snippets may declare the same names.
 */
final class SnippetCompiler {
    /** Imported into every snippet: types documentation uses without saying where they come from. */
    static final List<String> IMPLIED_IMPORTS = List.of(
            "java.io.*",
            "java.net.*",
            "java.net.http.*",
            "java.net.http.HttpRequest.BodyPublishers",
            "java.net.http.HttpResponse.BodyHandlers",
            "java.nio.*",
            "java.nio.file.*",
            "java.time.*",
            "java.util.*",
            "java.util.concurrent.*");

    private static final Pattern IMPORT = Pattern.compile("^\\s*import\\s+(static\\s+)?[\\w.*]+\\s*;\\s*(//.*)?$");
    private static final Pattern TYPE_DECLARATION = Pattern.compile(
            "^\\s*(?:@\\w+(?:\\([^)]*\\))?\\s+)*(?:(?:public|protected|private|abstract|final|static|sealed|non-sealed"
                    + "|strictfp)\\s+)*(?:class|interface|record|enum|@interface)\\s+(\\w+).*");
    private static final Pattern PUBLIC_TYPE = Pattern.compile(
            "^(?:(?:abstract|final|static|sealed|non-sealed|strictfp)\\s+)*public\\s+(?:(?:abstract|final|static|sealed"
                    + "|non-sealed|strictfp)\\s+)*(?:class|interface|record|enum|@interface)\\s+(\\w+).*");

    private SnippetCompiler() {}

    /**
     * A compile error in a snippet.
     *
     * @param line the 1-based line in the Markdown file
     * @param message javac's message
     */
    record Error(int line, String message) {
        @Override
        public String toString() {
            return line + ": " + message;
        }
    }

    /**
     * Compiles every snippet in one javac run.
     *
     * @param snippets Java snippets
     * @param classPath the class path they are compiled against
     * @return the errors of each snippet, in the order given; an empty list for a snippet that compiles
     */
    static Map<Snippet, List<Error>> compile(List<Snippet> snippets, String classPath) {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null) {
            throw new IllegalStateException("no system Java compiler: run the tests on a JDK, not a JRE");
        }
        List<Unit> units = new ArrayList<>();
        for (int i = 0; i < snippets.size(); i++) {
            units.add(Unit.of(snippets.get(i), "snippets.s" + (i + 1)));
        }
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        Path out = createTempDirectory();
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT, null)) {
            List<String> options = List.of(
                    "--release",
                    "17",
                    "-proc:none",
                    "-implicit:none",
                    "-nowarn",
                    "-classpath",
                    classPath,
                    "-d",
                    out.toString());
            javac.getTask(null, files, diagnostics, options, null, units).call();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            deleteRecursively(out);
        }
        Map<Snippet, List<Error>> errors = new LinkedHashMap<>();
        units.forEach(u -> errors.put(u.snippet, new ArrayList<>(u.conventionErrors)));
        for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
            if (d.getKind() != Diagnostic.Kind.ERROR) {
                continue;
            }
            Unit unit = units.stream()
                    .filter(u -> u == d.getSource())
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("javac error outside the snippets: " + d));
            errors.get(unit.snippet).add(new Error(unit.markdownLine(d.getLineNumber()), d.getMessage(Locale.ROOT)));
        }
        return errors;
    }

    /** The class path of the running tests (Surefire's, not its booter jar's). */
    static String testClassPath() {
        return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    }

    /**
     * The class path a user of Ballast's libraries compiles against: the runtime class path of
     * integration-tests (http-client, storage-adapter and their dependencies, no test libraries), which
     * Maven writes to the file named by {@code ballast.snippets.classpath.file}; the test class path
     * when that is not set (a run from an IDE).
     */
    static String userClassPath() {
        String file = System.getProperty("ballast.snippets.classpath.file");
        if (file == null) {
            return testClassPath();
        }
        try {
            return Files.readString(Path.of(file)).strip();
        } catch (IOException e) {
            throw new UncheckedIOException("the snippet class path file " + file + " is missing; run through Maven", e);
        }
    }

    /** One snippet as Java source, with the Markdown line of each generated line (0 for added lines). */
    private static final class Unit extends SimpleJavaFileObject {
        final Snippet snippet;
        final List<String> code;
        final List<Integer> markdownLines;
        final List<Error> conventionErrors = new ArrayList<>();

        private Unit(Snippet snippet, String typeName, List<String> code, List<Integer> markdownLines) {
            super(URI.create("string:///" + typeName.replace('.', '/') + Kind.SOURCE.extension), Kind.SOURCE);
            this.snippet = snippet;
            this.code = code;
            this.markdownLines = markdownLines;
        }

        static Unit of(Snippet snippet, String pkg) {
            List<String> code = new ArrayList<>();
            List<Integer> at = new ArrayList<>();
            List<String> lines = snippet.lines();
            int body = 0;
            while (body < lines.size()
                    && (lines.get(body).isBlank()
                            || IMPORT.matcher(lines.get(body)).matches())) {
                body++;
            }
            boolean unit = body < lines.size()
                    && firstDeclaration(lines.subList(body, lines.size()))
                            .map(l -> TYPE_DECLARATION.matcher(l).matches())
                            .orElse(false);
            add(code, at, "package " + pkg + ";", 0);
            for (String implied : IMPLIED_IMPORTS) {
                add(code, at, "import " + implied + ";", 0);
            }
            for (int i = 0; i < body; i++) {
                add(code, at, lines.get(i), snippet.firstLine() + i);
            }
            String typeName;
            if (unit) {
                typeName = publicTypeName(lines).orElse("Snippet");
                for (int i = body; i < lines.size(); i++) {
                    add(code, at, lines.get(i), snippet.firstLine() + i);
                }
            } else {
                typeName = "Snippet";
                add(code, at, "final class Snippet {", 0);
                // An error in the snippet-given declarations is reported at the opening fence, below the comment.
                add(
                        code,
                        at,
                        "  void snippet(" + snippet.given().orElse("") + ") throws Exception {",
                        snippet.firstLine() - 1);
                for (int i = body; i < lines.size(); i++) {
                    add(code, at, lines.get(i), snippet.firstLine() + i);
                }
                add(code, at, "  }", 0);
                add(code, at, "}", 0);
            }
            Unit u = new Unit(snippet, pkg + "." + typeName, code, at);
            if (unit && snippet.given().isPresent()) {
                u.conventionErrors.add(
                        new Error(
                                snippet.firstLine() - 1,
                                "snippet-given declares variables for a fragment, but this block declares a type: remove the comment"));
            }
            return u;
        }

        private static void add(List<String> code, List<Integer> at, String line, int markdownLine) {
            code.add(line);
            at.add(markdownLine);
        }

        /** The first line that is neither blank nor a comment. */
        private static Optional<String> firstDeclaration(List<String> lines) {
            return lines.stream()
                    .filter(l -> !l.isBlank()
                            && !l.strip().startsWith("//")
                            && !l.strip().startsWith("/*")
                            && !l.strip().startsWith("*"))
                    .findFirst();
        }

        private static Optional<String> publicTypeName(List<String> lines) {
            return lines.stream()
                    .map(PUBLIC_TYPE::matcher)
                    .filter(Matcher::matches)
                    .map(m -> m.group(1))
                    .findFirst();
        }

        /** The Markdown line of a generated line; the nearest snippet line above for an added one. */
        int markdownLine(long javaLine) {
            int i = (int) Math.min(Math.max(javaLine - 1, 0), markdownLines.size() - 1);
            for (int k = i; k >= 0; k--) {
                if (markdownLines.get(k) > 0) {
                    return markdownLines.get(k);
                }
            }
            return snippet.firstLine();
        }

        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return String.join("\n", code) + "\n";
        }
    }

    private static Path createTempDirectory() {
        try {
            return Files.createTempDirectory("ballast-snippets");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void deleteRecursively(Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
