package dev.ductor.security;

import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.ConfigValue;
import org.eclipse.microprofile.config.spi.ConfigSource;

import java.nio.file.Path;
import java.util.List;

/**
 * Supplies a persistent dev key pair and the {@value JwtSettings#DEV_ISSUER} issuer to smallrye-jwt when
 * dev tokens are enabled and no verification key is configured, so that dev mode, the tests and an
 * embedded trial run accept the tokens {@link DevTokenIssuer} prints.
 *
 * <p>A config source because smallrye-jwt reads its key settings from configuration; a configured key
 * (a PEM file, a JWKS URL of a real identity provider) always switches this off.
 */
public class DevKeyConfigSourceFactory implements ConfigSourceFactory {

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        if (!Boolean.parseBoolean(value(context, DevTokenIssuer.ENABLED))
                || JwtSettings.verificationKeyConfigured(name -> configuredValue(context, name))) {
            return List.of();
        }
        String dir = value(context, DevTokenIssuer.DIR);
        Path keyDir = Path.of(dir == null ? DevTokenIssuer.DEFAULT_DIR : dir, "dev-keys");
        return List.of(new DevKeySource(new DevKeys(keyDir)));
    }

    /**
     * Ignores Quarkus' default values: in dev mode and tests, smallrye-jwt's extension puts an in-memory key
     * pair there (ordinal {@code Integer.MIN_VALUE}) whenever no key is configured at build time, which is
     * always the case here because {@link DevKeySource} answers nothing at build time.
     */
    private static String configuredValue(ConfigSourceContext context, String name) {
        ConfigValue value = context.getValue(name);
        return value == null || value.getConfigSourceOrdinal() == Integer.MIN_VALUE ? null : value.getValue();
    }

    private static String value(ConfigSourceContext context, String name) {
        ConfigValue value = context.getValue(name);
        return value == null ? null : value.getValue();
    }
}
