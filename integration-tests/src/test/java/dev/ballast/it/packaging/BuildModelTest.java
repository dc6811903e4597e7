package dev.ballast.it.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The POMs users meet: ballast-bom manages exactly Ballast's published artifacts and nothing else,
 * and ballast-parent manages no dependency that no module uses. Read from the POM files themselves.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BuildModelTest {
    static final Path ROOT = Path.of(System.getProperty("ballast.repository.root", ".."))
            .toAbsolutePath()
            .normalize();

    /** A dependency as a POM declares it, without its version. */
    record Dep(String groupId, String artifactId, String type, String scope, String version) {
        String key() {
            return groupId + ":" + artifactId + ("jar".equals(type) ? "" : ":" + type);
        }
    }

    static Element pom(Path file) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(false);
        Document doc = factory.newDocumentBuilder().parse(file.toFile());
        return doc.getDocumentElement();
    }

    static List<Element> children(Element parent, String name) {
        List<Element> out = new ArrayList<>();
        if (parent == null) {
            return out;
        }
        NodeList nodes = parent.getChildNodes();
        for (int i = 0; i < nodes.getLength(); i++) {
            Node n = nodes.item(i);
            if (n instanceof Element e && e.getTagName().equals(name)) {
                out.add(e);
            }
        }
        return out;
    }

    static Element child(Element parent, String name) {
        List<Element> c = children(parent, name);
        return c.isEmpty() ? null : c.get(0);
    }

    static String text(Element parent, String name, String otherwise) {
        Element e = child(parent, name);
        return e == null ? otherwise : e.getTextContent().trim();
    }

    static List<Dep> dependencies(Element dependencies) {
        return children(dependencies, "dependency").stream()
                .map(d -> new Dep(
                        text(d, "groupId", null),
                        text(d, "artifactId", null),
                        text(d, "type", "jar"),
                        text(d, "scope", "compile"),
                        text(d, "version", null)))
                .toList();
    }

    static List<Dep> managed(Element pom) {
        return dependencies(child(child(pom, "dependencyManagement"), "dependencies"));
    }

    static List<Element> modulePoms() throws Exception {
        List<Element> poms = new ArrayList<>();
        for (Element module : children(child(pom(ROOT.resolve("pom.xml")), "modules"), "module")) {
            poms.add(pom(ROOT.resolve(module.getTextContent().trim()).resolve("pom.xml")));
        }
        return poms;
    }

    /** A module is published when it attaches sources and Javadoc (maven-source-plugin in its build). */
    /**
     * Whether a module's jar is published: it is not the BOM (packaging {@code pom}) and does not set
     * {@code maven.deploy.skip} (integration-tests and benchmarks do). A starter without code attaches its
     * sources and javadoc jars with the jar plugin rather than the source plugin, so that is no test.
     */
    static boolean published(Element modulePom) {
        if ("pom".equals(text(modulePom, "packaging", "jar"))) {
            return false;
        }
        Element properties = child(modulePom, "properties");
        return properties == null || !"true".equals(text(properties, "maven.deploy.skip", "false"));
    }

    @Test
    void theBomManagesExactlyThePublishedModulesAtTheBuildsVersionAndNothingElse() throws Exception {
        Element parent = pom(ROOT.resolve("pom.xml"));
        Element bom = pom(ROOT.resolve("bom/pom.xml"));

        // Importing a BOM imports its parent's dependencyManagement too: it must have none.
        assertThat(child(bom, "parent")).as("ballast-bom's parent").isNull();
        assertThat(text(bom, "version", null)).isEqualTo(text(parent, "version", null));
        assertThat(managed(bom)).isNotEmpty().allSatisfy(d -> {
            assertThat(d.groupId()).isEqualTo("dev.ballast");
            assertThat(d.version()).isEqualTo("${project.version}");
            assertThat(d.scope()).isNotEqualTo("import");
        });

        Set<String> publishedArtifacts = new TreeSet<>();
        for (Element module : modulePoms()) {
            if (published(module)) {
                publishedArtifacts.add("dev.ballast:" + text(module, "artifactId", null));
            }
        }
        assertThat(publishedArtifacts)
                .contains(
                        "dev.ballast:ballast-http-client",
                        "dev.ballast:ballast-storage-adapter",
                        "dev.ballast:ballast-test",
                        "dev.ballast:ballast-backup",
                        "dev.ballast:ballast-cli",
                        "dev.ballast:ballast-spring-boot-autoconfigure",
                        "dev.ballast:ballast-spring-boot-starter");
        assertThat(managed(bom)).extracting(Dep::key).containsExactlyInAnyOrderElementsOf(publishedArtifacts);
    }

    @Test
    void theParentManagesNoDependencyThatNoModuleDeclares() throws Exception {
        Set<String> declared = new TreeSet<>();
        for (Element module : modulePoms()) {
            dependencies(child(module, "dependencies")).forEach(d -> declared.add(d.key()));
        }
        // Imported BOMs manage families (Jackson, the AWS SDK, JUnit) that modules use in part; listed
        // dependencies must each be used.
        List<String> unused = managed(pom(ROOT.resolve("pom.xml"))).stream()
                .filter(d -> !d.scope().equals("import"))
                .map(Dep::key)
                .filter(k -> !declared.contains(k))
                .toList();
        assertThat(unused)
                .as("managed in ballast-parent but declared by no module")
                .isEmpty();
    }
}
