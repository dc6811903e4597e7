package dev.ballast.it.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ballast.storage.StorageFacade;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The storage-adapter jar is a named module that exports every package but {@code internal}, which only the
 * test kit ({@code dev.ballast.test}) may read.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class StorageModuleDescriptorTest {

    @Test
    void theJarExportsEveryPackageButInternal() throws URISyntaxException {
        Path jar = Path.of(StorageFacade.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        assumeTrue(
                Files.isRegularFile(jar),
                "storage-adapter is on the class path as " + jar
                        + ", not as its jar (the descriptor is compiled when the jar is built: run mvn verify)");

        ModuleDescriptor module = ModuleFinder.of(jar).findAll().stream()
                .map(ModuleReference::descriptor)
                .findFirst()
                .orElseThrow();
        assertThat(module.name()).isEqualTo("dev.ballast.storage");
        assertThat(module.isAutomatic()).isFalse();
        assertThat(module.packages()).contains("dev.ballast.storage.internal");
        Set<String> exportedToAll = module.exports().stream()
                .filter(e -> !e.isQualified())
                .map(ModuleDescriptor.Exports::source)
                .collect(Collectors.toSet());
        assertThat(exportedToAll)
                .isEqualTo(module.packages().stream()
                        .filter(p -> !p.equals("dev.ballast.storage.internal"))
                        .collect(Collectors.toSet()));
        // internal is exported to the test kit alone (it reuses the stores' key checks and read verification)
        assertThat(module.exports())
                .filteredOn(ModuleDescriptor.Exports::isQualified)
                .singleElement()
                .satisfies(e -> {
                    assertThat(e.source()).isEqualTo("dev.ballast.storage.internal");
                    assertThat(e.targets()).containsExactly("dev.ballast.test");
                });
    }
}
