package dev.ductor.security;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Tag("unit")
class DevKeysTest {

    @TempDir
    Path dir;

    @Test
    void createsAMatchingRsa2048PairAsPem() throws Exception {
        DevKeys keys = new DevKeys(dir.resolve("dev-keys"));
        keys.ensureExist();

        assertTrue(Files.readString(keys.privateKeyFile()).startsWith("-----BEGIN PRIVATE KEY-----\n"));
        assertTrue(Files.readString(keys.publicKeyFile()).startsWith("-----BEGIN PUBLIC KEY-----\n"));
        assertEquals(2048, ((RSAPublicKey) publicKey(keys)).getModulus().bitLength());
        assertPairMatches(keys);
    }

    @Test
    void reusesExistingFiles() throws Exception {
        new DevKeys(dir).ensureExist();
        String privatePem = Files.readString(dir.resolve("private.pem"));
        String publicPem = Files.readString(dir.resolve("public.pem"));

        new DevKeys(dir).ensureExist(); // a restart

        assertEquals(privatePem, Files.readString(dir.resolve("private.pem")));
        assertEquals(publicPem, Files.readString(dir.resolve("public.pem")));
    }

    @Test
    void replacesAHalfPairWithANewMatchingPair() throws Exception {
        DevKeys keys = new DevKeys(dir);
        keys.ensureExist();
        String oldPrivate = Files.readString(keys.privateKeyFile());
        Files.delete(keys.publicKeyFile());

        keys.ensureExist();

        assertNotEquals(oldPrivate, Files.readString(keys.privateKeyFile()));
        assertPairMatches(keys);
    }

    @Test
    void privateKeyIsReadableByTheOwnerOnly() throws Exception {
        DevKeys keys = new DevKeys(dir);
        keys.ensureExist();
        if (Files.getFileStore(dir).supportsFileAttributeView("posix")) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(keys.privateKeyFile())));
        }
    }

    private static void assertPairMatches(DevKeys keys) throws Exception {
        byte[] data = "ductor".getBytes();
        Signature signer = Signature.getInstance("SHA256withRSA");
        signer.initSign(privateKey(keys));
        signer.update(data);
        byte[] signature = signer.sign();
        Signature verifier = Signature.getInstance("SHA256withRSA");
        verifier.initVerify(publicKey(keys));
        verifier.update(data);
        assertTrue(verifier.verify(signature), "public.pem must verify what private.pem signs");
    }

    private static PrivateKey privateKey(DevKeys keys) throws Exception {
        return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(der(keys.privateKeyFile())));
    }

    private static PublicKey publicKey(DevKeys keys) throws Exception {
        return KeyFactory.getInstance("RSA").generatePublic(new X509EncodedKeySpec(der(keys.publicKeyFile())));
    }

    private static byte[] der(Path pem) throws Exception {
        String base64 = Files.readString(pem).replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        return Base64.getDecoder().decode(base64);
    }
}
