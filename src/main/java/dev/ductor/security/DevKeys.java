package dev.ductor.security;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * The RSA key pair that signs and verifies dev tokens, kept as PEM files ({@code private.pem} PKCS#8,
 * {@code public.pem} X.509) so that a token copied yesterday still works after a restart.
 *
 * <p>Plain JDK crypto because this runs inside a config source, before CDI or smallrye-jwt exist.
 */
public final class DevKeys {

    private static final int KEY_SIZE = 2048;

    private final Path directory;

    public DevKeys(Path directory) {
        this.directory = directory.toAbsolutePath().normalize();
    }

    public Path privateKeyFile() {
        return directory.resolve("private.pem");
    }

    public Path publicKeyFile() {
        return directory.resolve("public.pem");
    }

    /**
     * Generates the pair unless both files already exist. The file lock keeps two JVMs starting at once
     * (parallel test forks, two dev instances) from writing halves of two different pairs; the class lock
     * does the same for threads, which share one JVM-wide file lock.
     */
    public void ensureExist() {
        synchronized (DevKeys.class) {
            try {
                Files.createDirectories(directory);
                try (FileChannel channel = FileChannel.open(directory.resolve(".lock"),
                        StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                     FileLock ignored = channel.lock()) {
                    if (Files.isRegularFile(privateKeyFile()) && Files.isRegularFile(publicKeyFile())) {
                        return;
                    }
                    KeyPair pair = generate();
                    // Only a dev key, but still a signing key: created readable by its owner alone, never for a moment
                    // by other local users, who could mint admin tokens with it.
                    OwnerOnlyFile.write(privateKeyFile(), pem("PRIVATE KEY", pair.getPrivate().getEncoded()));
                    Files.writeString(publicKeyFile(), pem("PUBLIC KEY", pair.getPublic().getEncoded()), StandardCharsets.US_ASCII);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("Could not create the dev JWT key pair in " + directory, e);
            }
        }
    }

    private static KeyPair generate() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(KEY_SIZE);
            return generator.generateKeyPair();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every JDK has RSA", e);
        }
    }

    private static String pem(String type, byte[] der) {
        String body = Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der);
        return "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n";
    }
}
