package dev.ballast.it.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.ballast.it.docs.MarkdownSnippets.Snippet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The snippet machinery itself: what it extracts from Markdown and where it reports errors. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SnippetCompilerTest {

    static Map<Snippet, List<SnippetCompiler.Error>> compile(String... markdown) {
        List<Snippet> java = MarkdownSnippets.parse("doc.md", List.of(markdown)).stream()
                .filter(s -> s.language().equals("java"))
                .toList();
        return SnippetCompiler.compile(java, SnippetCompiler.testClassPath());
    }

    /** The errors, as {@code line: message}, of a Markdown text holding one Java snippet. */
    static List<String> errorsOfTheOnlySnippet(String... markdown) {
        Map<Snippet, List<SnippetCompiler.Error>> errors = compile(markdown);
        assertThat(errors).hasSize(1);
        return errors.values().iterator().next().stream().map(Object::toString).toList();
    }

    @Test
    void fencesAreFoundWithTheirLanguageFirstLineAndGivenComment() {
        List<Snippet> snippets = MarkdownSnippets.parse(
                "doc.md",
                List.of(
                        "# Title", // 1
                        "<!-- snippet-given: HttpRequest request -->", // 2
                        "", // 3
                        "```java", // 4
                        "client.send(request);", // 5
                        "```", // 6
                        "````md", // 7
                        "```java", // 8: text inside another fence
                        "````", // 9
                        "- item", // 10
                        "   ~~~sh title=x", // 11
                        "   ls", // 12
                        "   ~~~")); // 13
        assertThat(snippets)
                .extracting(
                        Snippet::location,
                        Snippet::language,
                        Snippet::lines,
                        s -> s.given().orElse("-"))
                .containsExactly(
                        tuple("doc.md:5", "java", List.of("client.send(request);"), "HttpRequest request"),
                        tuple("doc.md:8", "md", List.of("```java"), "-"),
                        tuple("doc.md:12", "sh", List.of("ls"), "-"));
    }

    @Test
    void aFragmentThatCompilesHasNoErrors() {
        var errors = errorsOfTheOnlySnippet(
                "<!-- snippet-given: HttpRequest request -->",
                "```java",
                "import dev.ballast.http.ResilientHttpClient;",
                "",
                "HttpClient client = ResilientHttpClient.newBuilder().totalTimeout(Duration.ofSeconds(5)).build();",
                "HttpResponse<String> response = client.send(request, BodyHandlers.ofString());",
                "```");
        assertThat(errors).isEmpty();
    }

    @Test
    void anErrorIsReportedAtItsMarkdownLine() {
        var errors = errorsOfTheOnlySnippet(
                "Some text.", // 1
                "", // 2
                "```java", // 3
                "import dev.ballast.http.ResilientHttpClient;", // 4
                "", // 5
                "HttpClient client = ResilientHttpClient.newBuilder()", // 6
                "        .listener(myListener)", // 7: undeclared
                "        .build();", // 8
                "```");
        assertThat(errors)
                .singleElement()
                .asString()
                .startsWith("7: cannot find symbol")
                .contains("myListener");
    }

    @Test
    void aMissingBallastImportIsAnError() {
        var errors = errorsOfTheOnlySnippet("```java", "ResilientHttpClient.newBuilder().build();", "```");
        assertThat(errors).singleElement().asString().startsWith("2: cannot find symbol");
    }

    @Test
    void aBlockDeclaringATypeIsACompilationUnitAndTwoSnippetsMayReuseNames() {
        var errors = compile(
                "```java",
                "import dev.ballast.http.HttpClientListener;",
                "",
                "public final class CountingListener implements HttpClientListener {",
                "  @Override",
                "  public void onRetryDecision(RetryDecisionEvent event) { }",
                "}",
                "```",
                "```java",
                "record CountingListener(int count) { }",
                "```");
        assertThat(errors.values()).hasSize(2).allSatisfy(e -> assertThat(e).isEmpty());
    }

    @Test
    void anUnknownTypeInTheGivenCommentIsReportedAtTheFence() {
        var errors = errorsOfTheOnlySnippet(
                "<!-- snippet-given: NoSuchType thing -->", // 1
                "```java", // 2
                "thing.toString();", // 3
                "```");
        assertThat(errors)
                .singleElement()
                .asString()
                .startsWith("2: cannot find symbol")
                .contains("NoSuchType");
    }
}
