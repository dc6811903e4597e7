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

/** The storage-adapter jar is a named module that exports every package but {@code internal}. */
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
        Set<String> exported =
                module.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet());

        assertThat(module.name()).isEqualTo("dev.ballast.storage");
        assertThat(module.isAutomatic()).isFalse();
        assertThat(module.packages()).contains("dev.ballast.storage.internal");
        assertThat(exported)
                .isEqualTo(module.packages().stream()
                        .filter(p -> !p.equals("dev.ballast.storage.internal"))
                        .collect(Collectors.toSet()));
        assertThat(module.exports()).allMatch(e -> !e.isQualified());
    }
}
