package dev.ballast.it.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The fenced code blocks of Markdown files: every block opened by three or more backticks or tildes
 * (CommonMark's fences, indented up to three spaces, as inside list items), with its info string's
 * first word as the language, and the {@code <!-- snippet-given: ... -->} comment on the nearest
 * non-blank line above it, if any. A fence inside another fence is text, as CommonMark reads it.
 */
final class MarkdownSnippets {
    private static final Pattern OPENING = Pattern.compile("^( {0,3})(`{3,}|~{3,})\\s*([^\\s`]*)[^`]*$");
    private static final Pattern GIVEN = Pattern.compile("^\\s*<!--\\s*snippet-given:(.*?)-->\\s*$");

    private MarkdownSnippets() {}

    /**
     * One fenced block.
     *
     * @param source the file it is in, for messages, e.g. {@code docs/http-client.md}
     * @param firstLine the 1-based line number of the block's first content line
     * @param language the info string's first word, empty if none
     * @param lines the content lines, without the fences and the fence's indentation
     * @param given what the {@code snippet-given} comment above the block declares, if any
     */
    record Snippet(String source, int firstLine, String language, List<String> lines, Optional<String> given) {
        Snippet {
            lines = List.copyOf(lines);
        }

        /** Where the block starts, e.g. {@code README.md:57}. */
        String location() {
            return source + ":" + firstLine;
        }
    }

    /** The Markdown files whose Java snippets the build compiles: README.md and every *.md under docs/. */
    static List<Path> documentation(Path root) {
        List<Path> files = new ArrayList<>();
        files.add(root.resolve("README.md"));
        Path docs = root.resolve("docs");
        if (Files.isDirectory(docs)) {
            try (Stream<Path> walk = Files.walk(docs)) {
                walk.filter(p -> p.getFileName().toString().endsWith(".md"))
                        .sorted()
                        .forEach(files::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return files;
    }

    /** The fenced blocks of {@code file}, named relative to {@code root}. */
    static List<Snippet> read(Path root, Path file) {
        try {
            String name = root.relativize(file).toString().replace('\\', '/');
            return parse(name, Files.readAllLines(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The fenced blocks of a Markdown text given as lines. */
    static List<Snippet> parse(String source, List<String> text) {
        List<Snippet> snippets = new ArrayList<>();
        int i = 0;
        while (i < text.size()) {
            Matcher open = OPENING.matcher(text.get(i));
            if (!open.matches()
                    || (open.group(2).charAt(0) == '`' && open.group(3).contains("`"))) {
                i++;
                continue;
            }
            int indent = open.group(1).length();
            String fence = open.group(2);
            String language = open.group(3);
            Optional<String> given = givenAbove(text, i);
            List<String> lines = new ArrayList<>();
            int j = i + 1;
            while (j < text.size() && !closes(text.get(j), fence)) {
                lines.add(unindent(text.get(j), indent));
                j++;
            }
            snippets.add(new Snippet(source, i + 2, language, lines, given));
            i = j + 1;
        }
        return snippets;
    }

    private static Optional<String> givenAbove(List<String> text, int fenceLine) {
        for (int k = fenceLine - 1; k >= 0; k--) {
            if (!text.get(k).isBlank()) {
                Matcher m = GIVEN.matcher(text.get(k));
                return m.matches() ? Optional.of(m.group(1).trim()) : Optional.empty();
            }
        }
        return Optional.empty();
    }

    /** A closing fence: up to three spaces, at least as many of the same character, nothing else. */
    private static boolean closes(String line, String fence) {
        String t = line.stripTrailing();
        int spaces = 0;
        while (spaces < t.length() && spaces < 4 && t.charAt(spaces) == ' ') {
            spaces++;
        }
        if (spaces > 3) {
            return false;
        }
        String rest = t.substring(spaces);
        return rest.length() >= fence.length() && rest.chars().allMatch(c -> c == fence.charAt(0));
    }

    private static String unindent(String line, int indent) {
        int n = 0;
        while (n < indent && n < line.length() && line.charAt(n) == ' ') {
            n++;
        }
        return line.substring(n);
    }
}
