package dev.ballast.it.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.it.docs.MarkdownSnippets.Snippet;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.Timeout;

/**
 * Every {@code java} block of README.md and docs/*.md compiles against Ballast's modules, so a
 * snippet that stops compiling fails the build with its file and line. The blocks are read from the
 * Markdown at test time, never copied; {@link SnippetCompiler} describes how a block becomes Java
 * (imports, fragments, the {@code snippet-given} comment).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DocumentationSnippetsTest {

    /** The repository root: Maven passes it; run from an IDE, the module's parent directory. */
    static Path root() {
        Path root = Path.of(System.getProperty("ballast.repository.root", ".."))
                .toAbsolutePath()
                .normalize();
        assertThat(root.resolve("README.md"))
                .as("README.md at the repository root " + root)
                .isRegularFile();
        return root;
    }

    static List<Snippet> javaSnippets(Path root) {
        return MarkdownSnippets.documentation(root).stream()
                .flatMap(f -> MarkdownSnippets.read(root, f).stream())
                .filter(s -> s.language().equals("java"))
                .toList();
    }

    @TestFactory
    Stream<DynamicTest> everyJavaSnippetCompiles() {
        List<Snippet> snippets = javaSnippets(root());
        Map<Snippet, List<SnippetCompiler.Error>> errors =
                SnippetCompiler.compile(snippets, SnippetCompiler.userClassPath());
        return snippets.stream()
                .map(s -> DynamicTest.dynamicTest(
                        s.location(),
                        () -> assertThat(errors.get(s))
                                .as("compile errors of the snippet at %s (file:line: message)", s.location())
                                .extracting(e -> s.source() + ":" + e)
                                .isEmpty()));
    }

    @Test
    void everyJavaFenceOfTheDocumentationIsFound() throws IOException {
        // A parser that missed blocks would let them rot unnoticed: count the fences another way.
        Path root = root();
        long fences = 0;
        for (Path file : MarkdownSnippets.documentation(root)) {
            fences += Files.readAllLines(file, StandardCharsets.UTF_8).stream()
                    .filter(l -> l.strip().equals("```java"))
                    .count();
        }
        assertThat(javaSnippets(root)).hasSize((int) fences).isNotEmpty();
    }
}
